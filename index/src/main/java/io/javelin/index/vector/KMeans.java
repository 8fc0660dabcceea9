package io.javelin.index.vector;

import io.javelin.index.kernel.DistanceKernels;
import java.util.Arrays;
import java.util.Random;
import java.util.stream.IntStream;

/**
 * Seeded Lloyd k-means over row-major f32 data, with the assignment step run in parallel chunks on
 * the common fork-join pool (training is CPU work; never call it from a non-blocking thread).
 * Lance's defaults: random initialisation, {@code max_iters} (IVF 50, PQ 50), tolerance 1e-4 on
 * the relative loss change. Empty clusters are re-seeded from a random member of the largest
 * cluster. Any centroids are format-compatible with Lance; only recall depends on their quality.
 *
 * <p>For {@link DistanceType#COSINE} callers normalise the data first (Lance does) and train with
 * L2; for {@link DistanceType#DOT} the assignment maximises the inner product.
 */
public final class KMeans {

    private static final int CHUNK = 2048;

    private KMeans() {
    }

    /** Result of training: centroids {@code [k][dim]} row-major, and the final loss. */
    public record Model(float[] centroids, int k, int dim, double loss) {
    }

    public static Model train(float[] data, int n, int dim, int k, DistanceType type, int maxIters, long seed) {
        if (n < k) {
            throw new IllegalArgumentException("Cannot train " + k + " centroids from " + n + " vectors (need n >= k)");
        }
        DistanceType assign = type == DistanceType.COSINE ? DistanceType.L2 : type;
        Random rnd = new Random(seed);
        float[] c = new float[k * dim];
        int[] pick = sampleDistinct(n, k, rnd);
        for (int j = 0; j < k; j++) {
            System.arraycopy(data, pick[j] * dim, c, j * dim, dim);
        }
        int[] assignment = new int[n];
        double prevLoss = Double.MAX_VALUE;
        double loss = 0;
        for (int iter = 0; iter < Math.max(1, maxIters); iter++) {
            loss = assign(data, n, dim, c, k, assign, assignment);
            // update
            double[] sums = new double[k * dim];
            int[] counts = new int[k];
            for (int i = 0; i < n; i++) {
                int a = assignment[i];
                counts[a]++;
                int base = a * dim, off = i * dim;
                for (int d = 0; d < dim; d++) {
                    sums[base + d] += data[off + d];
                }
            }
            for (int j = 0; j < k; j++) {
                if (counts[j] == 0) {
                    reseed(data, n, dim, c, j, assignment, counts, rnd);
                    continue;
                }
                for (int d = 0; d < dim; d++) {
                    c[j * dim + d] = (float) (sums[j * dim + d] / counts[j]);
                }
            }
            if (Math.abs(prevLoss - loss) <= 1e-4 * Math.max(prevLoss, 1e-30)) {
                break;
            }
            prevLoss = loss;
        }
        return new Model(c, k, dim, loss);
    }

    private static void reseed(float[] data, int n, int dim, float[] c, int j, int[] assignment, int[] counts, Random rnd) {
        int largest = 0;
        for (int x = 1; x < counts.length; x++) {
            if (counts[x] > counts[largest]) {
                largest = x;
            }
        }
        int start = rnd.nextInt(n);
        for (int s = 0; s < n; s++) {
            int i = (start + s) % n;
            if (assignment[i] == largest) {
                for (int d = 0; d < dim; d++) {
                    // a small perturbation splits the cluster in the next assignment
                    c[j * dim + d] = data[i * dim + d] * (1 + 1e-3f * (float) rnd.nextGaussian());
                }
                return;
            }
        }
    }

    /** Assigns every vector to its nearest centroid; returns the summed distance. Runs in parallel. */
    public static double assign(float[] data, int n, int dim, float[] c, int k, DistanceType type, int[] out) {
        int chunks = (n + CHUNK - 1) / CHUNK;
        double[] partial = new double[chunks];
        if (type == DistanceType.L2 || type == DistanceType.DOT) {
            // lanes across centroids (transposed table): no per-centroid call or horizontal sum
            float[] t = DistanceKernels.transposeCentroids(c, k, dim);
            boolean dot = type == DistanceType.DOT;
            DistanceKernels kern = DistanceKernels.get();
            IntStream.range(0, chunks).parallel().forEach(ch -> {
                int from = ch * CHUNK, to = Math.min(n, from + CHUNK);
                double sum = 0;
                for (int i = from; i < to; i++) {
                    long r = kern.nearestTransposed(data, i * dim, t, k, dim, dot);
                    out[i] = (int) r;
                    sum += Float.intBitsToFloat((int) (r >>> 32));
                }
                partial[ch] = sum;
            });
            return Arrays.stream(partial).sum();
        }
        IntStream.range(0, chunks).parallel().forEach(ch -> {
            int from = ch * CHUNK, to = Math.min(n, from + CHUNK);
            double sum = 0;
            for (int i = from; i < to; i++) {
                int best = 0;
                float bestD = Float.POSITIVE_INFINITY;
                for (int j = 0; j < k; j++) {
                    float d = type.f32(data, i * dim, c, j * dim, dim);
                    if (d < bestD) {
                        bestD = d;
                        best = j;
                    }
                }
                out[i] = best;
                sum += bestD;
            }
            partial[ch] = sum;
        });
        return Arrays.stream(partial).sum();
    }

    /** The index of the nearest centroid to {@code v[off..off+dim)}. */
    public static int nearest(float[] v, int off, float[] c, int k, int dim, DistanceType type) {
        int best = 0;
        float bestD = Float.POSITIVE_INFINITY;
        for (int j = 0; j < k; j++) {
            float d = type.f32(v, off, c, j * dim, dim);
            if (d < bestD) {
                bestD = d;
                best = j;
            }
        }
        return best;
    }

    /** {@code k} distinct indices in {@code [0, n)} (partial Fisher-Yates). */
    static int[] sampleDistinct(int n, int k, Random rnd) {
        if (k * 4L < n) {
            java.util.HashSet<Integer> seen = new java.util.HashSet<>();
            int[] out = new int[k];
            int i = 0;
            while (i < k) {
                int x = rnd.nextInt(n);
                if (seen.add(x)) {
                    out[i++] = x;
                }
            }
            return out;
        }
        int[] all = new int[n];
        for (int i = 0; i < n; i++) {
            all[i] = i;
        }
        for (int i = 0; i < k; i++) {
            int j = i + rnd.nextInt(n - i);
            int t = all[i];
            all[i] = all[j];
            all[j] = t;
        }
        return Arrays.copyOf(all, k);
    }

    /** A seeded sample of {@code count} rows (all rows when {@code count >= n}), copied row-major. */
    public static float[] sampleRows(float[] data, int n, int dim, int count, long seed) {
        if (count >= n) {
            return Arrays.copyOf(data, n * dim);
        }
        int[] idx = sampleDistinct(n, count, new Random(seed));
        Arrays.sort(idx);
        float[] out = new float[count * dim];
        for (int i = 0; i < count; i++) {
            System.arraycopy(data, idx[i] * dim, out, i * dim, dim);
        }
        return out;
    }
}
