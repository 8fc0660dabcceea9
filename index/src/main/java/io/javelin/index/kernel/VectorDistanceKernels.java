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
    public long nearestTransposed(float[] x, int xOff, float[] t, int k, int dim, boolean dot) {
        int lanes = F.length();
        if (k < lanes || I.length() != lanes) {
            return DistanceKernels.super.nearestTransposed(x, xOff, t, k, dim, dot);
        }
        FloatVector minV = FloatVector.broadcast(F, Float.POSITIVE_INFINITY);
        IntVector idxV = IntVector.zero(I);
        IntVector iota = IntVector.zero(I).addIndex(1);
        int kv = k - k % lanes;
        int j = 0;
        // four centroid blocks per pass: each broadcast x_d feeds four independent accumulators
        for (; j + 4 * lanes <= kv; j += 4 * lanes) {
            FloatVector a0 = FloatVector.zero(F), a1 = a0, a2 = a0, a3 = a0;
            for (int d = 0, row = j; d < dim; d++, row += k) {
                FloatVector xd = FloatVector.broadcast(F, x[xOff + d]);
                FloatVector c0 = FloatVector.fromArray(F, t, row);
                FloatVector c1 = FloatVector.fromArray(F, t, row + lanes);
                FloatVector c2 = FloatVector.fromArray(F, t, row + 2 * lanes);
                FloatVector c3 = FloatVector.fromArray(F, t, row + 3 * lanes);
                if (dot) {
                    a0 = xd.fma(c0, a0);
                    a1 = xd.fma(c1, a1);
                    a2 = xd.fma(c2, a2);
                    a3 = xd.fma(c3, a3);
                } else {
                    FloatVector d0 = xd.sub(c0), d1 = xd.sub(c1), d2 = xd.sub(c2), d3 = xd.sub(c3);
                    a0 = d0.fma(d0, a0);
                    a1 = d1.fma(d1, a1);
                    a2 = d2.fma(d2, a2);
                    a3 = d3.fma(d3, a3);
                }
            }
            if (dot) {
                FloatVector one = FloatVector.broadcast(F, 1f);
                a0 = one.sub(a0);
                a1 = one.sub(a1);
                a2 = one.sub(a2);
                a3 = one.sub(a3);
            }
            var lt0 = a0.lt(minV);
            minV = minV.blend(a0, lt0);
            idxV = idxV.blend(iota.add(j), lt0.cast(I));
            var lt1 = a1.lt(minV);
            minV = minV.blend(a1, lt1);
            idxV = idxV.blend(iota.add(j + lanes), lt1.cast(I));
            var lt2 = a2.lt(minV);
            minV = minV.blend(a2, lt2);
            idxV = idxV.blend(iota.add(j + 2 * lanes), lt2.cast(I));
            var lt3 = a3.lt(minV);
            minV = minV.blend(a3, lt3);
            idxV = idxV.blend(iota.add(j + 3 * lanes), lt3.cast(I));
        }
        for (; j < kv; j += lanes) {
            FloatVector a0 = FloatVector.zero(F);
            for (int d = 0, row = j; d < dim; d++, row += k) {
                FloatVector xd = FloatVector.broadcast(F, x[xOff + d]);
                FloatVector c0 = FloatVector.fromArray(F, t, row);
                if (dot) {
                    a0 = xd.fma(c0, a0);
                } else {
                    FloatVector d0 = xd.sub(c0);
                    a0 = d0.fma(d0, a0);
                }
            }
            FloatVector dist = dot ? FloatVector.broadcast(F, 1f).sub(a0) : a0;
            var lt = dist.lt(minV);
            minV = minV.blend(dist, lt);
            idxV = idxV.blend(iota.add(j), lt.cast(I));
        }
        float bestD = minV.reduceLanes(VectorOperators.MIN);
        var atMin = minV.eq(bestD).cast(I);
        int best = idxV.blend(IntVector.broadcast(I, Integer.MAX_VALUE), atMin.not()).reduceLanes(VectorOperators.MIN);
        if (best == Integer.MAX_VALUE) {
            best = 0;
        }
        for (; j < k; j++) { // tail centroids, scalar (higher indices: strict < keeps ties on the lower one)
            float acc = 0;
            for (int d = 0; d < dim; d++) {
                float c = t[d * k + j];
                if (dot) {
                    acc += x[xOff + d] * c;
                } else {
                    float diff = x[xOff + d] - c;
                    acc += diff * diff;
                }
            }
            float dist = dot ? 1f - acc : acc;
            if (dist < bestD) {
                bestD = dist;
                best = j;
            }
        }
        return ((long) Float.floatToRawIntBits(bestD) << 32) | best;
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
