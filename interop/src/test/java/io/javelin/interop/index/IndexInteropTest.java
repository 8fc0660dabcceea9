package io.javelin.interop.index;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.engine.Dataset;
import io.javelin.engine.WriteMode;
import io.javelin.engine.WriteParams;
import io.javelin.engine.index.IndexInfo;
import io.javelin.engine.index.IndexKind;
import io.javelin.engine.index.IndexParams;
import io.javelin.index.vector.Neighbor;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.index.DistanceType;
import org.lance.index.IndexDescription;
import org.lance.index.IndexType;
import org.lance.index.scalar.ScalarIndexParams;
import org.lance.index.vector.IvfBuildParams;
import org.lance.index.vector.PQBuildParams;
import org.lance.index.vector.VectorIndexParams;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.Query;
import org.lance.ipc.ScanOptions;
import reactor.core.publisher.Flux;

/**
 * Indexes both ways with lance-core 7.0.0: IVF_PQ / BTREE / BITMAP built by Lance are opened and
 * queried by Javelin (same row sets; same top-k as Lance for the same nprobes), and the same index
 * types built by Javelin are listed by Lance's {@code describeIndices}, opened by its statistics and
 * used by its queries with correct results.
 */
class IndexInteropTest {

    static final int DIM = 16;
    static final int ROWS = 3000;
    static final Schema SCHEMA = new Schema(List.of(
            new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
            new Field("cat", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
            new Field("num", FieldType.nullable(new ArrowType.Int(32, true)), null),
            new Field("vec", FieldType.nullable(new ArrowType.FixedSizeList(DIM)),
                    List.of(new Field("item", FieldType.notNullable(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)), null)))));
    static final List<String> FILTERS = List.of("id = 1234", "id >= 100 AND id < 120", "cat = 'c3'", "cat IS NULL",
            "id IN (5, 2999, 1500) OR cat = 'c1'", "num < -400 AND id > 2000", "id BETWEEN 990 AND 1010 AND cat = 'c2'");

    @TempDir
    Path dir;
    final BufferAllocator alloc = new RootAllocator();

    @AfterEach
    void closeAllocator() {
        alloc.close();
    }

    static float[] vector(long id) {
        Random c = new Random(id % 8);
        Random r = new Random(id * 31 + 7);
        float[] v = new float[DIM];
        for (int i = 0; i < DIM; i++) {
            v[i] = (float) (c.nextGaussian() * 10 + r.nextGaussian());
        }
        return v;
    }

    Flux<VectorSchemaRoot> rows(long from, int count, int batch) {
        return Flux.range(0, (count + batch - 1) / batch).map(b -> {
            int n = Math.min(batch, count - b * batch);
            VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, alloc);
            root.allocateNew();
            BigIntVector id = (BigIntVector) root.getVector("id");
            VarCharVector cat = (VarCharVector) root.getVector("cat");
            IntVector num = (IntVector) root.getVector("num");
            FixedSizeListVector vec = (FixedSizeListVector) root.getVector("vec");
            Float4Vector items = (Float4Vector) vec.getDataVector();
            for (int i = 0; i < n; i++) {
                long r = from + (long) b * batch + i;
                id.setSafe(i, r);
                if (r % 17 == 0) {
                    cat.setNull(i);
                } else {
                    cat.setSafe(i, ("c" + (r % 6)).getBytes(StandardCharsets.UTF_8));
                }
                if (r % 13 == 0) {
                    num.setNull(i);
                } else {
                    num.setSafe(i, (int) ((r * 7919) % 1000) - 500);
                }
                vec.setNotNull(i);
                float[] v = vector(r);
                for (int j = 0; j < DIM; j++) {
                    items.setSafe(i * DIM + j, v[j]);
                }
            }
            items.setValueCount(n * DIM);
            root.setRowCount(n);
            return root;
        });
    }

    String create() {
        String uri = dir.resolve("t.lance").toString();
        Dataset.write(uri, rows(0, ROWS, 500), SCHEMA, WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(1000)).block().close();
        return uri;
    }

    Set<Long> lanceIds(String uri, String filter) throws Exception {
        Set<Long> out = new TreeSet<>();
        try (org.lance.Dataset ds = org.lance.Dataset.open(uri, alloc);
             LanceScanner s = ds.newScan(new ScanOptions.Builder().columns(List.of("id")).filter(filter).build());
             ArrowReader r = s.scanBatches()) {
            while (r.loadNextBatch()) {
                BigIntVector v = (BigIntVector) r.getVectorSchemaRoot().getVector("id");
                for (int i = 0; i < r.getVectorSchemaRoot().getRowCount(); i++) {
                    out.add(v.get(i));
                }
            }
        }
        return out;
    }

    /** Lance's kNN: ids in rank order. */
    List<Long> lanceKnn(String uri, float[] q, int k, int nprobes, int refine, boolean useIndex) throws Exception {
        return lanceKnn(uri, q, k, nprobes, refine, useIndex, 0);
    }

    List<Long> lanceKnn(String uri, float[] q, int k, int nprobes, int refine, boolean useIndex, int ef) throws Exception {
        List<Long> out = new ArrayList<>();
        Query.Builder qb = new Query.Builder().setColumn("vec").setKey(q).setK(k).setNprobes(nprobes).setUseIndex(useIndex);
        if (ef > 0) {
            qb.setEf(ef);
        }
        if (refine > 0) {
            qb.setRefineFactor(refine);
        }
        try (org.lance.Dataset ds = org.lance.Dataset.open(uri, alloc);
             LanceScanner s = ds.newScan(new ScanOptions.Builder().columns(List.of("id")).nearest(qb.build()).build());
             ArrowReader r = s.scanBatches()) {
            while (r.loadNextBatch()) {
                BigIntVector v = (BigIntVector) r.getVectorSchemaRoot().getVector("id");
                for (int i = 0; i < r.getVectorSchemaRoot().getRowCount(); i++) {
                    out.add(v.get(i));
                }
            }
        }
        return out;
    }

    static Set<Long> ourIds(Dataset ds, String filter, BufferAllocator alloc) {
        Set<Long> out = new TreeSet<>();
        for (VectorSchemaRoot b : ds.scanner().columns("id").filter(filter).scan(alloc).collectList().block()) {
            try (b) {
                BigIntVector v = (BigIntVector) b.getVector("id");
                for (int i = 0; i < b.getRowCount(); i++) {
                    out.add(v.get(i));
                }
            }
        }
        return out;
    }

    static List<Long> ourKnn(Dataset ds, float[] q, int k, int nprobes, int refine) {
        List<Long> out = new ArrayList<>();
        for (Neighbor n : ds.scanner().nearest("vec", q, k).nprobes(nprobes).refineFactor(refine).neighbors().block()) {
            out.add((n.rowId() >>> 32) * 1000 + (n.rowId() & 0xFFFF_FFFFL)); // 1000 rows per fragment
        }
        return out;
    }

    @Test
    void lanceBuiltIndexesAreQueriedByJavelin() throws Exception {
        String uri = create();
        try (org.lance.Dataset lance = org.lance.Dataset.open(uri, alloc)) {
            VectorIndexParams vp = VectorIndexParams.withIvfPqParams(DistanceType.L2,
                    new IvfBuildParams.Builder().setNumPartitions(4).setMaxIters(20).build(),
                    new PQBuildParams.Builder().setNumSubVectors(4).setNumBits(8).setMaxIters(20).build());
            lance.createIndex(List.of("vec"), IndexType.IVF_PQ, Optional.of("vec_idx"),
                    org.lance.index.IndexParams.builder().setVectorIndexParams(vp).build(), true);
            lance.createIndex(List.of("id"), IndexType.BTREE, Optional.of("id_idx"),
                    org.lance.index.IndexParams.builder().setScalarIndexParams(ScalarIndexParams.create("btree")).build(), true);
            lance.createIndex(List.of("cat"), IndexType.BITMAP, Optional.of("cat_idx"),
                    org.lance.index.IndexParams.builder().setScalarIndexParams(ScalarIndexParams.create("bitmap")).build(), true);
        }
        try (Dataset ours = Dataset.open(uri).block()) {
            assertThat(ours.listIndexes()).extracting(IndexInfo::name, IndexInfo::indexType)
                    .containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple("vec_idx", "IVF_PQ"),
                            org.assertj.core.groups.Tuple.tuple("id_idx", "BTree"), org.assertj.core.groups.Tuple.tuple("cat_idx", "Bitmap"));
            for (String f : FILTERS) {
                assertThat(ourIds(ours, f, alloc)).as(f).isEqualTo(lanceIds(uri, f)).isNotEmpty();
            }
            // same index, same nprobes, no refine: the same PQ top-k as Lance
            int same = 0;
            int total = 0;
            for (int qi = 0; qi < 10; qi++) {
                float[] q = vector(50_000 + qi);
                List<Long> theirs = lanceKnn(uri, q, 10, 2, 0, true);
                List<Long> mine = ourKnn(ours, q, 10, 2, 0);
                Set<Long> t = new HashSet<>(theirs);
                for (long id : mine) {
                    same += t.contains(id) ? 1 : 0;
                }
                total += theirs.size();
            }
            assertThat((double) same / total).as("top-10 overlap with lance-core").isGreaterThanOrEqualTo(0.95);
        }
    }

    @Test
    void javelinBuiltIndexesAreUsedByLance() throws Exception {
        String uri = create();
        try (Dataset v1 = Dataset.open(uri).block();
             Dataset v2 = v1.createIndex(List.of("vec"), IndexKind.IVF_PQ,
                     IndexParams.defaults().withNumPartitions(4).withNumSubVectors(4).withMaxIters(20)).block();
             Dataset v3 = v2.createIndex(List.of("id"), IndexKind.BTREE, IndexParams.defaults()).block();
             Dataset v4 = v3.createIndex(List.of("cat"), IndexKind.BITMAP, IndexParams.defaults()).block()) {
            assertThat(v4.listIndexes()).hasSize(3);
            try (org.lance.Dataset lance = org.lance.Dataset.open(uri, alloc)) {
                List<IndexDescription> desc = lance.describeIndices();
                Map<String, String> types = new java.util.TreeMap<>();
                for (IndexDescription d : desc) {
                    types.put(d.getName(), d.getIndexType());
                    assertThat(d.getRowsIndexed()).as(d.getName()).isEqualTo(ROWS);
                }
                assertThat(types).containsEntry("vec_idx", "IVF_PQ").containsEntry("id_idx", "BTree").containsEntry("cat_idx", "Bitmap");
                // statistics open the index files
                for (String name : List.of("vec_idx", "id_idx", "cat_idx")) {
                    assertThat(lance.getIndexStatistics(name)).as(name).isNotEmpty();
                }
            }
            for (String f : FILTERS) {
                assertThat(lanceIds(uri, f)).as(f).isEqualTo(ourIds(v4, f, alloc)).isNotEmpty();
            }
            int same = 0;
            int hitsVsExact = 0;
            int total = 0;
            for (int qi = 0; qi < 10; qi++) {
                float[] q = vector(70_000 + qi);
                List<Long> theirs = lanceKnn(uri, q, 10, 2, 0, true);
                List<Long> mine = ourKnn(v4, q, 10, 2, 0);
                Set<Long> exact = new HashSet<>(lanceKnn(uri, q, 10, 1, 0, false));
                Set<Long> t = new HashSet<>(theirs);
                for (long id : mine) {
                    same += t.contains(id) ? 1 : 0;
                }
                for (long id : lanceKnn(uri, q, 10, 4, 10, true)) {
                    hitsVsExact += exact.contains(id) ? 1 : 0;
                }
                total += 10;
            }
            assertThat((double) same / total).as("lance-core's top-10 on our index vs ours").isGreaterThanOrEqualTo(0.95);
            assertThat((double) hitsVsExact / total).as("lance-core recall@10 on our index, nprobes 4, refine 10")
                    .isGreaterThanOrEqualTo(0.95);
        }
    }

    /** Recall@10 of {@code got} against {@code exact}, over parallel lists of results. */
    static double recall(List<List<Long>> got, List<Set<Long>> exact) {
        double hits = 0;
        double total = 0;
        for (int i = 0; i < got.size(); i++) {
            for (long id : got.get(i)) {
                hits += exact.get(i).contains(id) ? 1 : 0;
            }
            total += 10;
        }
        return hits / total;
    }

    /** IVF_FLAT and IVF_HNSW_SQ built by Lance are searched by us, and built by us are searched by Lance. */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"IVF_FLAT", "IVF_HNSW_SQ"})
    void otherVectorIndexTypesBothWays(String type) throws Exception {
        String lanceBuilt = dir.resolve("lance.lance").toString();
        String oursBuilt = dir.resolve("ours.lance").toString();
        for (String uri : List.of(lanceBuilt, oursBuilt)) {
            Dataset.write(uri, rows(0, ROWS, 500), SCHEMA, WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(1000)).block().close();
        }
        IvfBuildParams ivf = new IvfBuildParams.Builder().setNumPartitions(4).setMaxIters(20).build();
        VectorIndexParams vp = type.equals("IVF_FLAT") ? VectorIndexParams.ivfFlat(4, DistanceType.L2)
                : VectorIndexParams.withIvfHnswSqParams(DistanceType.L2, ivf,
                new org.lance.index.vector.HnswBuildParams.Builder().setM(20).setEfConstruction(150).build(),
                new org.lance.index.vector.SQBuildParams.Builder().setNumBits((short) 8).build());
        try (org.lance.Dataset lance = org.lance.Dataset.open(lanceBuilt, alloc)) {
            lance.createIndex(List.of("vec"), IndexType.valueOf(type), Optional.of("vec_idx"),
                    org.lance.index.IndexParams.builder().setVectorIndexParams(vp).build(), true);
        }
        try (Dataset v1 = Dataset.open(oursBuilt).block();
             Dataset v2 = v1.createIndex(List.of("vec"), IndexKind.parse(type), IndexParams.defaults().withNumPartitions(4)
                     .withMaxIters(20).withName("vec_idx")).block();
             Dataset lanceIndexed = Dataset.open(lanceBuilt).block()) {
            assertThat(lanceIndexed.listIndexes()).singleElement().extracting(IndexInfo::indexType).isEqualTo(type);
            try (org.lance.Dataset lance = org.lance.Dataset.open(oursBuilt, alloc)) {
                assertThat(lance.describeIndices()).singleElement().satisfies(d -> {
                    assertThat(d.getIndexType()).isEqualTo(type);
                    assertThat(d.getRowsIndexed()).isEqualTo(ROWS);
                });
                assertThat(lance.getIndexStatistics("vec_idx")).isNotEmpty();
            }
            List<Set<Long>> exact = new ArrayList<>();
            List<List<Long>> oursOnLance = new ArrayList<>();
            List<List<Long>> lanceOnOurs = new ArrayList<>();
            List<List<Long>> lanceOnLance = new ArrayList<>();
            for (int qi = 0; qi < 10; qi++) {
                float[] q = vector(90_000 + qi);
                exact.add(new HashSet<>(lanceKnn(lanceBuilt, q, 10, 1, 0, false)));
                List<Long> mine = new ArrayList<>();
                for (Neighbor n : lanceIndexed.scanner().nearest("vec", q, 10).nprobes(4).ef(100).neighbors().block()) {
                    mine.add((n.rowId() >>> 32) * 1000 + (n.rowId() & 0xFFFF_FFFFL));
                }
                oursOnLance.add(mine);
                lanceOnOurs.add(lanceKnn(oursBuilt, q, 10, 4, 0, true, 100));
                lanceOnLance.add(lanceKnn(lanceBuilt, q, 10, 4, 0, true, 100));
            }
            assertThat(recall(oursOnLance, exact)).as("javelin on lance-built " + type).isGreaterThanOrEqualTo(0.9);
            double theirs = recall(lanceOnLance, exact);
            double onOurs = recall(lanceOnOurs, exact);
            System.out.printf("[index-interop] %s recall@10 (ef 100, all partitions): lance-core on its own index %.2f, on ours %.2f%n",
                    type, theirs, onOurs);
            // lance-core searching our graph/quantizer does (about) as well as on its own
            assertThat(onOurs).as("lance-core on javelin-built " + type).isGreaterThanOrEqualTo(Math.min(0.9, theirs - 0.05));
        }
    }
}
