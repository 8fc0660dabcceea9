package io.javelin.index.vector;

import java.util.Locale;

/**
 * Lance's 8-bit scalar quantizer: one global {@code [lo, hi]} range over all values of all
 * dimensions, {@code code = (u8) saturate((v - lo) * 255 / (hi - lo))} (truncating; 0 when
 * {@code lo == hi}), row-major codes, no residual.
 */
public final class ScalarQuantizer {

    private final int dim;
    private final float lo;
    private final float hi;

    public ScalarQuantizer(int dim, float lo, float hi) {
        this.dim = dim;
        this.lo = lo;
        this.hi = hi;
    }

    /** The range over every value of {@code data} (Lance trains bounds on the data it indexes). */
    public static ScalarQuantizer train(float[] data, int n, int dim) {
        float lo = Float.POSITIVE_INFINITY, hi = Float.NEGATIVE_INFINITY;
        for (int i = 0; i < n * dim; i++) {
            float v = data[i];
            if (v < lo) {
                lo = v;
            }
            if (v > hi) {
                hi = v;
            }
        }
        if (n == 0) {
            lo = hi = 0;
        }
        return new ScalarQuantizer(dim, lo, hi);
    }

    public float lo() {
        return lo;
    }

    public float hi() {
        return hi;
    }

    public int dim() {
        return dim;
    }

    /** {@code storage_metadata[0]} JSON. */
    public String storageMetadataJson() {
        return String.format(Locale.ROOT, "{\"dim\":%d,\"num_bits\":8,\"bounds\":{\"start\":%s,\"end\":%s}}",
                dim, Float.toString(lo), Float.toString(hi));
    }

    public int code(float v) {
        if (hi == lo) {
            return 0;
        }
        float x = (v - lo) * 255f / (hi - lo);
        if (!(x > 0)) {
            return 0;
        }
        return x >= 255f ? 255 : (int) x;
    }

    public void encode(float[] v, int off, byte[] out, int outOff) {
        for (int i = 0; i < dim; i++) {
            out[outOff + i] = (byte) code(v[off + i]);
        }
    }

    /**
     * Distance between a quantized query and a stored code: squared code difference scaled by
     * {@code ((hi-lo)/255)²} for L2 and cosine; for dot {@code 1 - (d·lo² + lo·s·(Σa+Σb) + s²·Σab)}.
     */
    public float distance(DistanceType type, byte[] q, byte[] codes, int off) {
        return distance(type, q, 0, codes, off);
    }

    /** {@link #distance(DistanceType, byte[], byte[], int)} with the query code at {@code qOff}. */
    public float distance(DistanceType type, byte[] q, int qOff, byte[] codes, int off) {
        float s = (hi - lo) / 255f;
        if (type == DistanceType.DOT) {
            long sa = 0, sb = 0, sab = 0;
            for (int i = 0; i < dim; i++) {
                int a = q[qOff + i] & 0xFF, b = codes[off + i] & 0xFF;
                sa += a;
                sb += b;
                sab += (long) a * b;
            }
            return 1f - (dim * lo * lo + lo * s * (sa + sb) + s * s * sab);
        }
        long acc = 0;
        for (int i = 0; i < dim; i++) {
            int d = (q[qOff + i] & 0xFF) - (codes[off + i] & 0xFF);
            acc += (long) d * d;
        }
        return acc * s * s;
    }
}
