package io.javelin.index.vector;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Build time of IVF_PQ / IVF_SQ / IVF_HNSW_SQ in memory (no I/O) on the SIFT-like data of the interop
 * index benchmark (100 000 × 128, 1000 clusters; 256 partitions, PQ 16×8, HNSW m 20 / ef_c 150), with
 * recall@10 of a few queries as a sanity check. Heavy: runs only with {@code -Djavelin.index.buildbench=true}
 * ({@code -Djavelin.index.buildbench.rows}, {@code .iters} (default 20), {@code .types}).
 */
@EnabledIfSystemProperty(named = "javelin.index.buildbench", matches = "true")
class VectorBuildBenchmarkTest {

    static final int DIM = 128;

    static void vector(long id, float[] out, int off) {
        Random c = new Random(id % 1000);
        Random r = new Random(id * 7919 + 1);
        for (int i = 0; i < DIM; i++) {
            out[off + i] = (float) (c.nextGaussian() * 8 + r.nextGaussian() * 3);
        }
    }

    @Test
    void buildTimes() {
        int n = Integer.getInteger("javelin.index.buildbench.rows", 100_000);
        int iters = Integer.getInteger("javelin.index.buildbench.iters", 20);
        String[] types = System.getProperty("javelin.index.buildbench.types", "IVF_PQ,IVF_SQ,IVF_HNSW_SQ").split(",");
        float[] data = new float[n * DIM];
        long[] rows = new long[n];
        for (int i = 0; i < n; i++) {
            vector(i, data, i * DIM);
            rows[i] = i;
        }
        for (String t : types) {
            IvfIndex.BuildParams p = switch (t) {
                case "IVF_PQ" -> IvfIndex.BuildParams.ivfPq(256, 16, DistanceType.L2);
                case "IVF_SQ" -> IvfIndex.BuildParams.ivfSq(256, DistanceType.L2);
                case "IVF_HNSW_SQ" -> IvfIndex.BuildParams.ivfSq(256, DistanceType.L2).withHnsw(Hnsw.Params.LANCE_DEFAULT);
                default -> throw new IllegalArgumentException(t);
            };
            p = p.withMaxIters(iters);
            long t0 = System.nanoTime();
            IvfIndex idx = IvfIndex.build(data, rows, n, DIM, p);
            double secs = (System.nanoTime() - t0) / 1e9;
            double recall = recall(idx, data, rows, n);
            System.out.printf("[buildbench] %s rows %d iters %d: build %.1f s, recall@10 (nprobes 16, ef 100) %.3f, load %s%n",
                    t, n, iters, secs, recall, loadAverage());
            assertThat(idx.numRows()).isEqualTo(n);
        }
    }

    static double recall(IvfIndex idx, float[] data, long[] rows, int n) {
        int hits = 0;
        int queries = 20;
        float[] q = new float[DIM];
        for (int i = 0; i < queries; i++) {
            vector(1_000_000 + i, q, 0);
            Neighbor[] exact = IvfIndex.flatSearch(data, rows, DIM, q, 10, DistanceType.L2, io.javelin.index.RowFilter.ALL);
            java.util.Set<Long> want = new java.util.HashSet<>();
            for (Neighbor nb : exact) {
                want.add(nb.rowId());
            }
            VectorQuery vq = VectorQuery.of(q, 10).withNprobes(16).withEf(100);
            for (Neighbor nb : idx.search(vq, null)) {
                hits += want.contains(nb.rowId()) ? 1 : 0;
            }
        }
        return hits / (queries * 10.0);
    }

    static String loadAverage() {
        try {
            return java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).split(" ")[0];
        } catch (java.io.IOException e) {
            return "?";
        }
    }
}
