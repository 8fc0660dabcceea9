package io.javelin.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.javelin.tx.pb.Transaction;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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

/**
 * Column backfill in batches ({@code writeColumnData} + {@code commitColumnData}): an all-NULL column
 * filled a few fragments per DataReplacement commit, on a flat and a tree table alike.
 */
class ColumnFillTest {

    static final Field TRIPLE = new Field("triple", FieldType.nullable(new ArrowType.Int(64, true)), null);

    @TempDir
    Path dir;

    final BufferAllocator alloc = new RootAllocator();
    final List<Dataset> open = new ArrayList<>();

    @AfterEach
    void close() {
        open.forEach(Dataset::close);
        alloc.close();
    }

    Dataset keep(Dataset d) {
        open.add(d);
        return d;
    }

    /** id * 3 for each live row of {@code fragments}, in order, as column {@code name}. */
    Flux<VectorSchemaRoot> triples(Dataset ds, List<Long> fragments, String name) {
        Schema out = new Schema(List.of(new Field(name, FieldType.nullable(new ArrowType.Int(64, true)), null)));
        return ds.scanner().columns("id").fragments(fragments).scan(alloc).map(b -> {
            try (b) {
                BigIntVector id = (BigIntVector) b.getVector("id");
                VectorSchemaRoot r = VectorSchemaRoot.create(out, alloc);
                BigIntVector t = (BigIntVector) r.getVector(0);
                t.allocateNew(b.getRowCount());
                for (int i = 0; i < b.getRowCount(); i++) {
                    t.set(i, id.get(i) * 3);
                }
                r.setRowCount(b.getRowCount());
                return r;
            }
        });
    }

    Dataset table(String name, Map<String, String> config) {
        Dataset v1 = keep(Dataset.write(dir.resolve(name).toString(), DatasetTestSupport.rows(alloc, 0, 1000, 100),
                DatasetTestSupport.schema(), WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(100)
                        .withTableConfig(config)).block());
        return keep(v1.delete("id % 10 = 4").block());
    }

    /** id → triple as strings, for every live row. */
    List<List<String>> idAndTriple(Dataset ds) {
        return DatasetTestSupport.collect(ds.scanner().columns("id", "triple").scan(alloc));
    }

    @Test
    void anAllNullColumnIsFilledAFewFragmentsPerCommitOnFlatAndTreeTables() {
        for (Map<String, String> config : List.of(Map.<String, String>of(), TreeDatasetTest.TREE)) {
            String name = config.isEmpty() ? "flat" : "tree";
            Dataset ds = keep(table(name, config).addColumns(List.of(TRIPLE)).block());
            assertThat(ds.isTreeLayout()).isEqualTo(!config.isEmpty());
            List<Long> ids = ds.loadFragments().block().stream().map(f -> f.id()).toList();
            assertThat(ids).hasSize(10);
            for (int from = 0; from < ids.size(); from += 3) {
                List<Long> batch = ids.subList(from, Math.min(ids.size(), from + 3));
                List<FragmentMetadata> written = ds.writeColumnData(batch, List.of("triple"),
                        triples(ds, batch, "triple")).block();
                assertThat(written).hasSize(batch.size());
                ds = keep(ds.commitColumnData(written).block());
                Transaction txn = ds.snapshot().manifestFile().transaction();
                if (txn != null) {
                    assertThat(txn.hasDataReplacement()).as(name).isTrue();
                    assertThat(txn.getDataReplacement().getReplacementsCount()).isEqualTo(batch.size());
                }
                long filled = idAndTriple(ds).stream().filter(r -> !r.get(1).equals("null")).count();
                long expected = 0;
                for (long id : ids.subList(0, Math.min(ids.size(), from + 3))) {
                    expected += 90; // 100 rows per fragment, every 10th deleted
                }
                assertThat(filled).as("%s after filling %s", name, batch).isEqualTo(expected);
            }
            for (List<String> r : idAndTriple(ds)) {
                assertThat(Long.parseLong(r.get(1))).isEqualTo(Long.parseLong(r.get(0)) * 3);
            }
            assertThat(idAndTriple(ds)).hasSize(900);
        }
    }

    @Test
    void aFilledColumnCanBeReplacedAgainAndStaleOrForeignFilesAreRefused() {
        Dataset ds = keep(table("t", TreeDatasetTest.TREE).addColumns(List.of(TRIPLE)).block());
        List<Long> one = List.of(ds.loadFragments().block().get(2).id());
        List<FragmentMetadata> first = ds.writeColumnData(one, List.of("triple"), triples(ds, one, "triple")).block();
        Dataset filled = keep(ds.commitColumnData(first).block());
        // the same metadata again: the fragment's files changed since it was written
        assertThatThrownBy(() -> filled.commitColumnData(first).block()).isInstanceOf(SchemaEvolutionException.class)
                .hasMessageContaining("changed since");
        // replacing the filled file (same fields) is a DataReplacement too
        List<FragmentMetadata> again = filled.writeColumnData(one, List.of("triple"), triples(filled, one, "triple")).block();
        Dataset replaced = keep(filled.commitColumnData(again).block());
        assertThat(replaced.loadFragments().block().get(2).fragment().getFilesCount())
                .isEqualTo(filled.loadFragments().block().get(2).fragment().getFilesCount());
        assertThat(idAndTriple(replaced).stream().filter(r -> !r.get(1).equals("null")).count()).isEqualTo(90);
        // a column stored together with others cannot be replaced alone
        assertThatThrownBy(() -> replaced.writeColumnData(one, List.of("name"), Flux.empty()).block())
                .isInstanceOf(SchemaEvolutionException.class).hasMessageContaining("together with other columns");
        assertThatThrownBy(() -> replaced.writeColumnData(List.of(999L), List.of("triple"), Flux.empty()).block())
                .isInstanceOf(SchemaEvolutionException.class).hasMessageContaining("does not exist");
    }

    @Test
    void aColumnAddedAfterADropOnATreeTableGetsAFreshFieldId() {
        Dataset ds = keep(table("t", TreeDatasetTest.TREE).addColumns(Map.of("x", "id * 2")).block());
        ds = keep(ds.dropColumns(List.of("x")).block());
        ds = keep(ds.addColumns(List.of(TRIPLE)).block());
        // the dropped column's id still sits in every fragment's data files: reusing it would read x as triple
        assertThat(idAndTriple(ds)).allSatisfy(r -> assertThat(r.get(1)).isEqualTo("null"));
        List<Long> one = List.of(ds.loadFragments().block().getFirst().id());
        ds = keep(ds.commitColumnData(ds.writeColumnData(one, List.of("triple"), triples(ds, one, "triple")).block())
                .block());
        assertThat(idAndTriple(ds).stream().filter(r -> !r.get(1).equals("null")).count()).isEqualTo(90);
    }
}
