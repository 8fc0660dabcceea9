package io.javelin.interop.index;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.engine.Dataset;
import io.javelin.engine.WriteMode;
import io.javelin.engine.WriteParams;
import io.javelin.engine.index.IndexKind;
import io.javelin.engine.index.IndexParams;
import io.javelin.index.vector.Neighbor;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;
import org.lance.index.DistanceType;
import org.lance.index.IndexType;
import org.lance.index.vector.HnswBuildParams;
import org.lance.index.vector.IvfBuildParams;
import org.lance.index.vector.PQBuildParams;
import org.lance.index.vector.SQBuildParams;
import org.lance.index.vector.VectorIndexParams;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.Query;
import org.lance.ipc.ScanOptions;
import reactor.core.publisher.Flux;

/**
 * IVF_PQ / IVF_SQ / IVF_HNSW_SQ build time, recall@10, warm query latency and QPS, Javelin vs lance-core
 * 7.0.0, on the same synthetic SIFT-like data (clustered, 128-d), plus exact flat search. Heavy: runs only
 * with {@code -Djavelin.index.bench=true} ({@code -Djavelin.index.bench.rows=N}, default 100 000;
 * {@code -Djavelin.index.bench.iters=N} k-means iterations, default 50; {@code -Djavelin.index.bench.types}).
 * Numbers go to docs/benchmarks.md "Indexes" (earlier runs: docs/bench/history.md "Indexes").
 */
@EnabledIfSystemProperty(named = "javelin.index.bench", matches = "true")
class IndexBenchmarkInteropTest {

    static final int DIM = 128;
    static final int PARTITIONS = 256;
    static final int SUB_VECTORS = 16;
    static final int QUERIES = 100;
    static final Schema SCHEMA = new Schema(List.of(
            new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
            new Field("vec", FieldType.nullable(new ArrowType.FixedSizeList(DIM)),
                    List.of(new Field("item", FieldType.notNullable(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)), null)))));

    @TempDir
    Path dir;

    static float[] vector(long id) {
        Random c = new Random(id % 1000);
        Random r = new Random(id * 7919 + 1);
        float[] v = new float[DIM];
        for (int i = 0; i < DIM; i++) {
            v[i] = (float) (c.nextGaussian() * 8 + r.nextGaussian() * 3);
        }
        return v;
    }

    static Flux<VectorSchemaRoot> rows(BufferAllocator alloc, int count, int batch) {
        return Flux.range(0, (count + batch - 1) / batch).map(b -> {
            int n = Math.min(batch, count - b * batch);
            VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, alloc);
            root.allocateNew();
            BigIntVector id = (BigIntVector) root.getVector("id");
            FixedSizeListVector vec = (FixedSizeListVector) root.getVector("vec");
            Float4Vector items = (Float4Vector) vec.getDataVector();
            for (int i = 0; i < n; i++) {
                long r = (long) b * batch + i;
                id.setSafe(i, r);
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

    static List<Long> lanceQuery(org.lance.Dataset ds, float[] q, int nprobes, int refine, int ef, boolean useIndex, BufferAllocator alloc)
            throws Exception {
        List<Long> out = new ArrayList<>();
        Query.Builder qb = new Query.Builder().setColumn("vec").setKey(q).setK(10).setNprobes(nprobes).setUseIndex(useIndex);
        if (refine > 0) {
            qb.setRefineFactor(refine);
        }
        if (ef > 0) {
            qb.setEf(ef);
        }
        try (LanceScanner s = ds.newScan(new ScanOptions.Builder().columns(List.of("id", "_distance")).nearest(qb.build()).build());
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

    static List<Long> ourQuery(Dataset ds, float[] q, int nprobes, int refine, int ef, boolean useIndex, BufferAllocator alloc) {
        List<Long> out = new ArrayList<>();
        var nq = ds.scanner().columns("id").nearest("vec", q, 10).refineFactor(refine).ef(ef).useIndex(useIndex);
        nq = nprobes > 0 ? nq.nprobes(nprobes) : nq;
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

    interface Q {
        List<Long> run(float[] q) throws Exception;
    }

    /** recall@10 against {@code truth}, warm p50 / p90 latency in ms and single-threaded QPS (1 / mean latency). */
    static String measure(String label, float[][] qs, List<Set<Long>> truth, Q query) throws Exception {
        for (int w = 0; w < 20; w++) {
            query.run(qs[w % qs.length]);
        }
        double hits = 0;
        long[] ns = new long[qs.length];
        long total = 0;
        for (int i = 0; i < qs.length; i++) {
            long t0 = System.nanoTime();
            List<Long> got = query.run(qs[i]);
            ns[i] = System.nanoTime() - t0;
            total += ns[i];
            for (long id : got) {
                hits += truth.get(i).contains(id) ? 1 : 0;
            }
        }
        Arrays.sort(ns);
        String line = String.format("%-58s recall@10 %.3f  p50 %.2f ms  p90 %.2f ms  QPS %.0f", label, hits / (10.0 * qs.length),
                ns[qs.length / 2] / 1e6, ns[(int) (qs.length * 0.9)] / 1e6, qs.length / (total / 1e9));
        System.out.println("[index-bench] " + line);
        return line;
    }

    static int rows() {
        return Integer.getInteger("javelin.index.bench.rows", 100_000);
    }

    /** k-means (IVF and PQ) iterations for both engines; 50 is both engines' default. */
    static int iters() {
        return Integer.getInteger("javelin.index.bench.iters", 50);
    }

    static float[][] queries(int n) {
        Random r = new Random(99);
        float[][] qs = new float[QUERIES][];
        for (int i = 0; i < QUERIES; i++) {
            float[] v = vector(r.nextInt(n));
            for (int j = 0; j < DIM; j++) {
                v[j] += (float) r.nextGaussian() * 2;
            }
            qs[i] = v;
        }
        return qs;
    }

    static VectorIndexParams lanceParams(String type, int iters) {
        IvfBuildParams ivf = new IvfBuildParams.Builder().setNumPartitions(PARTITIONS).setMaxIters(iters).build();
        return switch (type) {
            case "IVF_PQ" -> VectorIndexParams.withIvfPqParams(DistanceType.L2, ivf,
                    new PQBuildParams.Builder().setNumSubVectors(SUB_VECTORS).setNumBits(8).setMaxIters(iters).build());
            case "IVF_SQ" -> new VectorIndexParams.Builder(ivf).setDistanceType(DistanceType.L2)
                    .setSqParams(new SQBuildParams.Builder().setNumBits((short) 8).build()).build();
            case "IVF_HNSW_SQ" -> VectorIndexParams.withIvfHnswSqParams(DistanceType.L2, ivf,
                    new HnswBuildParams.Builder().setM(20).setEfConstruction(150).build(),
                    new SQBuildParams.Builder().setNumBits((short) 8).build());
            default -> throw new IllegalArgumentException(type);
        };
    }

    /**
     * For each type in {@code -Djavelin.index.bench.types} (default IVF_PQ,IVF_SQ,IVF_HNSW_SQ): both engines build
     * the index on their own copy of the data with the same parameters, then each engine queries its own index
     * and the other's; recall against exact search.
     */
    @Test
    void vectorIndexesOursVsLanceCore() throws Exception {
        int n = rows();
        int iters = iters();
        List<String> types = List.of(System.getProperty("javelin.index.bench.types", "IVF_PQ,IVF_SQ,IVF_HNSW_SQ").split(","));
        float[][] qs = queries(n);
        List<String> lines = new ArrayList<>();
        try (BufferAllocator alloc = new RootAllocator()) {
            List<Set<Long>> truth = null;
            for (String type : types) {
                String oursUri = dir.resolve("ours-" + type + ".lance").toString();
                String lanceUri = dir.resolve("lance-" + type + ".lance").toString();
                for (String uri : List.of(oursUri, lanceUri)) {
                    Dataset.write(uri, rows(alloc, n, 10_000), SCHEMA, WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(n / 4))
                            .block().close();
                }
                long t0 = System.nanoTime();
                Dataset.open(oursUri).flatMap(d -> d.createIndex(List.of("vec"), IndexKind.parse(type), IndexParams.defaults()
                        .withNumPartitions(PARTITIONS).withNumSubVectors(SUB_VECTORS).withMaxIters(iters)).doFinally(s -> d.close()))
                        .block().close();
                double oursBuild = (System.nanoTime() - t0) / 1e9;
                t0 = System.nanoTime();
                try (org.lance.Dataset l = org.lance.Dataset.open(lanceUri, alloc)) {
                    l.createIndex(List.of("vec"), IndexType.valueOf(type), Optional.of("vec_idx"),
                            org.lance.index.IndexParams.builder().setVectorIndexParams(lanceParams(type, iters)).build(), true);
                }
                double lanceBuild = (System.nanoTime() - t0) / 1e9;
                String build = String.format("%d x %d, %s, %d partitions, %d k-means iterations: build ours %.1f s, lance-core %.1f s",
                        n, DIM, type, PARTITIONS, iters, oursBuild, lanceBuild);
                System.out.println("[index-bench] " + build);
                lines.add(build);
                try (Dataset ours = Dataset.open(oursUri).block(); Dataset oursOnLance = Dataset.open(lanceUri).block();
                     org.lance.Dataset lance = org.lance.Dataset.open(lanceUri, alloc);
                     org.lance.Dataset lanceOnOurs = org.lance.Dataset.open(oursUri, alloc)) {
                    if (truth == null) {
                        truth = new ArrayList<>();
                        for (float[] q : qs) {
                            truth.add(new HashSet<>(ourQuery(ours, q, 0, 0, 0, false, alloc)));
                        }
                    }
                    int[][] cfgs = type.contains("HNSW")
                            ? new int[][] {{16, 0, 0}, {16, 0, 100}, {16, 10, 100}}
                            : new int[][] {{16, 0, 0}, {16, 10, 0}, {1, 0, 0}};
                    for (int[] cfg : cfgs) {
                        int np = cfg[0], rf = cfg[1], ef = cfg[2];
                        String suffix = " " + type + " nprobes " + np + (rf > 0 ? " refine " + rf : "") + (ef > 0 ? " ef " + ef : "");
                        List<Set<Long>> t = truth;
                        lines.add(measure("javelin    on javelin index" + suffix, qs, t, q -> ourQuery(ours, q, np, rf, ef, true, alloc)));
                        lines.add(measure("lance-core on lance index" + suffix, qs, t, q -> lanceQuery(lance, q, np, rf, ef, true, alloc)));
                        lines.add(measure("javelin    on lance index" + suffix, qs, t, q -> ourQuery(oursOnLance, q, np, rf, ef, true, alloc)));
                        lines.add(measure("lance-core on javelin index" + suffix, qs, t,
                                q -> lanceQuery(lanceOnOurs, q, np, rf, ef, true, alloc)));
                    }
                }
            }
        }
        System.out.println("[index-bench] summary\n" + String.join("\n", lines));
        assertThat(lines).hasSizeGreaterThan(types.size());
    }

    /** Exact (flat) search without an index, both engines, same data; recall against each other. */
    @Test
    void flatOursVsLanceCore() throws Exception {
        int n = rows();
        float[][] qs = Arrays.copyOf(queries(n), 40);
        try (BufferAllocator alloc = new RootAllocator()) {
            String uri = dir.resolve("flat.lance").toString();
            Dataset.write(uri, rows(alloc, n, 10_000), SCHEMA, WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(n / 4)).block().close();
            try (Dataset ours = Dataset.open(uri).block(); org.lance.Dataset lance = org.lance.Dataset.open(uri, alloc)) {
                List<Set<Long>> truth = new ArrayList<>();
                for (float[] q : qs) {
                    truth.add(new HashSet<>(lanceQuery(lance, q, 1, 0, 0, false, alloc)));
                }
                String ourLine = measure("javelin    flat (no index)", qs, truth, q -> ourQuery(ours, q, 0, 0, 0, false, alloc));
                measure("lance-core flat (no index)", qs, truth, q -> lanceQuery(lance, q, 1, 0, 0, false, alloc));
                assertThat(ourLine).contains("recall@10 1.000");
            }
        }
    }
}
