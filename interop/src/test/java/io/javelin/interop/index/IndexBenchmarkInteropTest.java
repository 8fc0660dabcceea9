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
import org.lance.index.vector.IvfBuildParams;
import org.lance.index.vector.PQBuildParams;
import org.lance.index.vector.VectorIndexParams;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.Query;
import org.lance.ipc.ScanOptions;
import reactor.core.publisher.Flux;

/**
 * IVF_PQ build time, recall@10 and warm query latency, Javelin vs lance-core 7.0.0, on the same
 * synthetic SIFT-like data (clustered, 128-d). Heavy: runs only with {@code -Djavelin.index.bench=true}
 * ({@code -Djavelin.index.bench.rows=N}, default 100 000). Numbers go to docs/benchmarks.md "Indexes".
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

    static List<Long> lanceQuery(org.lance.Dataset ds, float[] q, int nprobes, int refine, boolean useIndex, BufferAllocator alloc)
            throws Exception {
        List<Long> out = new ArrayList<>();
        Query.Builder qb = new Query.Builder().setColumn("vec").setKey(q).setK(10).setNprobes(nprobes).setUseIndex(useIndex);
        if (refine > 0) {
            qb.setRefineFactor(refine);
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

    static List<Long> ourQuery(Dataset ds, float[] q, int nprobes, int refine, boolean useIndex, BufferAllocator alloc) {
        List<Long> out = new ArrayList<>();
        var nq = ds.scanner().columns("id").nearest("vec", q, 10).refineFactor(refine).useIndex(useIndex);
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

    /** recall@10 against {@code truth} and warm p50 / mean latency in ms. */
    static String measure(String label, float[][] qs, List<Set<Long>> truth, Q query) throws Exception {
        for (int w = 0; w < 20; w++) {
            query.run(qs[w % qs.length]);
        }
        double hits = 0;
        long[] ns = new long[qs.length];
        for (int i = 0; i < qs.length; i++) {
            long t0 = System.nanoTime();
            List<Long> got = query.run(qs[i]);
            ns[i] = System.nanoTime() - t0;
            for (long id : got) {
                hits += truth.get(i).contains(id) ? 1 : 0;
            }
        }
        Arrays.sort(ns);
        String line = String.format("%-46s recall@10 %.3f  p50 %.2f ms  p90 %.2f ms", label, hits / (10.0 * qs.length),
                ns[qs.length / 2] / 1e6, ns[(int) (qs.length * 0.9)] / 1e6);
        System.out.println("[index-bench] " + line);
        return line;
    }

    @Test
    void ivfPqOursVsLanceCore() throws Exception {
        int n = Integer.getInteger("javelin.index.bench.rows", 100_000);
        try (BufferAllocator alloc = new RootAllocator()) {
            String oursUri = dir.resolve("ours.lance").toString();
            String lanceUri = dir.resolve("lance.lance").toString();
            for (String uri : List.of(oursUri, lanceUri)) {
                Dataset.write(uri, rows(alloc, n, 10_000), SCHEMA, WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(n / 4)).block().close();
            }
            long t0 = System.nanoTime();
            Dataset.open(oursUri).flatMap(d -> d.createIndex(List.of("vec"), IndexKind.IVF_PQ, IndexParams.defaults()
                    .withNumPartitions(PARTITIONS).withNumSubVectors(SUB_VECTORS).withMaxIters(50)).doFinally(s -> d.close()))
                    .block().close();
            double oursBuild = (System.nanoTime() - t0) / 1e9;
            t0 = System.nanoTime();
            try (org.lance.Dataset l = org.lance.Dataset.open(lanceUri, alloc)) {
                VectorIndexParams vp = VectorIndexParams.withIvfPqParams(DistanceType.L2,
                        new IvfBuildParams.Builder().setNumPartitions(PARTITIONS).setMaxIters(50).build(),
                        new PQBuildParams.Builder().setNumSubVectors(SUB_VECTORS).setNumBits(8).setMaxIters(50).build());
                l.createIndex(List.of("vec"), IndexType.IVF_PQ, Optional.of("vec_idx"),
                        org.lance.index.IndexParams.builder().setVectorIndexParams(vp).build(), true);
            }
            double lanceBuild = (System.nanoTime() - t0) / 1e9;
            System.out.printf("[index-bench] %d x %d, IVF%d_PQ%dx8: build ours %.1f s, lance-core %.1f s%n", n, DIM, PARTITIONS,
                    SUB_VECTORS, oursBuild, lanceBuild);

            Random r = new Random(99);
            float[][] qs = new float[QUERIES][];
            for (int i = 0; i < QUERIES; i++) {
                float[] v = vector(r.nextInt(n));
                for (int j = 0; j < DIM; j++) {
                    v[j] += (float) r.nextGaussian() * 2;
                }
                qs[i] = v;
            }
            try (Dataset ours = Dataset.open(oursUri).block(); Dataset oursOnLance = Dataset.open(lanceUri).block();
                 org.lance.Dataset lance = org.lance.Dataset.open(lanceUri, alloc);
                 org.lance.Dataset lanceOnOurs = org.lance.Dataset.open(oursUri, alloc)) {
                List<Set<Long>> truth = new ArrayList<>();
                for (float[] q : qs) {
                    truth.add(new HashSet<>(ourQuery(ours, q, 0, 0, false, alloc)));
                }
                List<String> lines = new ArrayList<>();
                for (int[] cfg : new int[][] {{16, 0}, {16, 10}, {1, 0}}) {
                    int np = cfg[0], rf = cfg[1];
                    String suffix = " nprobes " + np + (rf > 0 ? " refine " + rf : "");
                    lines.add(measure("javelin   on javelin index" + suffix, qs, truth, q -> ourQuery(ours, q, np, rf, true, alloc)));
                    lines.add(measure("lance-core on lance index" + suffix, qs, truth, q -> lanceQuery(lance, q, np, rf, true, alloc)));
                    lines.add(measure("javelin   on lance index" + suffix, qs, truth, q -> ourQuery(oursOnLance, q, np, rf, true, alloc)));
                    lines.add(measure("lance-core on javelin index" + suffix, qs, truth, q -> lanceQuery(lanceOnOurs, q, np, rf, true, alloc)));
                }
                lines.add(measure("javelin   flat (no index)", Arrays.copyOf(qs, 20), truth.subList(0, 20),
                        q -> ourQuery(ours, q, 0, 0, false, alloc)));
                lines.add(measure("lance-core flat (no index)", Arrays.copyOf(qs, 20), truth.subList(0, 20),
                        q -> lanceQuery(lance, q, 1, 0, false, alloc)));
                assertThat(lines).isNotEmpty();
            }
        }
    }
}
