package io.javelin.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;

/** Distributed new columns: workers write column files for their fragments, one committer commits a Merge. */
class DistributedColumnsTest {

    static final Schema TRIPLE = column("triple");
    static final Schema OTHER = column("other");

    static Schema column(String name) {
        return new Schema(List.of(new Field(name, FieldType.nullable(new ArrowType.Int(64, true)), null)));
    }

    @TempDir
    Path dir;

    final BufferAllocator alloc = new RootAllocator();

    @AfterEach
    void close() {
        alloc.close();
    }

    /** What a worker computes: id * 3 for each live row of its fragments, in order. */
    Flux<VectorSchemaRoot> triples(Dataset ds, List<Long> fragments) {
        return triples(ds, fragments, TRIPLE);
    }

    Flux<VectorSchemaRoot> triples(Dataset ds, List<Long> fragments, Schema schema) {
        return ds.scanner().columns("id").fragments(fragments).scan(alloc).map(b -> {
            try (b) {
                BigIntVector id = (BigIntVector) b.getVector("id");
                VectorSchemaRoot out = VectorSchemaRoot.create(schema, alloc);
                BigIntVector t = (BigIntVector) out.getVector(0);
                t.allocateNew(b.getRowCount());
                for (int i = 0; i < b.getRowCount(); i++) {
                    t.set(i, id.get(i) * 3);
                }
                out.setRowCount(b.getRowCount());
                return out;
            }
        });
    }

    @Test
    void workersWriteColumnsAndOneCommitMergesThem() {
        String uri = dir.resolve("d.lance").toString();
        try (Dataset v1 = Dataset.write(uri, DatasetTestSupport.rows(alloc, 0, 1000, 100), DatasetTestSupport.schema(),
                WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(200)).block();
             Dataset v2 = v1.delete("id % 10 = 4").block()) {
            List<Long> ids = v2.fragments().stream().map(f -> (long) f.id()).toList();
            assertThat(ids).hasSize(5);
            // two workers, and fragment 4 is left to no one (its rows read NULL)
            List<String> shipped = new ArrayList<>();
            for (List<Long> part : List.of(ids.subList(0, 2), ids.subList(2, 4))) {
                for (FragmentMetadata m : v2.writeColumns(part, triples(v2, part), TRIPLE).block()) {
                    shipped.add(m.toJson());
                }
            }
            List<FragmentMetadata> received = shipped.stream().map(FragmentMetadata::fromJson).toList();
            try (Dataset v3 = v2.commitColumns(received, TRIPLE).block()) {
                assertThat(v3.version()).isEqualTo(3);
                assertThat(v3.schema().getFields().stream().map(Field::getName)).contains("triple");
                long checked = 0;
                for (List<String> row : DatasetTestSupport.collect(v3.scanner().columns("id", "triple").scan(alloc))) {
                    long id = Long.parseLong(row.get(0));
                    assertThat(id % 10).isNotEqualTo(4);
                    if (id < 800) {
                        assertThat(row.get(1)).isEqualTo(Long.toString(id * 3));
                    } else {
                        assertThat(row.get(1)).isEqualTo("null");
                    }
                    checked++;
                }
                assertThat(checked).isEqualTo(900);
            }
            // a fragment rewritten (compacted) between writing and committing is refused
            try (Dataset v3 = Dataset.open(uri).block()) {
                List<FragmentMetadata> stale = v3.writeColumns(ids.subList(0, 1), triples(v3, ids.subList(0, 1), OTHER), OTHER).block();
                try (Dataset v4 = v3.compact(io.javelin.engine.maintenance.CompactionOptions.defaults()).block().dataset()) {
                    assertThatThrownBy(() -> v4.commitColumns(stale, OTHER).block()).isInstanceOf(DatasetException.class)
                            .hasMessageContaining("changed since");
                }
            }
        }
    }
}
