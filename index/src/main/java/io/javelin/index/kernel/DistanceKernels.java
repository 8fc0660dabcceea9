package io.javelin.index.kernel;

import java.lang.foreign.MemorySegment;

/**
 * Synchronous distance kernels over vectors stored in {@link MemorySegment}s (little-endian,
 * element-packed, heap or off-heap). Two implementations exist: {@link ScalarDistanceKernels}
 * (plain loops, always available) and {@code VectorDistanceKernels} (jdk.incubator.vector). The
 * vector one is chosen at class-load time when the incubator module is in the boot layer, unless
 * the system property {@code javelin.simd.disable=true} forces the scalar one (the same rule as the
 * encoding kernels).
 *
 * <p>Offsets are byte offsets; {@code dim} counts elements. Kernels never allocate, never block,
 * do not validate (callers check bounds once per batch) and know nothing of Reactor.
 *
 * <p>Conventions follow Lance (lance-linalg): {@code l2} is the <em>squared</em> Euclidean
 * distance; {@code dot*} return the plain inner product (Lance's dot <em>distance</em>,
 * {@code 1 - x·y}, is applied by the caller, see {@code DistanceType}); the cosine distance is
 * {@code 1 - x·y / (|x|·|y|)}; hamming counts differing bits. Element types: f32, f16 (IEEE
 * binary16), bf16 (bfloat16) and u8.
 */
public interface DistanceKernels {

    /** The kernels this JVM uses. */
    static DistanceKernels get() {
        return Holder.INSTANCE;
    }

    /** Short name of the implementation, e.g. "vector(512-bit)" or "scalar". */
    String name();

    // ---- float32 ----

    /** Squared L2 distance of two f32 vectors. */
    float l2F32(MemorySegment a, long aOff, MemorySegment b, long bOff, int dim);

    /** Plain inner product {@code Σ a_i b_i} of two f32 vectors. */
    float dotF32(MemorySegment a, long aOff, MemorySegment b, long bOff, int dim);

    /** Squared norm {@code Σ a_i²}. */
    float normSqF32(MemorySegment a, long aOff, int dim);

    /**
     * Cosine distance {@code 1 - a·b/(|a||b|)} computed in one pass. Returns 1 when either vector
     * has zero norm (Lance returns NaN there; callers that need Lance's NaN check the norms).
     */
    float cosineF32(MemorySegment a, long aOff, MemorySegment b, long bOff, int dim);

    /** Squared L2 over heap arrays ({@code aOff}/{@code bOff} in elements). */
    float l2F32(float[] a, int aOff, float[] b, int bOff, int dim);

    /** Inner product over heap arrays ({@code aOff}/{@code bOff} in elements). */
    float dotF32(float[] a, int aOff, float[] b, int bOff, int dim);

    /**
     * The nearest of {@code k} centroids to {@code x[xOff..xOff+dim)}, the centroids stored transposed
     * ({@code t[d*k + j]} is dimension {@code d} of centroid {@code j}: k-means assignment and PQ encoding
     * scan many centroids per vector, so lanes run across centroids and no horizontal sum is needed).
     * Distance: squared L2, or {@code 1 - x·c} when {@code dot}. Returns
     * {@code (floatBits(distance) << 32) | index}; ties and NaN distances keep the lowest index
     * (index 0 and +Inf when no distance is a number).
     */
    default long nearestTransposed(float[] x, int xOff, float[] t, int k, int dim, boolean dot) {
        int best = 0;
        float bestD = Float.POSITIVE_INFINITY;
        for (int j = 0; j < k; j++) {
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

    /** Row-major {@code [k][dim]} centroids to the {@code [dim][k]} layout of {@link #nearestTransposed}. */
    static float[] transposeCentroids(float[] c, int k, int dim) {
        float[] t = new float[k * dim];
        for (int j = 0; j < k; j++) {
            for (int d = 0; d < dim; d++) {
                t[d * k + j] = c[j * dim + d];
            }
        }
        return t;
    }

    /** Cosine distance over heap arrays. */
    default float cosineF32(float[] a, int aOff, float[] b, int bOff, int dim) {
        return cosineFromSums(dotF32(a, aOff, b, bOff, dim), dotF32(a, aOff, a, aOff, dim), dotF32(b, bOff, b, bOff, dim));
    }

    // ---- float16 (IEEE binary16) ----

    float l2F16(MemorySegment a, long aOff, MemorySegment b, long bOff, int dim);

    float dotF16(MemorySegment a, long aOff, MemorySegment b, long bOff, int dim);

    float cosineF16(MemorySegment a, long aOff, MemorySegment b, long bOff, int dim);

    // ---- bfloat16 ----

    float l2Bf16(MemorySegment a, long aOff, MemorySegment b, long bOff, int dim);

    float dotBf16(MemorySegment a, long aOff, MemorySegment b, long bOff, int dim);

    float cosineBf16(MemorySegment a, long aOff, MemorySegment b, long bOff, int dim);

    // ---- uint8 ----

    /** Squared L2 over unsigned bytes (exact in 32-bit integer arithmetic, returned as float). */
    float l2U8(MemorySegment a, long aOff, MemorySegment b, long bOff, int dim);

    /** Inner product over unsigned bytes. */
    float dotU8(MemorySegment a, long aOff, MemorySegment b, long bOff, int dim);

    float cosineU8(MemorySegment a, long aOff, MemorySegment b, long bOff, int dim);

    // ---- binary ----

    /** Number of differing bits between two byte strings of {@code numBytes} bytes. */
    long hamming(MemorySegment a, long aOff, MemorySegment b, long bOff, long numBytes);

    /** Cosine distance from the three partial sums, with Lance's zero-norm fallback. */
    static float cosineFromSums(double dot, double normA, double normB) {
        double denom = Math.sqrt(normA) * Math.sqrt(normB);
        if (denom == 0) {
            return 1f;
        }
        return (float) (1.0 - dot / denom);
    }

    final class Holder {
        static final DistanceKernels INSTANCE = load();

        private Holder() {
        }

        static boolean vectorModulePresent() {
            return ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent();
        }

        /** The vector implementation, or null when the Vector API cannot be used on this JVM. */
        public static DistanceKernels vectorOrNull() {
            if (!vectorModulePresent()) {
                return null;
            }
            try {
                return (DistanceKernels) Class.forName("io.javelin.index.kernel.VectorDistanceKernels")
                        .getDeclaredConstructor().newInstance();
            } catch (ReflectiveOperationException | LinkageError e) {
                return null;
            }
        }

        private static DistanceKernels load() {
            if (io.javelin.encoding.kernel.SimdOptions.current().enabled()) {
                DistanceKernels v = vectorOrNull();
                if (v != null) {
                    return v;
                }
            }
            return new ScalarDistanceKernels();
        }
    }
}
