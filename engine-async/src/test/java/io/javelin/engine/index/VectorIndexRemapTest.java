package io.javelin.engine.index;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.engine.Dataset;
import io.javelin.engine.WriteMode;
import io.javelin.engine.WriteParams;
import io.javelin.engine.maintenance.CompactionOptions;
import io.javelin.tx.FragmentInfo;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Compaction without stable row ids remaps vector indexes (as Lance does) instead of dropping their
 * coverage: the segment gets a new uuid, covers the new fragment, holds exactly the live rows, and
 * returns the same neighbours (ids and distances) as before the compaction; HNSW graphs are rebuilt.
 */
class VectorIndexRemapTest {

    BufferAllocator alloc;
    @TempDir
    Path dir;

    @BeforeEach
    void open() {
        alloc = new RootAllocator();
    }

    @AfterEach
    void close() {
        alloc.close();
    }

    /** (id, distance) of the k nearest rows through the index, all 4 partitions probed. */
    List<String> knn(Dataset ds, float[] q, boolean hnsw) {
        List<String> out = new ArrayList<>();
        var nq = ds.scanner().columns("id").nearest("vec", q, 10).nprobes(4);
        if (hnsw) {
            nq = nq.ef(300);
        }
        for (VectorSchemaRoot b : nq.scan(alloc).collectList().block()) {
            try (b) {
                BigIntVector id = (BigIntVector) b.getVector("id");
                Float4Vector d = (Float4Vector) b.getVector(NearestQuery.DISTANCE);
                for (int i = 0; i < b.getRowCount(); i++) {
                    out.add(hnsw ? Long.toString(id.get(i)) : id.get(i) + "@" + d.get(i));
                }
            }
        }
        return out;
    }

    @ParameterizedTest
    @EnumSource(value = IndexKind.class, names = {"IVF_FLAT", "IVF_PQ", "IVF_SQ", "IVF_HNSW_FLAT", "IVF_HNSW_SQ"})
    void compactionRemapsTheVectorIndex(IndexKind kind) {
        String uri = dir.resolve(kind + ".lance").toString();
        boolean hnsw = kind.isHnsw();
        Dataset.write(uri, IndexTestData.rows(alloc, 0, 3000, 500), IndexTestData.schema(),
                WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(1000)).block().close();
        try (Dataset v1 = Dataset.open(uri).block();
             Dataset v2 = v1.createIndex(List.of("vec"), kind, IndexParams.defaults().withNumPartitions(4).withMaxIters(10)
                     .withNumSubVectors(4)).block();
             Dataset v3 = v2.delete("id % 7 = 3 OR (id >= 1200 AND id < 1300)").block()) {
            IndexInfo before = v3.listIndexes().getFirst();
            List<List<String>> expected = new ArrayList<>();
            for (int qi = 0; qi < 6; qi++) {
                expected.add(knn(v3, IndexTestData.vector(50_000 + qi), hnsw));
            }
            try (Dataset v4 = v3.compact(CompactionOptions.defaults().withTargetRowsPerFragment(10_000)).block().dataset()) {
                assertThat(v4.fragments()).hasSize(1);
                IndexInfo after = v4.listIndexes().getFirst();
                assertThat(v4.listIndexes()).hasSize(1);
                assertThat(after.uuid()).isNotEqualTo(before.uuid());
                assertThat(after.indexType()).isEqualTo(before.indexType());
                assertThat(after.fragments().toArray()).containsExactly((int) v4.fragments().getFirst().id());
                // the remapped segment holds exactly the live rows, at their new addresses
                long live = v4.count().block();
                var src = io.javelin.index.LanceIndexFileSource.forSegment(v4.objectStore(), "", after.uuid(), alloc);
                var ivf = io.javelin.index.IndexReaders.openIvf(src, "remapped").block();
                src.close();
                assertThat(ivf.numRows()).isEqualTo(live);
                Set<Long> addrs = new HashSet<>();
                ivf.partitions().forEach(p -> {
                    for (long a : p) {
                        addrs.add(a);
                    }
                });
                FragmentInfo f = v4.fragments().getFirst();
                assertThat(addrs).hasSize((int) live).allSatisfy(a -> {
                    assertThat(a >>> 32).isEqualTo(f.id());
                    assertThat(a & 0xFFFF_FFFFL).isLessThan(live);
                });
                int same = 0;
                int total = 0;
                for (int qi = 0; qi < 6; qi++) {
                    List<String> got = knn(v4, IndexTestData.vector(50_000 + qi), hnsw);
                    if (!hnsw) {
                        assertThat(got).as("query " + qi).isEqualTo(expected.get(qi));
                    }
                    Set<String> want = new HashSet<>(expected.get(qi));
                    same += (int) got.stream().filter(want::contains).count();
                    total += want.size();
                }
                // HNSW graphs are rebuilt (different graph): the same neighbours up to the graph's approximation
                assertThat(same).isGreaterThanOrEqualTo((int) Math.ceil(total * 0.95));
            }
        }
    }
}
