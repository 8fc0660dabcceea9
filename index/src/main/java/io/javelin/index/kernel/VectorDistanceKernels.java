package io.javelin.index.kernel;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorSpecies;

/**
 * Vector API distance kernels. Loaded reflectively by {@link DistanceKernels} only when
 * jdk.incubator.vector is in the boot layer, so nothing here is linked on a JVM without it. Main
 * loops use two independent accumulators; tails run the scalar code. f16 uses the scalar path
 * ({@link Float#float16ToFloat} is an intrinsic on F16C hardware).
 */
final class VectorDistanceKernels implements DistanceKernels {

    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Integer> I = IntVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Short> S_HALF =
            VectorSpecies.of(short.class, VectorShape.forBitSize(Math.max(64, I.vectorBitSize() / 2)));
    private static final VectorSpecies<Byte> B_QUARTER =
            VectorSpecies.of(byte.class, VectorShape.forBitSize(Math.max(64, I.vectorBitSize() / 4)));
    private static final VectorSpecies<Long> L = LongVector.SPECIES_PREFERRED;
    private static final ScalarDistanceKernels SCALAR = new ScalarDistanceKernels();

    VectorDistanceKernels() {
        if (F.vectorBitSize() < 128 || S_HALF.length() != I.length() || B_QUARTER.length() < I.length()) {
            throw new UnsupportedOperationException("vector width " + F.vectorBitSize() + " too small");
        }
    }

    @Override
    public String name() {
        return "vector(" + F.vectorBitSize() + "-bit)";
    }

    @Override
    public float l2F32(MemorySegment a, long aOff, MemorySegment b, long bOff, int dim) {
        int lanes = F.length();
        int i = 0;
        FloatVector acc0 = FloatVector.zero(F);
        FloatVector acc1 = FloatVector.zero(F);
        int bound2 = dim - dim % (2 * lanes);
        for (; i < bound2; i += 2 * lanes) {
            FloatVector d0 = FloatVector.fromMemorySegment(F, a, aOff + 4L * i, LE)
                    .sub(FloatVector.fromMemorySegment(F, b, bOff + 4L * i, LE));
            FloatVector d1 = FloatVector.fromMemorySegment(F, a, aOff + 4L * (i + lanes), LE)
                    .sub(FloatVector.fromMemorySegment(F, b, bOff + 4L * (i + lanes), LE));
            acc0 = d0.fma(d0, acc0);
            acc1 = d1.fma(d1, acc1);
        }
        int bound = dim - dim % lanes;
        for (; i < bound; i += lanes) {
            FloatVector d0 = FloatVector.fromMemorySegment(F, a, aOff + 4L * i, LE)
                    .sub(FloatVector.fromMemorySegment(F, b, bOff + 4L * i, LE));
            acc0 = d0.fma(d0, acc0);
        }
        float sum = sum(acc0.add(acc1));
        return ScalarDistanceKernels.l2F32From(a, aOff, b, bOff, i, dim, sum);
    }

    @Override
    public float dotF32(MemorySegment a, long aOff, MemorySegment b, long bOff, int dim) {
        int lanes = F.length();
        int i = 0;
        FloatVector acc0 = FloatVector.zero(F);
        FloatVector acc1 = FloatVector.zero(F);
        int bound2 = dim - dim % (2 * lanes);
        for (; i < bound2; i += 2 * lanes) {
            acc0 = FloatVector.fromMemorySegment(F, a, aOff + 4L * i, LE)
                    .fma(FloatVector.fromMemorySegment(F, b, bOff + 4L * i, LE), acc0);
            acc1 = FloatVector.fromMemorySegment(F, a, aOff + 4L * (i + lanes), LE)
                    .fma(FloatVector.fromMemorySegment(F, b, bOff + 4L * (i + lanes), LE), acc1);
        }
        int bound = dim - dim % lanes;
        for (; i < bound; i += lanes) {
            acc0 = FloatVector.fromMemorySegment(F, a, aOff + 4L * i, LE)
                    .fma(FloatVector.fromMemorySegment(F, b, bOff + 4L * i, LE), acc0);
        }
        float sum = sum(acc0.add(acc1));
        return ScalarDistanceKernels.dotF32From(a, aOff, b, bOff, i, dim, sum);
    }

    @Override
    public float l2F32(float[] a, int aOff, float[] b, int bOff, int dim) {
        int lanes = F.length();
        int i = 0;
        FloatVector acc0 = FloatVector.zero(F);
        FloatVector acc1 = FloatVector.zero(F);
        int bound2 = dim - dim % (2 * lanes);
        for (; i < bound2; i += 2 * lanes) {
            FloatVector d0 = FloatVector.fromArray(F, a, aOff + i).sub(FloatVector.fromArray(F, b, bOff + i));
            FloatVector d1 = FloatVector.fromArray(F, a, aOff + i + lanes).sub(FloatVector.fromArray(F, b, bOff + i + lanes));
            acc0 = d0.fma(d0, acc0);
            acc1 = d1.fma(d1, acc1);
        }
        int bound = dim - dim % lanes;
        for (; i < bound; i += lanes) {
            FloatVector d0 = FloatVector.fromArray(F, a, aOff + i).sub(FloatVector.fromArray(F, b, bOff + i));
            acc0 = d0.fma(d0, acc0);
        }
        return ScalarDistanceKernels.l2F32From(a, aOff, b, bOff, i, dim, sum(acc0.add(acc1)));
    }

    @Override
    public float dotF32(float[] a, int aOff, float[] b, int bOff, int dim) {
        int lanes = F.length();
        int i = 0;
        FloatVector acc0 = FloatVector.zero(F);
        FloatVector acc1 = FloatVector.zero(F);
        int bound2 = dim - dim % (2 * lanes);
        for (; i < bound2; i += 2 * lanes) {
            acc0 = FloatVector.fromArray(F, a, aOff + i).fma(FloatVector.fromArray(F, b, bOff + i), acc0);
            acc1 = FloatVector.fromArray(F, a, aOff + i + lanes).fma(FloatVector.fromArray(F, b, bOff + i + lanes), acc1);
        }
        int bound = dim - dim % lanes;
        for (; i < bound; i += lanes) {
            acc0 = FloatVector.fromArray(F, a, aOff + i).fma(FloatVector.fromArray(F, b, bOff + i), acc0);
        }
        return ScalarDistanceKernels.dotF32From(a, aOff, b, bOff, i, dim, sum(acc0.add(acc1)));
    }

    @Override
    public float normSqF32(MemorySegment a, long aOff, int dim) {
        return dotF32(a, aOff, a, aOff, dim);
    }

    @Override
    public float cosineF32(MemorySegment a, long aOff, MemorySegment b, long bOff, int dim) {
        int lanes = F.length();
        int i = 0;
        FloatVector dot = FloatVector.zero(F);
        FloatVector na = FloatVector.zero(F);
        FloatVector nb = FloatVector.zero(F);
        int bound = dim - dim % lanes;
        for (; i < bound; i += lanes) {
            FloatVector x = FloatVector.fromMemorySegment(F, a, aOff + 4L * i, LE);
            FloatVector y = FloatVector.fromMemorySegment(F, b, bOff + 4L * i, LE);
            dot = x.fma(y, dot);
            na = x.fma(x, na);
            nb = y.fma(y, nb);
        }
        float d = sum(dot);
        float sa = sum(na);
        float sb = sum(nb);
        for (; i < dim; i++) {
            float x = a.get(ScalarDistanceKernels.F32, aOff + 4L * i);
            float y = b.get(ScalarDistanceKernels.F32, bOff + 4L * i);
            d += x * y;
            sa += x * x;
            sb += y * y;
        }
        return DistanceKernels.cosineFromSums(d, sa, sb);
    }

    @Override
    public float l2F16(MemorySegment a, long aOff, MemorySegment b, long bOff, int dim) {
        return SCALAR.l2F16(a, aOff, b, bOff, dim);
    }

    @Override
    public float dotF16(MemorySegment a, long aOff, MemorySegment b, long bOff, int dim) {
        return SCALAR.dotF16(a, aOff, b, bOff, dim);
    }

    @Override
    public float cosineF16(MemorySegment a, long aOff, MemorySegment b, long bOff, int dim) {
        return SCALAR.cosineF16(a, aOff, b, bOff, dim);
    }

    private static FloatVector loadBf16(MemorySegment s, long off) {
        return ((IntVector) ShortVector.fromMemorySegment(S_HALF, s, off, LE).convertShape(VectorOperators.S2I, I, 0))
                .lanewise(VectorOperators.LSHL, 16)
                .reinterpretAsFloats();
    }

    @Override
    public float l2Bf16(MemorySegment a, long aOff, MemorySegment b, long bOff, int dim) {
        int lanes = I.length();
        int i = 0;
        FloatVector acc = FloatVector.zero(F);
        int bound = dim - dim % lanes;
        for (; i < bound; i += lanes) {
            FloatVector d = loadBf16(a, aOff + 2L * i).sub(loadBf16(b, bOff + 2L * i));
            acc = d.fma(d, acc);
        }
        return ScalarDistanceKernels.l2Bf16From(a, aOff, b, bOff, i, dim, sum(acc));
    }

    @Override
    public float dotBf16(MemorySegment a, long aOff, MemorySegment b, long bOff, int dim) {
        int lanes = I.length();
        int i = 0;
        FloatVector acc = FloatVector.zero(F);
        int bound = dim - dim % lanes;
        for (; i < bound; i += lanes) {
            acc = loadBf16(a, aOff + 2L * i).fma(loadBf16(b, bOff + 2L * i), acc);
        }
        return ScalarDistanceKernels.dotBf16From(a, aOff, b, bOff, i, dim, sum(acc));
    }

    @Override
    public float cosineBf16(MemorySegment a, long aOff, MemorySegment b, long bOff, int dim) {
        int lanes = I.length();
        int i = 0;
        FloatVector dot = FloatVector.zero(F);
        FloatVector na = FloatVector.zero(F);
        FloatVector nb = FloatVector.zero(F);
        int bound = dim - dim % lanes;
        for (; i < bound; i += lanes) {
            FloatVector x = loadBf16(a, aOff + 2L * i);
            FloatVector y = loadBf16(b, bOff + 2L * i);
            dot = x.fma(y, dot);
            na = x.fma(x, na);
            nb = y.fma(y, nb);
        }
        float d = sum(dot);
        float sa = sum(na);
        float sb = sum(nb);
        for (; i < dim; i++) {
            float x = ScalarDistanceKernels.bf16(a, aOff + 2L * i);
            float y = ScalarDistanceKernels.bf16(b, bOff + 2L * i);
            d += x * y;
            sa += x * x;
            sb += y * y;
        }
        return DistanceKernels.cosineFromSums(d, sa, sb);
    }

    /**
     * Sums the lanes in lane order. {@code reduceLanes(ADD)} leaves the order unspecified, and the
     * interpreter and C2 really do differ, so distances would change after warm-up.
     */
    private static float sum(FloatVector v) {
        float s = 0;
        for (int i = 0; i < v.length(); i++) {
            s += v.lane(i);
        }
        return s;
    }

    private static IntVector loadU8(MemorySegment s, long off) {
        return ((IntVector) ByteVector.fromMemorySegment(B_QUARTER, s, off, LE).convertShape(VectorOperators.B2I, I, 0))
                .and(0xFF);
    }

    /** Lanes of u8 consumed per step; B_QUARTER may be wider than I, so only I.length() bytes are used. */
    private static int u8Bound(int dim) {
        // the load reads B_QUARTER.length() bytes, so keep that many in bounds
        int lanes = I.length();
        int need = B_QUARTER.length();
        int bound = dim - need + lanes;
        if (bound < 0) {
            return 0;
        }
        return bound - bound % lanes;
    }

    @Override
    public float l2U8(MemorySegment a, long aOff, MemorySegment b, long bOff, int dim) {
        int lanes = I.length();
        int i = 0;
        IntVector acc = IntVector.zero(I);
        int bound = u8Bound(dim);
        for (; i < bound; i += lanes) {
            IntVector d = loadU8(a, aOff + i).sub(loadU8(b, bOff + i));
            acc = acc.add(d.mul(d));
        }
        long sum = acc.reduceLanesToLong(VectorOperators.ADD);
        return (float) ScalarDistanceKernels.l2U8From(a, aOff, b, bOff, i, dim, sum);
    }

    @Override
    public float dotU8(MemorySegment a, long aOff, MemorySegment b, long bOff, int dim) {
        int lanes = I.length();
        int i = 0;
        IntVector acc = IntVector.zero(I);
        int bound = u8Bound(dim);
        for (; i < bound; i += lanes) {
            acc = acc.add(loadU8(a, aOff + i).mul(loadU8(b, bOff + i)));
        }
        long sum = acc.reduceLanesToLong(VectorOperators.ADD);
        return (float) ScalarDistanceKernels.dotU8From(a, aOff, b, bOff, i, dim, sum);
    }

    @Override
    public float cosineU8(MemorySegment a, long aOff, MemorySegment b, long bOff, int dim) {
        return SCALAR.cosineU8(a, aOff, b, bOff, dim);
    }

    @Override
    public long hamming(MemorySegment a, long aOff, MemorySegment b, long bOff, long numBytes) {
        long step = 8L * L.length();
        long i = 0;
        LongVector acc = LongVector.zero(L);
        long bound = numBytes - numBytes % step;
        for (; i < bound; i += step) {
            acc = acc.add(LongVector.fromMemorySegment(L, a, aOff + i, LE)
                    .lanewise(VectorOperators.XOR, LongVector.fromMemorySegment(L, b, bOff + i, LE))
                    .lanewise(VectorOperators.BIT_COUNT));
        }
        return ScalarDistanceKernels.hammingFrom(a, aOff, b, bOff, i, numBytes, acc.reduceLanes(VectorOperators.ADD));
    }
}
