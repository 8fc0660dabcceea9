package io.javelin.index.vector;

import io.javelin.index.CorruptIndexException;
import io.javelin.index.kernel.DistanceKernels;
import io.javelin.index.pb.Tensor;
import java.util.Locale;

/**
 * Lance's product quantizer. The codebook is {@code [m][2^nbits][dim/m]} in memory order (stored as
 * a 2-D FLOAT32 tensor of shape {@code [2^nbits, dim]}); 8-bit codes take one byte per sub-vector,
 * 4-bit codes pack sub-vector {@code 2j} in the low nibble and {@code 2j+1} in the high nibble of
 * byte {@code j}. Stored codes are transposed per partition ({@link #transpose}).
 *
 * <p>Distances (asymmetric, from a per-query table): L2 and cosine sum squared L2 per sub-vector;
 * dot sums {@code 1 - q_s·c} and subtracts {@code m-1}, i.e. {@code 1 - q·x̂}, as Lance does.
 */
public final class ProductQuantizer {

    private final int dim;
    private final int m;
    private final int nbits;
    private final int k;
    private final int sub;
    private final float[] codebook;
    private final DistanceType type;

    public ProductQuantizer(int dim, int m, int nbits, float[] codebook, DistanceType type) {
        if (m <= 0 || dim % m != 0) {
            throw new IllegalArgumentException("Dimension " + dim + " is not divisible by num_sub_vectors " + m);
        }
        if (nbits != 8 && nbits != 4) {
            throw new IllegalArgumentException("Unsupported num_bits " + nbits + " (must be 4 or 8)");
        }
        if (nbits == 4 && m % 2 != 0) {
            throw new IllegalArgumentException("4-bit PQ needs an even num_sub_vectors, got " + m);
        }
        this.dim = dim;
        this.m = m;
        this.nbits = nbits;
        this.k = 1 << nbits;
        this.sub = dim / m;
        if (codebook.length != k * dim) {
            throw new IllegalArgumentException("Codebook has " + codebook.length + " floats, expected " + (k * dim));
        }
        this.codebook = codebook;
        this.type = type;
    }

    /** Per sub-vector the codebook transposed to {@code [sub][k]} (lazily, for {@link #encode}). */
    private volatile float[][] transposed;

    private float[][] transposed() {
        float[][] t = transposed;
        if (t == null) {
            t = new float[m][];
            for (int s = 0; s < m; s++) {
                t[s] = DistanceKernels.transposeCentroids(java.util.Arrays.copyOfRange(codebook, s * k * sub, (s + 1) * k * sub), k, sub);
            }
            transposed = t;
        }
        return t;
    }

    /** Trains one k-means per sub-vector on {@code data} (residuals for L2/cosine, as Lance does). */
    public static ProductQuantizer train(float[] data, int n, int dim, int m, int nbits, DistanceType type, int maxIters, long seed) {
        int k = 1 << nbits;
        if (n < k) {
            throw new IllegalArgumentException("PQ training needs at least " + k + " rows, got " + n);
        }
        int sub = dim / m;
        float[] codebook = new float[k * dim];
        float[] part = new float[n * sub];
        DistanceType t = DistanceType.L2; // sub-vector k-means is L2 in Lance
        for (int s = 0; s < m; s++) {
            for (int i = 0; i < n; i++) {
                System.arraycopy(data, i * dim + s * sub, part, i * sub, sub);
            }
            KMeans.Model model = KMeans.train(part, n, sub, k, t, maxIters, seed + s);
            System.arraycopy(model.centroids(), 0, codebook, s * k * sub, k * sub);
        }
        return new ProductQuantizer(dim, m, nbits, codebook, type);
    }

    /** Reads the codebook tensor of {@code auxiliary.idx} (shape {@code [2^nbits, dim]}). */
    public static ProductQuantizer fromTensor(Tensor t, int dim, int m, int nbits, DistanceType type, String resource) {
        float[] cb = Tensors.toF32(t, resource);
        CorruptIndexException.check(cb.length == (1 << nbits) * dim, resource,
                "PQ codebook has %d floats, expected 2^%d x %d", cb.length, nbits, dim);
        try {
            return new ProductQuantizer(dim, m, nbits, cb, type);
        } catch (IllegalArgumentException e) {
            throw new CorruptIndexException(resource, e.getMessage(), e);
        }
    }

    public Tensor toTensor() {
        return Tensors.f32(codebook, k, dim);
    }

    /** {@code storage_metadata[0]} JSON, in the flat form Lance writes. */
    public String storageMetadataJson() {
        return String.format(Locale.ROOT,
                "{\"codebook_position\":2,\"nbits\":%d,\"num_sub_vectors\":%d,\"dimension\":%d,\"codebook_tensor\":[],\"transposed\":true}",
                nbits, m, dim);
    }

    public int dim() {
        return dim;
    }

    public int numSubVectors() {
        return m;
    }

    public int numBits() {
        return nbits;
    }

    public float[] codebook() {
        return codebook;
    }

    /** Bytes of one row's code. */
    public int codeBytes() {
        return m * nbits / 8;
    }

    /** Encodes {@code v[off..off+dim)} into {@code out[outOff..outOff+codeBytes)} (row layout). */
    public void encode(float[] v, int off, byte[] out, int outOff) {
        float[][] t = transposed();
        DistanceKernels kern = DistanceKernels.get();
        for (int s = 0; s < m; s++) {
            int best = (int) kern.nearestTransposed(v, off + s * sub, t[s], k, sub, false);
            if (nbits == 8) {
                out[outOff + s] = (byte) best;
            } else if ((s & 1) == 0) {
                out[outOff + (s >> 1)] = (byte) best;
            } else {
                out[outOff + (s >> 1)] |= (byte) (best << 4);
            }
        }
    }

    /**
     * The {@code [m][2^nbits]} distance table of one (residual) query. Built once per probed partition, so it
     * runs over the codebook transposed to {@code [m][dim/m][2^nbits]}: the inner loop walks all codes of one
     * dimension with unit stride (the JIT vectorizes it) instead of a short {@code dim/m} loop per code.
     */
    public float[] distanceTable(float[] q) {
        float[] t = flatTransposed();
        float[] table = new float[m * k];
        boolean dot = type == DistanceType.DOT;
        for (int s = 0; s < m; s++) {
            int row = s * k;
            for (int d = 0; d < sub; d++) {
                float qd = q[s * sub + d];
                int base = (s * sub + d) * k;
                if (dot) {
                    for (int c = 0; c < k; c++) {
                        table[row + c] += qd * t[base + c];
                    }
                } else {
                    for (int c = 0; c < k; c++) {
                        float diff = qd - t[base + c];
                        table[row + c] += diff * diff;
                    }
                }
            }
            if (dot) {
                for (int c = 0; c < k; c++) {
                    table[row + c] = 1f - table[row + c]; // 1 - q_s·c
                }
            }
        }
        return table;
    }

    private volatile float[] flatTransposed;

    /** The codebook as {@code [m][dim/m][2^nbits]} in one array (built on first use; immutable). */
    private float[] flatTransposed() {
        float[] t = flatTransposed;
        if (t == null) {
            t = new float[codebook.length];
            for (int s = 0; s < m; s++) {
                for (int c = 0; c < k; c++) {
                    for (int d = 0; d < sub; d++) {
                        t[(s * sub + d) * k + c] = codebook[(s * k + c) * sub + d];
                    }
                }
            }
            flatTransposed = t;
        }
        return t;
    }

    /**
     * Asymmetric distances for {@code n} rows whose codes are transposed ({@code [codeBytes][n]}, starting at
     * {@code off}) into {@code out[0..n)}. Sums in sub-vector order, in f32, as Lance does.
     */
    public void distances(float[] table, byte[] codes, int off, int n, float[] out) {
        java.util.Arrays.fill(out, 0, n, 0f);
        if (nbits == 8) {
            for (int s = 0; s < m; s++) {
                int base = s * k;
                int row = off + s * n;
                for (int r = 0; r < n; r++) {
                    out[r] += table[base + (codes[row + r] & 0xFF)];
                }
            }
        } else {
            for (int j = 0; j < m / 2; j++) {
                int lo = (2 * j) * k, hi = (2 * j + 1) * k;
                int row = off + j * n;
                for (int r = 0; r < n; r++) {
                    int b = codes[row + r] & 0xFF;
                    out[r] += table[lo + (b & 0xF)];
                    out[r] += table[hi + (b >>> 4)];
                }
            }
        }
        if (type == DistanceType.DOT) {
            float adj = -(m - 1);
            for (int r = 0; r < n; r++) {
                out[r] += adj;
            }
        }
    }

    /** Row-major {@code [n][w]} codes to Lance's transposed {@code [w][n]} block. */
    public static byte[] transpose(byte[] rowMajor, int n, int w) {
        byte[] out = new byte[n * w];
        for (int r = 0; r < n; r++) {
            for (int j = 0; j < w; j++) {
                out[j * n + r] = rowMajor[r * w + j];
            }
        }
        return out;
    }
}
