package io.javelin.index.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.javelin.objectstore.memory.OffHeap;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class DistanceKernelsTest {

    private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    static List<DistanceKernels> impls() {
        List<DistanceKernels> out = new ArrayList<>();
        out.add(new ScalarDistanceKernels());
        DistanceKernels v = DistanceKernels.Holder.vectorOrNull();
        if (v != null) {
            out.add(v);
        }
        return out;
    }

    @Test
    void theVectorImplementationIsAvailableInTests() {
        assertThat(DistanceKernels.Holder.vectorOrNull()).as("jdk.incubator.vector is on the test JVM").isNotNull();
        assertThat(DistanceKernels.get().name()).isNotBlank();
    }

    private static float tol(double ref, int dim) {
        return (float) (1e-5 * dim * Math.max(1, Math.abs(ref)) + 1e-6);
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 7, 8, 15, 16, 17, 31, 33, 63, 64, 65, 127, 128, 129, 207, 1024, 1536, 4098})
    void floatKernelsMatchADoubleReference(int dim) {
        Random rnd = new Random(dim);
        try (Arena arena = OffHeap.newArena("test")) {
            // odd byte offset for b: kernels must not rely on alignment
            MemorySegment a = arena.allocate(4L * dim + 8);
            MemorySegment b = arena.allocate(4L * dim + 8);
            MemorySegment ah = arena.allocate(2L * dim + 8);
            MemorySegment bh = arena.allocate(2L * dim + 8);
            MemorySegment abf = arena.allocate(2L * dim + 8);
            MemorySegment bbf = arena.allocate(2L * dim + 8);
            double[] x = new double[dim], y = new double[dim], xh = new double[dim], yh = new double[dim];
            double[] xb = new double[dim], yb = new double[dim];
            for (int i = 0; i < dim; i++) {
                float fx = (float) rnd.nextGaussian(), fy = (float) rnd.nextGaussian();
                a.set(F32, 4L * i, fx);
                b.set(F32, 4 + 4L * i, fy);
                x[i] = fx;
                y[i] = fy;
                short hx = Float.floatToFloat16(fx), hy = Float.floatToFloat16(fy);
                ah.set(U16, 2L * i, hx);
                bh.set(U16, 2 + 2L * i, hy);
                xh[i] = Float.float16ToFloat(hx);
                yh[i] = Float.float16ToFloat(hy);
                short bx = (short) (Float.floatToRawIntBits(fx) >>> 16), by = (short) (Float.floatToRawIntBits(fy) >>> 16);
                abf.set(U16, 2L * i, bx);
                bbf.set(U16, 2 + 2L * i, by);
                xb[i] = Float.intBitsToFloat((bx & 0xFFFF) << 16);
                yb[i] = Float.intBitsToFloat((by & 0xFFFF) << 16);
            }
            for (DistanceKernels k : impls()) {
                String n = k.name() + " dim=" + dim;
                double l2 = refL2(x, y), dot = refDot(x, y), cos = refCos(x, y);
                assertThat(k.l2F32(a, 0, b, 4, dim)).as(n).isCloseTo((float) l2, within(tol(l2, dim)));
                assertThat(k.dotF32(a, 0, b, 4, dim)).as(n).isCloseTo((float) dot, within(tol(dot, dim)));
                assertThat(k.normSqF32(a, 0, dim)).as(n).isCloseTo((float) refDot(x, x), within(tol(refDot(x, x), dim)));
                assertThat(k.cosineF32(a, 0, b, 4, dim)).as(n).isCloseTo((float) cos, within(tol(1, dim)));
                float[] fa = new float[dim + 1], fb = new float[dim + 2];
                for (int i = 0; i < dim; i++) {
                    fa[i + 1] = (float) x[i];
                    fb[i + 2] = (float) y[i];
                }
                assertThat(k.l2F32(fa, 1, fb, 2, dim)).as(n).isCloseTo((float) l2, within(tol(l2, dim)));
                assertThat(k.dotF32(fa, 1, fb, 2, dim)).as(n).isCloseTo((float) dot, within(tol(dot, dim)));
                assertThat(k.cosineF32(fa, 1, fb, 2, dim)).as(n).isCloseTo((float) cos, within(tol(1, dim)));
                l2 = refL2(xh, yh);
                dot = refDot(xh, yh);
                assertThat(k.l2F16(ah, 0, bh, 2, dim)).as(n).isCloseTo((float) l2, within(tol(l2, dim)));
                assertThat(k.dotF16(ah, 0, bh, 2, dim)).as(n).isCloseTo((float) dot, within(tol(dot, dim)));
                assertThat(k.cosineF16(ah, 0, bh, 2, dim)).as(n).isCloseTo((float) refCos(xh, yh), within(tol(1, dim)));
                l2 = refL2(xb, yb);
                dot = refDot(xb, yb);
                assertThat(k.l2Bf16(abf, 0, bbf, 2, dim)).as(n).isCloseTo((float) l2, within(tol(l2, dim)));
                assertThat(k.dotBf16(abf, 0, bbf, 2, dim)).as(n).isCloseTo((float) dot, within(tol(dot, dim)));
                assertThat(k.cosineBf16(abf, 0, bbf, 2, dim)).as(n).isCloseTo((float) refCos(xb, yb), within(tol(1, dim)));
            }
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 3, 8, 15, 16, 17, 31, 32, 33, 127, 128, 129, 1024, 1025, 4098})
    void byteKernelsAreExact(int dim) {
        Random rnd = new Random(31L * dim);
        byte[] x = new byte[dim + 3], y = new byte[dim + 3];
        rnd.nextBytes(x);
        rnd.nextBytes(y);
        x[0] = (byte) 0xFF;
        y[0] = 0;
        long l2 = 0, dot = 0, nx = 0, ny = 0, ham = 0;
        for (int i = 0; i < dim; i++) {
            int a = x[i] & 0xFF, b = y[i + 3] & 0xFF;
            l2 += (long) (a - b) * (a - b);
            dot += (long) a * b;
            nx += (long) a * a;
            ny += (long) b * b;
            ham += Integer.bitCount(a ^ b);
        }
        try (Arena arena = OffHeap.newArena("test")) {
            MemorySegment a = arena.allocate(x.length);
            MemorySegment b = arena.allocate(y.length);
            a.copyFrom(MemorySegment.ofArray(x));
            b.copyFrom(MemorySegment.ofArray(y));
            for (DistanceKernels k : impls()) {
                String n = k.name() + " dim=" + dim;
                assertThat(k.l2U8(a, 0, b, 3, dim)).as(n).isEqualTo((float) l2);
                assertThat(k.dotU8(a, 0, b, 3, dim)).as(n).isEqualTo((float) dot);
                assertThat(k.hamming(a, 0, b, 3, dim)).as(n).isEqualTo(ham);
                double cos = 1 - dot / (Math.sqrt(nx) * Math.sqrt(ny));
                assertThat(k.cosineU8(a, 0, b, 3, dim)).as(n).isCloseTo((float) cos, within(1e-5f));
            }
        }
    }

    @Test
    void resultsDoNotChangeWhenTheJitCompilesTheKernel() {
        int dim = 131;
        Random rnd = new Random(77);
        try (Arena arena = OffHeap.newArena("test")) {
            MemorySegment a = arena.allocate(4L * dim), b = arena.allocate(4L * dim);
            for (int i = 0; i < dim; i++) {
                a.set(F32, 4L * i, (float) rnd.nextGaussian() * 100);
                b.set(F32, 4L * i, (float) rnd.nextGaussian() * 100);
            }
            for (DistanceKernels k : impls()) {
                float l2 = k.l2F32(a, 0, b, 0, dim), dot = k.dotF32(a, 0, b, 0, dim), cos = k.cosineF32(a, 0, b, 0, dim);
                for (int i = 0; i < 60_000; i++) {
                    assertThat(Float.floatToRawIntBits(k.l2F32(a, 0, b, 0, dim))).isEqualTo(Float.floatToRawIntBits(l2));
                    assertThat(Float.floatToRawIntBits(k.dotF32(a, 0, b, 0, dim))).isEqualTo(Float.floatToRawIntBits(dot));
                    assertThat(Float.floatToRawIntBits(k.cosineF32(a, 0, b, 0, dim))).isEqualTo(Float.floatToRawIntBits(cos));
                }
            }
        }
    }

    @Test
    void zeroVectorsHaveCosineDistanceOne() {
        MemorySegment z = MemorySegment.ofArray(new float[16]);
        for (DistanceKernels k : impls()) {
            assertThat(k.cosineF32(z, 0, z, 0, 16)).isEqualTo(1f);
        }
    }

    static double refL2(double[] x, double[] y) {
        double s = 0;
        for (int i = 0; i < x.length; i++) {
            s += (x[i] - y[i]) * (x[i] - y[i]);
        }
        return s;
    }

    static double refDot(double[] x, double[] y) {
        double s = 0;
        for (int i = 0; i < x.length; i++) {
            s += x[i] * y[i];
        }
        return s;
    }

    static double refCos(double[] x, double[] y) {
        return 1 - refDot(x, y) / (Math.sqrt(refDot(x, x)) * Math.sqrt(refDot(y, y)));
    }
}
