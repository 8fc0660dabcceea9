package io.javelin.engine.index;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.engine.Dataset;
import io.javelin.engine.WriteMode;
import io.javelin.engine.WriteParams;
import io.javelin.index.vector.Neighbor;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A vector index on a dataset with stable row ids holds row ids: after deletes and an append (a new,
 * unindexed fragment) the index is still used and its
 * results, resolved to live row addresses, agree with exact search (with and without a prefilter).
 */
class StableRowIdVectorSearchTest {

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

    List<Long> ids(Dataset ds, float[] q, boolean index, String filter, int refine) {
        List<Long> out = new ArrayList<>();
        var nq = ds.scanner().columns("id").filter(filter).nearest("vec", q, 10).useIndex(index).nprobes(8).refineFactor(refine);
        for (VectorSchemaRoot b : nq.scan(alloc).collectList().block()) {
            try (b) {
                BigIntVector v = (BigIntVector) b.getVector("id");
                for (int i = 0; i < b.getRowCount(); i++) {
                    out.add(v.get(i));
                }
            }
        }
        return out;
    }

    @Test
    void indexIsUsedAndAgreesWithExactSearchAfterDeleteAndAppend() {
        String uri = dir.resolve("stable.lance").toString();
        try (Dataset v1 = Dataset.write(uri, IndexTestData.rows(alloc, 0, 3000, 500), IndexTestData.schema(),
                WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(500).withEnableStableRowIds(true)).block();
             Dataset v2 = v1.createIndex(List.of("vec"), IndexKind.IVF_PQ,
                     IndexParams.defaults().withNumPartitions(8).withNumSubVectors(4).withMaxIters(10)).block();
             Dataset v3 = v2.delete("id % 10 = 3").block();
             // compaction rewrites the indexed fragments: ids are kept, the index's bitmap moves to the new fragments
             Dataset v4 = v3.compact(io.javelin.engine.maintenance.CompactionOptions.defaults().withTargetRowsPerFragment(1500))
                     .block().dataset();
             // rows 3000..3199 land in a new fragment the index does not cover
             Dataset v4b = v4.append(IndexTestData.rows(alloc, 3000, 200, 200), IndexTestData.schema()).block();
             // updated rows move to a new fragment: the index must not answer for them with their old place
             Dataset v5 = v4b.update("id >= 60 AND id < 90", java.util.Map.of("num", "0")).block().dataset()) {
            assertThat(v4.fragments()).hasSizeLessThan(v3.fragments().size());
            assertThat(v5.hasStableRowIds()).isTrue();
            IndexInfo info = v5.listIndexes().get(0);
            assertThat(v5.fragments()).anyMatch(f -> !info.fragments().contains((int) f.id()));
            double hits = 0;
            int approximate = 0;
            for (int qi = 0; qi < 20; qi++) {
                float[] q = IndexTestData.vector(qi * 37L);
                Set<Long> exact = new HashSet<>(ids(v5, q, false, null, 0));
                List<Long> refined = ids(v5, q, true, null, 20);
                assertThat(refined).hasSize(10).doesNotHaveDuplicates().noneMatch(id -> id < 3000 && id % 10 == 3);
                for (long id : refined) {
                    hits += exact.contains(id) ? 1 : 0;
                }
                // without refine the index reports PQ distances: the index (not a flat fallback) answered
                List<Neighbor> pq = v5.scanner().nearest("vec", q, 10).nprobes(8).neighbors().block();
                List<Neighbor> flat = v5.scanner().nearest("vec", q, 10).useIndex(false).neighbors().block();
                assertThat(pq).hasSize(10);
                approximate += pq.get(0).distance() != flat.get(0).distance() ? 1 : 0;
            }
            assertThat(hits / 200).isGreaterThanOrEqualTo(0.95);
            assertThat(approximate).isGreaterThan(0);
            // an updated row is found once, exactly, in its new fragment
            List<Long> moved = ids(v5, IndexTestData.vector(77), true, null, 0);
            assertThat(moved.get(0)).isEqualTo(77L);
            assertThat(moved).containsOnlyOnce(77L);
            // an appended row (unindexed fragment) is found exactly, a deleted one never
            assertThat(ids(v5, IndexTestData.vector(3117), true, null, 0).get(0)).isEqualTo(3117L);
            assertThat(ids(v5, IndexTestData.vector(13), true, null, 10)).doesNotContain(13L);
            // _rowid reports the stable ids (assigned in insertion order here, so equal to "id"), not addresses
            try (VectorSchemaRoot b = v5.scanner().columns("id").withRowId(true).nearest("vec", IndexTestData.vector(2500), 5)
                    .nprobes(8).refineFactor(10).scan(alloc).blockFirst()) {
                BigIntVector id = (BigIntVector) b.getVector("id");
                var rowId = (org.apache.arrow.vector.UInt8Vector) b.getVector("_rowid");
                assertThat(b.getRowCount()).isEqualTo(5);
                assertThat(id.get(0)).isEqualTo(2500L);
                for (int i = 0; i < 5; i++) {
                    assertThat(rowId.get(i)).isEqualTo(id.get(i));
                }
            }
            // prefiltered kNN through the index equals brute force over the filtered rows
            float[] q = IndexTestData.vector(5);
            assertThat(ids(v5, q, true, "cat = 'c3'", 50)).containsExactlyElementsOf(ids(v5, q, false, "cat = 'c3'", 0));
        }
    }
}
