package io.javelin.index;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.index.pb.BTreeIndexDetails;
import io.javelin.index.pb.VectorIndexDetails;
import io.javelin.index.rowid.RowAddrTreeMap;
import io.javelin.index.rowid.SearchResult;
import io.javelin.index.scalar.BTreeIndex;
import io.javelin.index.scalar.BitmapIndex;
import io.javelin.index.scalar.SargableQuery;
import io.javelin.index.vector.DistanceType;
import io.javelin.index.vector.IvfIndex;
import io.javelin.index.vector.Neighbor;
import io.javelin.index.vector.VectorQuery;
import io.javelin.index.vector.VectorSearch;
import io.javelin.objectstore.memory.OffHeap;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

class IndexPlumbingTest {

    BufferAllocator allocator;
    Arena arena;

    @BeforeEach
    void open() {
        allocator = new RootAllocator();
        arena = OffHeap.newArena("index-plumbing-test");
    }

    @AfterEach
    void close() {
        arena.close();
        allocator.close();
    }

    /** An in-memory stand-in for the reader adapter: hands out slices (consumers close them). */
    final class FakeSource implements IndexFileSource {
        final Map<String, VectorSchemaRoot> files = new HashMap<>();
        final Map<String, Map<Integer, byte[]>> buffers = new HashMap<>();

        void put(String name, VectorSchemaRoot root) {
            files.put(name, root);
        }

        void buffer(String name, int idx, byte[] bytes) {
            buffers.computeIfAbsent(name, k -> new HashMap<>()).put(idx, bytes);
        }

        @Override
        public Mono<VectorSchemaRoot> readAll(String file) {
            return Mono.fromCallable(() -> files.get(file).slice(0));
        }

        @Override
        public Flux<VectorSchemaRoot> readRows(String file, long[] rows) {
            return Flux.error(new UnsupportedOperationException());
        }

        @Override
        public Flux<VectorSchemaRoot> readRange(String file, long start, long end) {
            VectorSchemaRoot r = files.get(file);
            int to = (int) Math.min(end, r.getRowCount());
            return Flux.just(r.slice((int) start, to - (int) start));
        }

        @Override
        public Mono<Map<String, String>> schemaMetadata(String file) {
            return Mono.fromCallable(() -> files.get(file).getSchema().getCustomMetadata());
        }

        @Override
        public Mono<MemorySegment> globalBuffer(String file, int index) {
            byte[] b = buffers.getOrDefault(file, Map.of()).get(index);
            if (b == null) {
                return Mono.error(new CorruptIndexException(file, "no global buffer " + index));
            }
            MemorySegment s = arena.allocate(b.length);
            s.copyFrom(MemorySegment.ofArray(b));
            return Mono.just(s);
        }

        void closeAll() {
            files.values().forEach(VectorSchemaRoot::close);
        }
    }

    @Test
    void typeUrlsAndDispatchMatchLance7() {
        assertThat(IndexType.pack(BTreeIndexDetails.getDefaultInstance()).getTypeUrl()).isEqualTo("/lance.table.BTreeIndexDetails");
        assertThat(IndexType.pack(VectorIndexDetails.getDefaultInstance()).getTypeUrl()).isEqualTo("/lance.index.pb.VectorIndexDetails");
        assertThat(IndexType.fromTypeUrl("type.googleapis.com/lance.table.BitmapIndexDetails")).isEqualTo(IndexType.BITMAP);
        assertThat(IndexType.fromTypeUrl("/lance.index.pb.BloomFilterIndexDetails")).isEqualTo(IndexType.BLOOM_FILTER);
        assertThat(IndexType.fromTypeUrl("/lance.table.VectorIndexDetails")).isEqualTo(IndexType.VECTOR);
        assertThat(IndexType.fromTypeUrl("/x.y.InvertedIndexDetails")).isEqualTo(IndexType.INVERTED);
        assertThat(IndexType.fromTypeUrl("/lance.index.pb.FMIndexDetails")).isNull();
        for (IndexType t : IndexType.values()) {
            assertThat(IndexType.fromTypeUrl(t.typeUrl())).isEqualTo(t);
            assertThat(IndexType.fromTypeUrl(t.defaultDetails().getTypeUrl())).isEqualTo(t);
        }
        assertThat(IndexType.VECTOR.canRead(1)).isTrue();
        assertThat(IndexType.VECTOR.canRead(2)).isFalse(); // IVF_RQ v2: ignored, query scans
        assertThat(IndexType.INVERTED.canRead(1)).isTrue();
        assertThat(IndexType.inferFromFiles(List.of("bitmap_page_lookup.lance"), false)).isEqualTo(IndexType.BITMAP);
        assertThat(IndexType.inferFromFiles(List.of("page_lookup.lance"), false)).isEqualTo(IndexType.BTREE);
        UUID u = UUID.fromString("682a5273-041a-44f2-8646-9af174cdae9b");
        assertThat(IndexFiles.path(u, "page_data.lance")).isEqualTo("_indices/682a5273-041a-44f2-8646-9af174cdae9b/page_data.lance");
        assertThat(IndexFiles.uuidFromBytes(IndexFiles.uuidToBytes(u), "t")).isEqualTo(u);
        assertThat(IndexFiles.partFile(3, "page_data.lance")).isEqualTo("part_12884901888_page_data.lance");
    }

    @Test
    void btreeAndBitmapOpenAndSearchThroughTheLoaderInterface() {
        int n = 10_000;
        FakeSource src = new FakeSource();
        try (BigIntVector ids = new BigIntVector("id", allocator); VarCharVector cat = new VarCharVector("category", allocator)) {
            long[] rows = new long[n];
            ids.allocateNew(n);
            cat.allocateNew(n);
            for (int i = 0; i < n; i++) {
                rows[i] = i < 5000 ? i : RowAddrTreeMap.address(1, i - 5000);
                ids.set(i, n - 1 - i);
                if (i % 50 == 49) {
                    cat.setNull(i);
                } else {
                    cat.setSafe(i, ("cat_" + (i % 8)).getBytes());
                }
            }
            ids.setValueCount(n);
            cat.setValueCount(n);
            BTreeIndex.Built built = BTreeIndex.build(ids, rows, allocator);
            src.put("page_data.lance", built.pageData());
            src.put("page_lookup.lance", built.pageLookup());
            src.put("bitmap_page_lookup.lance", BitmapIndex.build(cat, rows).toBatch(allocator));
            try {
                BTreeIndex bt = IndexReaders.openBTree(src, "682a").block(Duration.ofSeconds(10));
                assertThat(bt.pages()).hasSize(3);
                StepVerifier.create(IndexReaders.searchBTree(bt, src, new SargableQuery.Range(100L, true, 120L, false), "682a"))
                        .assertNext(r -> {
                            assertThat(r).isInstanceOf(SearchResult.Exact.class);
                            assertThat(r.rows().cardinality()).isEqualTo(20);
                        }).verifyComplete();
                StepVerifier.create(IndexReaders.searchBTree(bt, src, new SargableQuery.Equals(1234), "682a"))
                        .assertNext(r -> assertThat(r.rows().toArray()).containsExactly(RowAddrTreeMap.address(1, n - 1 - 1234 - 5000)))
                        .verifyComplete();
                IndexCache pages = new IndexCache(10 << 20);
                for (int rep = 0; rep < 2; rep++) {
                    StepVerifier.create(IndexReaders.searchBTree(bt, src, new SargableQuery.IsIn(List.of(5L, 9000L)), "682a", pages))
                            .assertNext(r -> assertThat(r.rows().cardinality()).isEqualTo(2)).verifyComplete();
                }
                assertThat(pages.hits()).isEqualTo(2);
                BitmapIndex bm = IndexReaders.openBitmap(src, "6936").block(Duration.ofSeconds(10));
                assertThat(bm.search(new SargableQuery.Equals("cat_3")).rows().cardinality()).isEqualTo(1200);
                assertThat(bm.search(new SargableQuery.IsNull()).rows().cardinality()).isEqualTo(200);
                // a corrupt lookup surfaces as an error signal, not as wrong rows
                FakeSource broken = new FakeSource();
                broken.files.put("page_lookup.lance", src.files.get("bitmap_page_lookup.lance"));
                StepVerifier.create(IndexReaders.openBTree(broken, "x")).expectError(CorruptIndexException.class).verify();
            } finally {
                src.closeAll();
            }
        }
    }

    @Test
    void ivfOpensFromGlobalBuffersAndSearchesWithRefine() {
        int n = 3000, dim = 32;
        Random rnd = new Random(1);
        float[] data = new float[n * dim];
        long[] rows = new long[n];
        for (int i = 0; i < n; i++) {
            rows[i] = i;
            int c = i % 5;
            for (int d = 0; d < dim; d++) {
                data[i * dim + d] = c * 3 + (float) rnd.nextGaussian();
            }
        }
        IvfIndex built = IvfIndex.build(data, rows, n, dim, IvfIndex.BuildParams.ivfPq(4, 8, DistanceType.L2).withMaxIters(5).withSampleRate(8));
        FakeSource src = new FakeSource();
        src.put("index.idx", IvfIndex.indexFileBatch(allocator, built.indexFileMetadata()));
        src.put("auxiliary.idx", built.auxiliaryBatch(allocator));
        src.buffer("index.idx", 1, built.indexFileIvf().toByteArray());
        src.buffer("auxiliary.idx", 1, built.auxiliaryFileIvf().toByteArray());
        src.buffer("auxiliary.idx", 2, built.codebookTensor().toByteArray());
        try {
            IvfIndex idx = IndexReaders.openIvf(src, "ddb5").block(Duration.ofSeconds(10));
            float[] q = java.util.Arrays.copyOfRange(data, 42 * dim, 43 * dim);
            AtomicInteger takes = new AtomicInteger();
            StepVerifier.create(VectorSearch.search(idx, VectorQuery.of(q, 10).withNprobes(4).withRefineFactor(5), ids -> {
                takes.incrementAndGet();
                float[] out = new float[ids.length * dim];
                for (int i = 0; i < ids.length; i++) {
                    System.arraycopy(data, (int) ids[i] * dim, out, i * dim, dim);
                }
                return Mono.just(out);
            })).assertNext(res -> {
                assertThat(res).hasSize(10);
                assertThat(res[0]).isEqualTo(new Neighbor(42, 0f));
            }).verifyComplete();
            assertThat(takes).hasValue(1);

            // lazily loaded partitions give the same answers as the eagerly loaded index
            IndexCache cache = new IndexCache(1 << 20);
            LazyIvfIndex lazy = LazyIvfIndex.open(src, cache, "ddb5").block(Duration.ofSeconds(10));
            for (int i = 0; i < 8; i++) {
                float[] qi = java.util.Arrays.copyOfRange(data, (i * 311) * dim, (i * 311 + 1) * dim);
                RowFilter rare = row -> row % 41 == 0;
                for (VectorQuery vq : List.of(VectorQuery.of(qi, 10).withNprobes(1), VectorQuery.of(qi, 10).withNprobes(1, 0).withPrefilter(rare),
                        VectorQuery.of(qi, 5).withNprobes(2))) {
                    assertThat(lazy.search(vq, null).block(Duration.ofSeconds(10))).containsExactly(idx.search(vq, null));
                }
            }
            assertThat(cache.size()).isBetween(1, 4);
            assertThat(cache.hits()).isPositive();
            // a truncated IVF buffer → CorruptIndexException
            src.buffer("auxiliary.idx", 1, new byte[] {0x12, 0x7f});
            StepVerifier.create(IndexReaders.openIvf(src, "ddb5")).expectError(CorruptIndexException.class).verify();
        } finally {
            src.closeAll();
        }
    }

    @Test
    void cacheKeepsWithinBudgetAndSharesLoads() {
        IndexCache cache = new IndexCache(100);
        AtomicInteger loads = new AtomicInteger();
        for (int i = 0; i < 3; i++) {
            Integer v = cache.get("a", () -> Mono.fromCallable(() -> {
                loads.incrementAndGet();
                return 7;
            }), x -> 40L).block();
            assertThat(v).isEqualTo(7);
        }
        assertThat(loads).hasValue(1);
        cache.get("b", () -> Mono.just(8), x -> 40L).block();
        cache.get("c", () -> Mono.just(9), x -> 40L).block(); // evicts the least recently used ("a")
        assertThat(cache.usedBytes()).isLessThanOrEqualTo(100);
        assertThat(cache.size()).isEqualTo(2);
        cache.get("a", () -> Mono.fromCallable(() -> {
            loads.incrementAndGet();
            return 7;
        }), x -> 40L).block();
        assertThat(loads).hasValue(2);
        cache.get("huge", () -> Mono.just(1), x -> 1000L).block();
        assertThat(cache.size()).isEqualTo(2);
        cache.invalidatePrefix("a");
        assertThat(cache.size()).isEqualTo(1);
        StepVerifier.create(cache.get("err", () -> Mono.error(new CorruptIndexException("r", "bad")), x -> 1L))
                .expectError(CorruptIndexException.class).verify();
        assertThat(cache.size()).isEqualTo(1);
    }
}
