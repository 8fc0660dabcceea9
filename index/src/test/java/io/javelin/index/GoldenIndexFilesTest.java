package io.javelin.index;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.javelin.index.rowid.RowAddrTreeMap;
import io.javelin.index.rowid.SearchResult;
import io.javelin.index.scalar.BTreeIndex;
import io.javelin.index.scalar.BitmapIndex;
import io.javelin.index.scalar.SargableQuery;
import io.javelin.index.vector.Neighbor;
import io.javelin.index.vector.VectorQuery;
import io.javelin.objectstore.ObjectStore;
import io.javelin.objectstore.ObjectStores;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The index files of golden/indexed (Lance 7.0.0, file format 2.1), read through
 * {@link LanceIndexFileSource} and the real file reader, answer the sidecar's reference queries.
 * Ids in the dataset equal the row position: fragment 0 holds ids 0..2499, fragment 1 2500..4999.
 */
class GoldenIndexFilesTest {

    static final UUID BTREE = UUID.fromString("682a5273-041a-44f2-8646-9af174cdae9b");
    static final UUID BITMAP = UUID.fromString("6936c20a-ae7e-4d30-9a90-af0d2b84ed99");
    static final UUID IVF_PQ = UUID.fromString("ddb50704-27dd-4cfb-a7c0-94eee8e2f6d1");

    BufferAllocator allocator;
    ObjectStore store;

    @BeforeEach
    void open() throws Exception {
        allocator = new RootAllocator();
        store = ObjectStores.open(Path.of(getClass().getResource("/golden/indexed").toURI()).toString());
    }

    @AfterEach
    void close() {
        store.close();
        allocator.close();
    }

    static long[] ids(RowAddrTreeMap rows) {
        return Arrays.stream(rows.toArray()).map(a -> (a >>> 32) * 2500 + (a & 0xFFFF_FFFFL)).sorted().toArray();
    }

    static long[] ids(SearchResult r) {
        assertThat(r).isInstanceOf(SearchResult.Exact.class);
        return ids(((SearchResult.Exact) r).rows());
    }

    @Test
    void btreeAnswersEqualityAndRange() {
        try (LanceIndexFileSource src = LanceIndexFileSource.forSegment(store, "", BTREE, allocator)) {
            BTreeIndex idx = IndexReaders.openBTree(src, BTREE.toString()).block();
            assertThat(idx.pages()).hasSize(2);
            assertThat(ids(IndexReaders.searchBTree(idx, src, new SargableQuery.Equals(1234L), "btree").block()))
                    .containsExactly(1234);
            long[] range = ids(IndexReaders.searchBTree(idx, src, new SargableQuery.Range(100L, true, 120L, false), "btree").block());
            assertThat(range).containsExactly(java.util.stream.LongStream.range(100, 120).toArray());
            // across the page boundary (4096 rows per page)
            long[] wide = ids(IndexReaders.searchBTree(idx, src, new SargableQuery.Range(4000L, true, 4200L, true), "btree").block());
            assertThat(wide).containsExactly(java.util.stream.LongStream.rangeClosed(4000, 4200).toArray());
            assertThat(ids(IndexReaders.searchBTree(idx, src, new SargableQuery.Equals(99_999L), "btree").block())).isEmpty();
        }
    }

    @Test
    void bitmapAnswersEqualityAndIsNull() {
        try (LanceIndexFileSource src = LanceIndexFileSource.forSegment(store, "", BITMAP, allocator)) {
            BitmapIndex idx = IndexReaders.openBitmap(src, BITMAP.toString()).block();
            assertThat(idx.numKeys()).isEqualTo(8); // 8 categories; the null row is kept apart
            long[] cat3 = ids(idx.search(new SargableQuery.Equals("cat_3")));
            assertThat(cat3).hasSize(600);
            assertThat(Arrays.copyOf(cat3, 10)).containsExactly(5, 13, 21, 29, 37, 45, 53, 61, 69, 77);
            long[] nulls = ids(idx.search(new SargableQuery.IsNull()));
            assertThat(nulls).hasSize(100);
            assertThat(Arrays.copyOf(nulls, 5)).containsExactly(49, 99, 149, 199, 249);
        }
    }

    static float[] row42() throws Exception {
        String[] parts = Files.readString(Path.of(GoldenIndexFilesTest.class.getResource("/golden/indexed/row42.vec.txt").toURI()))
                .trim().split(",");
        float[] v = new float[parts.length];
        for (int i = 0; i < v.length; i++) {
            v[i] = Float.parseFloat(parts[i]);
        }
        return v;
    }

    @Test
    void ivfPqSearchMatchesLanceResults() throws Exception {
        IndexCache cache = new IndexCache(64 << 20);
        try (LanceIndexFileSource src = LanceIndexFileSource.forSegment(store, "", IVF_PQ, allocator)) {
            LazyIvfIndex idx = LazyIvfIndex.open(src, cache, IVF_PQ.toString()).block();
            Neighbor[] got = idx.search(VectorQuery.of(row42(), 10).withNprobes(4), null).block();
            long[] expectedIds = {42, 4490, 3562, 3658, 3394, 2986, 50, 3826, 1130, 4354};
            float[] expectedDist = {15.025226f, 34.793865f, 36.962093f, 37.846573f, 38.263203f, 38.936207f, 39.097454f, 39.155766f,
                    39.628117f, 39.631332f};
            List<Long> ids = new ArrayList<>();
            for (Neighbor n : got) {
                ids.add((n.rowId() >>> 32) * 2500 + (n.rowId() & 0xFFFF_FFFFL));
            }
            assertThat(ids).containsExactly(Arrays.stream(expectedIds).boxed().toArray(Long[]::new));
            for (int i = 0; i < got.length; i++) {
                assertThat(got[i].distance()).as("distance %d", i).isCloseTo(expectedDist[i], org.assertj.core.data.Offset.offset(1e-3f));
            }
            // all four partitions were loaded lazily, each once; a second query hits the cache
            long misses = cache.misses();
            idx.search(VectorQuery.of(row42(), 10).withNprobes(4), null).block();
            assertThat(cache.misses()).isEqualTo(misses);
        }
    }

    @Test
    void rangedReadsAndGlobalBuffers() {
        try (LanceIndexFileSource src = LanceIndexFileSource.forSegment(store, "", IVF_PQ, allocator)) {
            assertThat(src.schemaMetadata("index.idx").block()).containsEntry("lance:ivf", "1");
            assertThat(src.globalBuffer("auxiliary.idx", 2).block().byteSize()).isEqualTo(131084);
            try (var all = src.readAll("index.idx").block()) {
                assertThat(all.getRowCount()).isZero();
                assertThat(all.getSchema().getFields().get(0).getName()).isEqualTo("__flat_marker");
            }
            var parts = src.readRange("auxiliary.idx", 1250, 2500).collectList().block();
            try {
                assertThat(parts.stream().mapToInt(r -> r.getRowCount()).sum()).isEqualTo(1250);
            } finally {
                parts.forEach(org.apache.arrow.vector.VectorSchemaRoot::close);
            }
            var rows = src.readRows("auxiliary.idx", new long[] {0, 7, 4999}).collectList().block();
            try {
                assertThat(rows.stream().mapToInt(r -> r.getRowCount()).sum()).isEqualTo(3);
            } finally {
                rows.forEach(org.apache.arrow.vector.VectorSchemaRoot::close);
            }
            assertThatThrownBy(() -> src.globalBuffer("auxiliary.idx", 9).block()).isInstanceOf(CorruptIndexException.class);
            assertThatThrownBy(() -> src.readAll("missing.lance").block()).isInstanceOf(CorruptIndexException.class);
        }
    }

    @Test
    void truncatedIndexFileIsATypedError(@TempDir Path dir) throws Exception {
        Path seg = dir.resolve("_indices/" + BTREE);
        Files.createDirectories(seg);
        byte[] lookup = getClass().getResourceAsStream("/golden/indexed/_indices/" + BTREE + "/page_lookup.lance").readAllBytes();
        Files.write(seg.resolve("page_lookup.lance"), Arrays.copyOfRange(lookup, 0, lookup.length - 100));
        try (ObjectStore local = ObjectStores.open(dir.toString());
             LanceIndexFileSource src = LanceIndexFileSource.forSegment(local, "", BTREE, allocator)) {
            assertThatThrownBy(() -> IndexReaders.openBTree(src, BTREE.toString()).block()).isInstanceOf(CorruptIndexException.class);
        }
    }
}
