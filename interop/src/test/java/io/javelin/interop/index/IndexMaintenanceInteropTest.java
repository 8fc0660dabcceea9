package io.javelin.interop.index;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.engine.Dataset;
import io.javelin.engine.index.IndexInfo;
import io.javelin.engine.index.IndexKind;
import io.javelin.engine.index.IndexParams;
import io.javelin.engine.maintenance.CompactionOptions;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.index.IndexDescription;
import org.lance.index.IndexType;
import org.lance.index.scalar.ScalarIndexParams;

/**
 * Index maintenance both ways with lance-core 7.0.0: indexes Javelin remapped during compaction and
 * merged by {@code optimizeIndexes} are listed by Lance with the right row counts and give Lance's
 * queries the same results as ours; a dataset Lance compacted (its own remap) is queried by us with
 * Lance's results.
 */
class IndexMaintenanceInteropTest {

    static final List<String> FILTERS = List.of("id = 1234", "id >= 100 AND id < 120", "cat = 'c3'", "cat IS NULL",
            "id IN (5, 2999, 1500, 3100) OR cat = 'c1'", "num < -400 AND id > 2000", "id BETWEEN 990 AND 1010 AND cat = 'c2'");

    @TempDir
    Path dir;
    final IndexInteropTest data = new IndexInteropTest();
    final BufferAllocator alloc = new RootAllocator();

    @AfterEach
    void closeAllocators() {
        data.closeAllocator();
        alloc.close();
    }

    String create(String name) {
        data.dir = dir.resolve(name);
        return data.create();
    }

    Map<String, Long> lanceRowsIndexed(String uri) {
        Map<String, Long> out = new TreeMap<>();
        try (org.lance.Dataset lance = org.lance.Dataset.open(uri, alloc)) {
            for (IndexDescription d : lance.describeIndices()) {
                out.put(d.getName() + ":" + d.getIndexType(), d.getRowsIndexed());
            }
            for (String name : List.of("id_idx", "cat_idx")) {
                assertThat(lance.getIndexStatistics(name)).as(name).isNotEmpty();
            }
        }
        return out;
    }

    @Test
    void javelinRemappedAndOptimizedIndexesAreUsedByLance() throws Exception {
        String uri = create("ours");
        try (Dataset v1 = Dataset.open(uri).block();
             Dataset v2 = v1.createIndex(List.of("id"), IndexKind.BTREE, IndexParams.defaults()).block();
             Dataset v3 = v2.createIndex(List.of("cat"), IndexKind.BITMAP, IndexParams.defaults()).block();
             Dataset v4 = v3.delete("id % 5 = 2").block();
             Dataset v5 = v4.compact(CompactionOptions.defaults().withTargetRowsPerFragment(10_000)).block().dataset()) {
            long live = v5.count().block();
            assertThat(v5.fragments()).hasSize(1);
            assertThat(v5.listIndexes()).allSatisfy(i -> assertThat(i.fragments().getCardinality()).isEqualTo(1));
            assertThat(lanceRowsIndexed(uri)).isEqualTo(Map.of("id_idx:BTree", live, "cat_idx:Bitmap", live));
            for (String f : FILTERS) {
                assertThat(data.lanceIds(uri, f)).as("after remap: " + f).isEqualTo(IndexInteropTest.ourIds(v5, f, alloc));
            }
            try (Dataset v6 = v5.append(data.rows(3000, 500, 500), IndexInteropTest.SCHEMA).block();
                 Dataset v7 = v6.optimizeIndexes(null).block()) {
                long all = v7.count().block();
                assertThat(v7.listIndexes()).hasSize(2).allSatisfy(i -> assertThat(i.fragments().getCardinality()).isEqualTo(2));
                assertThat(lanceRowsIndexed(uri)).isEqualTo(Map.of("id_idx:BTree", all, "cat_idx:Bitmap", all));
                for (String f : FILTERS) {
                    assertThat(data.lanceIds(uri, f)).as("after optimize: " + f).isEqualTo(IndexInteropTest.ourIds(v7, f, alloc));
                }
            }
        }
    }

    @Test
    void lanceCompactedIndexesAreUsedByJavelin() throws Exception {
        String uri = create("lance");
        try (org.lance.Dataset lance = org.lance.Dataset.open(uri, alloc)) {
            lance.createIndex(List.of("id"), IndexType.BTREE, Optional.of("id_idx"), org.lance.index.IndexParams.builder()
                    .setScalarIndexParams(ScalarIndexParams.create("btree")).build(), true);
            lance.createIndex(List.of("cat"), IndexType.BITMAP, Optional.of("cat_idx"), org.lance.index.IndexParams.builder()
                    .setScalarIndexParams(ScalarIndexParams.create("bitmap")).build(), true);
            lance.delete("id % 5 = 2");
            lance.compact();
        }
        try (Dataset ours = Dataset.open(uri).block()) {
            System.out.println("[maintenance-interop] after lance-core compaction: fragments " + ours.fragments().size() + ", indexes "
                    + ours.listIndexes().stream().map(IndexInfo::toString).toList());
            for (String f : FILTERS) {
                assertThat(IndexInteropTest.ourIds(ours, f, alloc)).as(f).isEqualTo(data.lanceIds(uri, f));
            }
        }
    }
    /** Our kNN through the index (or exact), as the {@code id} column in rank order. */
    List<Long> ourKnnIds(Dataset ds, float[] q, int nprobes, int ef) {
        List<Long> out = new java.util.ArrayList<>();
        var nq = ds.scanner().columns("id").nearest("vec", q, 10).nprobes(nprobes);
        if (ef > 0) {
            nq = nq.ef(ef);
        }
        for (org.apache.arrow.vector.VectorSchemaRoot b : nq.scan(alloc).collectList().block()) {
            try (b) {
                org.apache.arrow.vector.BigIntVector v = (org.apache.arrow.vector.BigIntVector) b.getVector("id");
                for (int i = 0; i < b.getRowCount(); i++) {
                    out.add(v.get(i));
                }
            }
        }
        return out;
    }

    static int overlap(List<Long> a, List<Long> b) {
        java.util.Set<Long> s = new java.util.HashSet<>(b);
        return (int) a.stream().filter(s::contains).count();
    }

    /**
     * Vector indexes through compaction both ways: our compaction remaps the segment and lance-core
     * counts every live row as indexed and returns our neighbours from it; lance-core's compaction
     * remaps its segment and we return its neighbours from it. Deleted rows never come back.
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"IVF_PQ", "IVF_HNSW_SQ"})
    void vectorIndexesRemappedByEitherCompactionAreUsedByTheOther(String type) throws Exception {
        int ef = type.contains("HNSW") ? 100 : 0;
        String ours = create("ours-" + type);
        String theirs = create("lance-" + type);
        try (org.lance.Dataset lance = org.lance.Dataset.open(theirs, alloc)) {
            lanceVectorIndex(lance, type);
            lance.delete("id % 5 = 2");
            lance.compact();
        }
        try (Dataset v1 = Dataset.open(ours).block();
             Dataset v2 = v1.createIndex(List.of("vec"), IndexKind.parse(type), IndexParams.defaults().withNumPartitions(4)
                     .withNumSubVectors(4).withMaxIters(20).withName("vec_idx")).block();
             Dataset v3 = v2.delete("id % 5 = 2").block();
             Dataset v4 = v3.compact(CompactionOptions.defaults().withTargetRowsPerFragment(10_000)).block().dataset();
             Dataset lanceCompacted = Dataset.open(theirs).block()) {
            long live = v4.count().block();
            assertThat(v4.fragments()).hasSize(1);
            assertThat(v4.listIndexes()).singleElement().satisfies(i -> {
                assertThat(i.fragments().toArray()).containsExactly((int) v4.fragments().getFirst().id());
                assertThat(i.uuid()).isNotEqualTo(v2.listIndexes().getFirst().uuid());
            });
            try (org.lance.Dataset lance = org.lance.Dataset.open(ours, alloc)) {
                assertThat(lance.describeIndices()).singleElement().satisfies(d -> {
                    assertThat(d.getIndexType()).isEqualTo(type);
                    assertThat(d.getRowsIndexed()).isEqualTo(live);
                });
                assertThat(lance.getIndexStatistics("vec_idx")).isNotEmpty();
            }
            System.out.println("[maintenance-interop] " + type + " after lance-core compaction: "
                    + lanceCompacted.listIndexes().stream().map(IndexInfo::toString).toList());
            assertVectorIndexCoversAll(lanceCompacted);
            int sameOurs = 0;
            int sameLance = 0;
            int total = 0;
            for (int qi = 0; qi < 10; qi++) {
                float[] q = IndexInteropTest.vector(80_000 + qi);
                List<Long> mineBefore = ourKnnIds(v3, q, 4, ef);
                List<Long> mine = ourKnnIds(v4, q, 4, ef);
                List<Long> lanceOnMine = data.lanceKnn(ours, q, 10, 4, 0, true, ef);
                List<Long> lanceOnLance = data.lanceKnn(theirs, q, 10, 4, 0, true, ef);
                List<Long> mineOnLance = ourKnnIds(lanceCompacted, q, 4, ef);
                for (List<Long> r : List.of(mine, lanceOnMine, mineOnLance)) {
                    assertThat(r).hasSize(10).allSatisfy(id -> assertThat(id % 5).isNotEqualTo(2));
                }
                if (ef == 0) { // same codes, same partitions: identical top-10 before and after our remap
                    assertThat(mine).as("query " + qi).isEqualTo(mineBefore);
                }
                sameOurs += overlap(lanceOnMine, mine);
                sameLance += overlap(mineOnLance, lanceOnLance);
                total += 10;
            }
            assertThat((double) sameOurs / total).as("lance-core on our remapped index vs ours").isGreaterThanOrEqualTo(0.95);
            assertThat((double) sameLance / total).as("ours on lance-core's remapped index vs lance-core").isGreaterThanOrEqualTo(0.95);
        }
    }

    static void lanceVectorIndex(org.lance.Dataset lance, String type) {
        var ivf = new org.lance.index.vector.IvfBuildParams.Builder().setNumPartitions(4).setMaxIters(20).build();
        var vp = type.equals("IVF_PQ")
                ? org.lance.index.vector.VectorIndexParams.withIvfPqParams(org.lance.index.DistanceType.L2, ivf,
                new org.lance.index.vector.PQBuildParams.Builder().setNumSubVectors(4).setNumBits(8).setMaxIters(20).build())
                : org.lance.index.vector.VectorIndexParams.withIvfHnswSqParams(org.lance.index.DistanceType.L2, ivf,
                new org.lance.index.vector.HnswBuildParams.Builder().setM(20).setEfConstruction(150).build(),
                new org.lance.index.vector.SQBuildParams.Builder().setNumBits((short) 8).build());
        lance.createIndex(List.of("vec"), IndexType.valueOf(type), Optional.of("vec_idx"),
                org.lance.index.IndexParams.builder().setVectorIndexParams(vp).build(), true);
    }

    /**
     * A segment lance-core built, remapped by our compaction: lance-core keeps using it (every live row
     * indexed) with the neighbours it found before the compaction (IVF_PQ: the same list; HNSW: graphs
     * rebuilt), and so do we.
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"IVF_PQ", "IVF_HNSW_SQ"})
    void lanceBuiltVectorIndexRemappedByOurCompaction(String type) throws Exception {
        int ef = type.contains("HNSW") ? 100 : 0;
        String uri = create("mixed-" + type);
        try (org.lance.Dataset lance = org.lance.Dataset.open(uri, alloc)) {
            lanceVectorIndex(lance, type);
            lance.delete("id % 5 = 2");
        }
        List<List<Long>> before = new java.util.ArrayList<>();
        for (int qi = 0; qi < 10; qi++) {
            before.add(data.lanceKnn(uri, IndexInteropTest.vector(85_000 + qi), 10, 4, 0, true, ef));
        }
        try (Dataset d = Dataset.open(uri).block();
             Dataset c = d.compact(CompactionOptions.defaults().withTargetRowsPerFragment(10_000)).block().dataset()) {
            long live = c.count().block();
            assertThat(c.fragments()).hasSize(1);
            assertVectorIndexCoversAll(c);
            assertThat(c.listIndexes().getFirst().uuid()).isNotEqualTo(d.listIndexes().getFirst().uuid());
            try (org.lance.Dataset lance = org.lance.Dataset.open(uri, alloc)) {
                assertThat(lance.describeIndices()).singleElement().satisfies(x -> assertThat(x.getRowsIndexed()).isEqualTo(live));
            }
            int sameLance = 0;
            int sameOurs = 0;
            for (int qi = 0; qi < 10; qi++) {
                float[] q = IndexInteropTest.vector(85_000 + qi);
                List<Long> after = data.lanceKnn(uri, q, 10, 4, 0, true, ef);
                if (ef == 0) {
                    assertThat(after).as("query " + qi).isEqualTo(before.get(qi));
                }
                sameLance += overlap(after, before.get(qi));
                sameOurs += overlap(ourKnnIds(c, q, 4, ef), after);
            }
            assertThat(sameLance / 100.0).as("lance-core before vs after our remap").isGreaterThanOrEqualTo(0.95);
            assertThat(sameOurs / 100.0).as("ours vs lance-core on the remapped segment").isGreaterThanOrEqualTo(0.95);
        }
    }

    /** Asserts every fragment of a dataset is covered by its vector index. */
    static void assertVectorIndexCoversAll(Dataset ds) {
        IndexInfo vec = ds.listIndexes().stream().filter(IndexInfo::isVector).findFirst().orElseThrow();
        for (var f : ds.fragments()) {
            assertThat(vec.fragments().contains((int) f.id())).as("fragment " + f.id() + " covered by " + vec).isTrue();
        }
    }
}
