package io.javelin.engine.index;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.javelin.engine.Dataset;
import io.javelin.engine.InvalidScanException;
import io.javelin.engine.Scanner;
import io.javelin.engine.WriteMode;
import io.javelin.engine.WriteParams;
import io.javelin.index.vector.Neighbor;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** createIndex → list → query; appends (unindexed fragments), deletes, replace; indexed vs full-scan equality. */
class IndexLifecycleTest {

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

    Dataset create(int rows) {
        return Dataset.write(dir.resolve("t.lance").toString(), IndexTestData.rows(alloc, 0, rows, 500), IndexTestData.schema(),
                WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(1000)).block();
    }

    static long[] ids(Scanner s, BufferAllocator alloc) {
        List<Long> out = new ArrayList<>();
        for (VectorSchemaRoot b : s.columns("id").scan(alloc).collectList().block()) {
            try (b) {
                BigIntVector v = (BigIntVector) b.getVector("id");
                for (int i = 0; i < b.getRowCount(); i++) {
                    out.add(v.get(i));
                }
            }
        }
        return out.stream().mapToLong(Long::longValue).sorted().toArray();
    }

    static long id(Neighbor n) {
        return (n.rowId() >>> 32) * 1000 + (n.rowId() & 0xFFFF_FFFFL); // 1000 rows per fragment
    }

    @Test
    void scalarIndexesAreCreatedListedAndUsed() {
        try (Dataset v1 = create(4000);
             Dataset v2 = v1.createIndex(List.of("id"), IndexKind.BTREE, IndexParams.defaults()).block();
             Dataset v3 = v2.createIndex(List.of("cat"), IndexKind.BITMAP, IndexParams.defaults().withName("cat_bitmap")).block();
             Dataset v4 = v3.createIndex(List.of("num"), IndexKind.BTREE, IndexParams.defaults()).block()) {
            assertThat(v4.version()).isEqualTo(4);
            List<IndexInfo> idx = v4.listIndexes();
            assertThat(idx).extracting(IndexInfo::name).containsExactly("id_idx", "cat_bitmap", "num_idx");
            assertThat(idx).extracting(IndexInfo::indexType).containsExactly("BTree", "Bitmap", "BTree");
            assertThat(idx.get(0).fragments().toArray()).containsExactly(0, 1, 2, 3);
            assertThat(idx.get(0).metadata().getFilesCount()).isEqualTo(2);
            assertThat(idx.get(0).metadata().getIndexDetails().getTypeUrl()).isEqualTo("/lance.table.BTreeIndexDetails");
            // reopened from storage: the manifest carries the index section
            try (Dataset again = Dataset.open(dir.resolve("t.lance").toString()).block()) {
                assertThat(again.listIndexes()).hasSize(3);
            }
            assertThatThrownBy(() -> v4.createIndex(List.of("id"), IndexKind.BTREE, IndexParams.defaults()).block())
                    .isInstanceOf(InvalidScanException.class).hasMessageContaining("already exists");
            assertThatThrownBy(() -> v4.createIndex(List.of("vec"), IndexKind.BTREE, IndexParams.defaults()).block())
                    .isInstanceOf(InvalidScanException.class);

            long before = ScalarIndexScan.INDEXED_SCANS.get();
            assertThat(ids(v4.scanner().filter("id = 1234"), alloc)).containsExactly(1234);
            assertThat(ScalarIndexScan.INDEXED_SCANS.get()).isGreaterThan(before);

            // append: the new fragment is not covered and is scanned; delete: deleted rows never come back
            try (Dataset v5 = v4.append(IndexTestData.rows(alloc, 4000, 1000, 1000), IndexTestData.schema()).block();
                 Dataset v6 = v5.delete("id IN (10, 11, 3000, 4500)").block()) {
                assertThat(ids(v6.scanner().filter("id >= 4495 AND id <= 4502"), alloc)).containsExactly(4495, 4496, 4497, 4498, 4499, 4501, 4502);
                assertThat(ids(v6.scanner().filter("id < 13"), alloc)).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12);
                propertyIndexedEqualsScan(v6, 60, 7);
                try (Dataset v7 = v6.dropIndex("cat_bitmap").block()) {
                    assertThat(v7.listIndexes()).extracting(IndexInfo::name).containsExactly("id_idx", "num_idx");
                    assertThat(ids(v7.scanner().filter("cat = 'c2' AND id < 40"), alloc)).containsExactly(2, 8, 14, 20, 26, 32, 38);
                    assertThatThrownBy(() -> v7.dropIndex("cat_bitmap").block()).isInstanceOf(InvalidScanException.class);
                }
            }
        }
    }

    /** Random predicates over indexed (id, cat, num) and unindexed columns: indexed results = full scan. */
    void propertyIndexedEqualsScan(Dataset ds, int cases, long seed) {
        Random r = new Random(seed);
        for (int c = 0; c < cases; c++) {
            String f = randomPredicate(r, 2);
            long[] indexed = ids(ds.scanner().filter(f), alloc);
            long[] scanned = ids(ds.scanner().filter(f).pushdown(false), alloc);
            assertThat(indexed).as(f).containsExactly(scanned);
        }
    }

    static String randomPredicate(Random r, int depth) {
        if (depth > 0 && r.nextInt(3) == 0) {
            String op = r.nextBoolean() ? " AND " : " OR ";
            return "(" + randomPredicate(r, depth - 1) + op + randomPredicate(r, depth - 1) + ")";
        }
        return switch (r.nextInt(9)) {
            case 0 -> "id = " + r.nextInt(5200);
            case 1 -> "id " + List.of("<", "<=", ">", ">=").get(r.nextInt(4)) + " " + r.nextInt(5200);
            case 2 -> "id BETWEEN " + r.nextInt(5000) + " AND " + (r.nextInt(400) + 4800);
            case 3 -> "cat = 'c" + r.nextInt(7) + "'";
            case 4 -> "cat IS NULL";
            case 5 -> "cat IN ('c1', 'c" + r.nextInt(7) + "')";
            case 6 -> "num " + List.of("<", ">=", "=").get(r.nextInt(3)) + " " + (r.nextInt(1000) - 500);
            case 7 -> "num IS NULL";
            default -> "id % 3 = " + r.nextInt(3); // not sargable
        };
    }

    @Test
    void vectorIndexSearchAppendsAndDeletes() {
        try (Dataset v1 = create(3000);
             Dataset v2 = v1.createIndex(List.of("vec"), IndexKind.IVF_PQ,
                     IndexParams.defaults().withNumPartitions(8).withNumSubVectors(4).withMaxIters(10)).block()) {
            IndexInfo info = v2.listIndexes().get(0);
            assertThat(info.indexType()).isEqualTo("IVF_PQ");
            assertThat(info.metadata().getIndexDetails().getTypeUrl()).isEqualTo("/lance.index.pb.VectorIndexDetails");
            assertThat(info.indexVersion()).isEqualTo(1);
            // recall@10 with refine vs exact search, over 20 queries
            double hits = 0;
            for (int qi = 0; qi < 20; qi++) {
                float[] q = IndexTestData.vector(100_000 + qi);
                Set<Long> exact = new HashSet<>();
                v2.scanner().nearest("vec", q, 10).useIndex(false).neighbors().block().forEach(n -> exact.add(n.rowId()));
                for (Neighbor n : v2.scanner().nearest("vec", q, 10).nprobes(4).refineFactor(5).neighbors().block()) {
                    hits += exact.contains(n.rowId()) ? 1 : 0;
                }
            }
            assertThat(hits / 200).isGreaterThanOrEqualTo(0.9);

            // an appended row is found exactly (flat search of the unindexed fragment); a deleted one never
            try (Dataset v3 = v2.append(IndexTestData.rows(alloc, 3000, 200, 200), IndexTestData.schema()).block();
                 Dataset v4 = v3.delete("id = 7").block()) {
                List<Neighbor> nb = v4.scanner().nearest("vec", IndexTestData.vector(3150), 3).nprobes(2).neighbors().block();
                assertThat(nb.get(0).rowId()).isEqualTo((3L << 32) | 150);
                assertThat(nb.get(0).distance()).isZero();
                List<Neighbor> deleted = v4.scanner().nearest("vec", IndexTestData.vector(7), 5).nprobes(8).refineFactor(4).neighbors().block();
                assertThat(deleted).noneMatch(n -> n.rowId() == 7L);
                // prefiltered kNN equals brute force over the filtered rows
                float[] q = IndexTestData.vector(5);
                List<Neighbor> pre = v4.scanner().filter("cat = 'c3'").nearest("vec", q, 5).useIndex(false).neighbors().block();
                assertThat(pre).hasSize(5).allMatch(n -> "c3".equals(IndexTestData.cat(id(n))));
                List<Neighbor> preIdx = v4.scanner().filter("cat = 'c3'").nearest("vec", q, 5).nprobes(8).refineFactor(20).neighbors().block();
                assertThat(preIdx).extracting(IndexLifecycleTest::id).containsExactlyElementsOf(pre.stream().map(IndexLifecycleTest::id).toList());
                // result rows: projected columns + _distance (+ _rowid)
                try (VectorSchemaRoot r = v4.scanner().columns("id", "cat").withRowId(true).nearest("vec", q, 4).nprobes(8).scan(alloc)
                        .blockFirst()) {
                    assertThat(r.getSchema().getFields()).extracting(f -> f.getName()).containsExactly("id", "cat", "_distance", "_rowid");
                    assertThat(r.getRowCount()).isEqualTo(4);
                }
            }
            assertThatThrownBy(() -> v2.scanner().nearest("vec", new float[3], 4).neighbors().block())
                    .isInstanceOf(InvalidScanException.class).hasMessageContaining("dimensions");
        }
    }

    @Test
    void otherVectorTypesAndReplace() {
        try (Dataset v1 = create(2000)) {
            for (IndexKind kind : List.of(IndexKind.IVF_FLAT, IndexKind.IVF_SQ, IndexKind.IVF_HNSW_SQ)) {
                try (Dataset v = v1.createIndex(List.of("vec"), kind, IndexParams.defaults().withNumPartitions(4).withMaxIters(5)
                        .withName("v_" + kind)).block()) {
                    IndexInfo info = v.listIndexes().stream().filter(i -> i.name().equals("v_" + kind)).findFirst().orElseThrow();
                    assertThat(info.indexType()).isEqualTo(kind.name());
                    float[] q = IndexTestData.vector(33);
                    List<Neighbor> nb = v.scanner().nearest("vec", q, 3).nprobes(4).refineFactor(kind == IndexKind.IVF_FLAT ? 0 : 10)
                            .neighbors().block();
                    assertThat(nb.get(0).rowId()).as(kind.name()).isEqualTo(33L);
                    try (Dataset replaced = v.createIndex(List.of("vec"), IndexKind.IVF_FLAT,
                            IndexParams.defaults().withNumPartitions(2).withName("v_" + kind).withReplace(true)).block()) {
                        assertThat(replaced.listIndexes().stream().filter(i -> i.name().equals("v_" + kind)))
                                .singleElement().extracting(IndexInfo::indexType).isEqualTo("IVF_FLAT");
                    }
                }
            }
        }
    }
}
