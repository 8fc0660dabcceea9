package io.javelin.index.kernel;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/** Plain-loop distance kernels; the reference every vector kernel is tested against. */
public final class ScalarDistanceKernels implements DistanceKernels {

    static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    @Override
    public String name() {
        return "scalar";
    }

    static float f16(MemorySegment s, long off) {
        return Float.float16ToFloat(s.get(U16, off));
    }

    static float bf16(MemorySegment s, long off) {
        return Float.intBitsToFloat((s.get(U16, off) & 0xFFFF) << 16);
    }

    @Override
    public float l2F32(MemorySegment a, long aOff, MemorySegment b, long bOff, int dim) {
        return l2F32From(a, aOff, b, bOff, 0, dim, 0f);
    }

    static float l2F32From(MemorySegment a, long aOff, MemorySegment b, long bOff, int from, int dim, float acc) {
        for (int i = from; i < dim; i++) {
            float d = a.get(F32, aOff + 4L * i) - b.get(F32, bOff + 4L * i);
            acc += d * d;
        }
        return acc;
    }

    @Override
    public float dotF32(MemorySegment a, long aOff, MemorySegment b, long bOff, int dim) {
        return dotF32From(a, aOff, b, bOff, 0, dim, 0f);
    }

    static float dotF32From(MemorySegment a, long aOff, MemorySegment b, long bOff, int from, int dim, float acc) {
        for (int i = from; i < dim; i++) {
            acc += a.get(F32, aOff + 4L * i) * b.get(F32, bOff + 4L * i);
        }
        return acc;
    }

    @Override
    public float l2F32(float[] a, int aOff, float[] b, int bOff, int dim) {
        return l2F32From(a, aOff, b, bOff, 0, dim, 0f);
    }

    static float l2F32From(float[] a, int aOff, float[] b, int bOff, int from, int dim, float acc) {
        for (int i = from; i < dim; i++) {
            float d = a[aOff + i] - b[bOff + i];
            acc += d * d;
        }
        return acc;
    }

    @Override
    public float dotF32(float[] a, int aOff, float[] b, int bOff, int dim) {
        return dotF32From(a, aOff, b, bOff, 0, dim, 0f);
    }

    static float dotF32From(float[] a, int aOff, float[] b, int bOff, int from, int dim, float acc) {
        for (int i = from; i < dim; i++) {
            acc += a[aOff + i] * b[bOff + i];
        }
        return acc;
    }

    @Override
    public float normSqF32(MemorySegment a, long aOff, int dim) {
        return dotF32(a, aOff, a, aOff, dim);
    }

    @Override
    public float cosineF32(MemorySegment a, long aOff, MemorySegment b, long bOff, int dim) {
        float dot = 0, na = 0, nb = 0;
        for (int i = 0; i < dim; i++) {
            float x = a.get(F32, aOff + 4L * i);
            float y = b.get(F32, bOff + 4L * i);
            dot += x * y;
            na += x * x;
            nb += y * y;
        }
        return DistanceKernels.cosineFromSums(dot, na, nb);
    }

    @Override
    public float l2F16(MemorySegment a, long aOff, MemorySegment b, long bOff, int dim) {
        float acc = 0;
        for (int i = 0; i < dim; i++) {
            float d = f16(a, aOff + 2L * i) - f16(b, bOff + 2L * i);
            acc += d * d;
        }
        return acc;
    }

    @Override
    public float dotF16(MemorySegment a, long aOff, MemorySegment b, long bOff, int dim) {
        float acc = 0;
        for (int i = 0; i < dim; i++) {
            acc += f16(a, aOff + 2L * i) * f16(b, bOff + 2L * i);
        }
        return acc;
    }

    @Override
    public float cosineF16(MemorySegment a, long aOff, MemorySegment b, long bOff, int dim) {
        float dot = 0, na = 0, nb = 0;
        for (int i = 0; i < dim; i++) {
            float x = f16(a, aOff + 2L * i);
            float y = f16(b, bOff + 2L * i);
            dot += x * y;
            na += x * x;
            nb += y * y;
        }
        return DistanceKernels.cosineFromSums(dot, na, nb);
    }

    @Override
    public float l2Bf16(MemorySegment a, long aOff, MemorySegment b, long bOff, int dim) {
        return l2Bf16From(a, aOff, b, bOff, 0, dim, 0f);
    }

    static float l2Bf16From(MemorySegment a, long aOff, MemorySegment b, long bOff, int from, int dim, float acc) {
        for (int i = from; i < dim; i++) {
            float d = bf16(a, aOff + 2L * i) - bf16(b, bOff + 2L * i);
            acc += d * d;
        }
        return acc;
    }

    @Override
    public float dotBf16(MemorySegment a, long aOff, MemorySegment b, long bOff, int dim) {
        return dotBf16From(a, aOff, b, bOff, 0, dim, 0f);
    }

    static float dotBf16From(MemorySegment a, long aOff, MemorySegment b, long bOff, int from, int dim, float acc) {
        for (int i = from; i < dim; i++) {
            acc += bf16(a, aOff + 2L * i) * bf16(b, bOff + 2L * i);
        }
        return acc;
    }

    @Override
    public float cosineBf16(MemorySegment a, long aOff, MemorySegment b, long bOff, int dim) {
        float dot = 0, na = 0, nb = 0;
        for (int i = 0; i < dim; i++) {
            float x = bf16(a, aOff + 2L * i);
            float y = bf16(b, bOff + 2L * i);
            dot += x * y;
            na += x * x;
            nb += y * y;
        }
        return DistanceKernels.cosineFromSums(dot, na, nb);
    }

    @Override
    public float l2U8(MemorySegment a, long aOff, MemorySegment b, long bOff, int dim) {
        return (float) l2U8From(a, aOff, b, bOff, 0, dim, 0L);
    }

    static long l2U8From(MemorySegment a, long aOff, MemorySegment b, long bOff, int from, int dim, long acc) {
        for (int i = from; i < dim; i++) {
            int d = (a.get(ValueLayout.JAVA_BYTE, aOff + i) & 0xFF) - (b.get(ValueLayout.JAVA_BYTE, bOff + i) & 0xFF);
            acc += d * d;
        }
        return acc;
    }

    @Override
    public float dotU8(MemorySegment a, long aOff, MemorySegment b, long bOff, int dim) {
        return (float) dotU8From(a, aOff, b, bOff, 0, dim, 0L);
    }

    static long dotU8From(MemorySegment a, long aOff, MemorySegment b, long bOff, int from, int dim, long acc) {
        for (int i = from; i < dim; i++) {
            acc += (a.get(ValueLayout.JAVA_BYTE, aOff + i) & 0xFF) * (b.get(ValueLayout.JAVA_BYTE, bOff + i) & 0xFF);
        }
        return acc;
    }

    @Override
    public float cosineU8(MemorySegment a, long aOff, MemorySegment b, long bOff, int dim) {
        long dot = 0, na = 0, nb = 0;
        for (int i = 0; i < dim; i++) {
            int x = a.get(ValueLayout.JAVA_BYTE, aOff + i) & 0xFF;
            int y = b.get(ValueLayout.JAVA_BYTE, bOff + i) & 0xFF;
            dot += x * y;
            na += x * x;
            nb += y * y;
        }
        return DistanceKernels.cosineFromSums(dot, na, nb);
    }

    @Override
    public long hamming(MemorySegment a, long aOff, MemorySegment b, long bOff, long numBytes) {
        return hammingFrom(a, aOff, b, bOff, 0, numBytes, 0);
    }

    static long hammingFrom(MemorySegment a, long aOff, MemorySegment b, long bOff, long from, long numBytes, long acc) {
        long i = from;
        for (; i + 8 <= numBytes; i += 8) {
            acc += Long.bitCount(a.get(U64, aOff + i) ^ b.get(U64, bOff + i));
        }
        for (; i < numBytes; i++) {
            acc += Integer.bitCount((a.get(ValueLayout.JAVA_BYTE, aOff + i) ^ b.get(ValueLayout.JAVA_BYTE, bOff + i)) & 0xFF);
        }
        return acc;
    }
}
