package io.javelin.index;

import io.javelin.index.kernel.DistanceKernels;
import io.javelin.index.kernel.ScalarDistanceKernels;
import io.javelin.index.vector.DistanceType;
import io.javelin.index.vector.ProductQuantizer;
import io.javelin.objectstore.memory.OffHeap;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/** Rough single-thread speeds for the report ({@code -Djavelin.index.speed=true}); JMH numbers belong in the jmh module. */
@EnabledIfSystemProperty(named = "javelin.index.speed", matches = "true")
class SpeedReportTest {

    @Test
    void kernelsAndAdc() {
        int dim = 128, n = 20_000;
        Random rnd = new Random(1);
        try (Arena arena = OffHeap.newArena("speed")) {
            MemorySegment data = arena.allocate(4L * dim * n), q = arena.allocate(4L * dim);
            for (long i = 0; i < (long) dim * n; i++) {
                data.setAtIndex(java.lang.foreign.ValueLayout.JAVA_FLOAT_UNALIGNED, i, (float) rnd.nextGaussian());
            }
            for (DistanceKernels k : new DistanceKernels[] {new ScalarDistanceKernels(), DistanceKernels.Holder.vectorOrNull()}) {
                float sink = 0;
                for (int warm = 0; warm < 20; warm++) {
                    for (int i = 0; i < n; i++) {
                        sink += k.l2F32(q, 0, data, 4L * i * dim, dim);
                    }
                }
                long t0 = System.nanoTime();
                int reps = 50;
                for (int r = 0; r < reps; r++) {
                    for (int i = 0; i < n; i++) {
                        sink += k.l2F32(q, 0, data, 4L * i * dim, dim);
                    }
                }
                double ns = (System.nanoTime() - t0) / (double) (reps * n);
                System.out.printf("l2F32 dim=128 %s: %.1f ns/vector (%.2f GFLOP/s) %s%n", k.name(), ns, 3 * dim / ns, sink > 0 ? "" : " ");
            }
        }
        float[] cb = new float[256 * dim];
        for (int i = 0; i < cb.length; i++) {
            cb[i] = (float) rnd.nextGaussian();
        }
        ProductQuantizer pq = new ProductQuantizer(dim, 16, 8, cb, DistanceType.L2);
        int rows = 100_000;
        byte[] codes = new byte[rows * 16];
        rnd.nextBytes(codes);
        float[] out = new float[rows];
        float[] query = new float[dim];
        float[] table = pq.distanceTable(query);
        for (int w = 0; w < 50; w++) {
            pq.distances(table, codes, 0, rows, out);
        }
        long t0 = System.nanoTime();
        for (int r = 0; r < 100; r++) {
            pq.distances(table, codes, 0, rows, out);
        }
        double ns = (System.nanoTime() - t0) / 100.0 / rows;
        long t1 = System.nanoTime();
        for (int r = 0; r < 200; r++) {
            table = pq.distanceTable(query);
        }
        double tableUs = (System.nanoTime() - t1) / 200.0 / 1000;
        System.out.printf("PQ16x8 ADC over transposed codes: %.2f ns/row (%.0f M rows/s); distance table: %.1f us%n", ns, 1000 / ns, tableUs);
    }
}
