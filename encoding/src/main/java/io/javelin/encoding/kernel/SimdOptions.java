package io.javelin.encoding.kernel;

/**
 * Which SIMD kernels this process uses: the Vector API ones (when the {@code jdk.incubator.vector} module is
 * present and {@code enabled}), of at most {@code maxBits} per vector, or the scalar ones. A process-wide
 * choice, made once: the vector species are constants so that the JIT can compile them to fixed-width
 * instructions. Set it with {@link #configure} before the first kernel call (the CLI does, from its flags;
 * test runs do, from their JVM properties); afterwards the choice is frozen.
 *
 * @param enabled use the Vector API kernels when available
 * @param maxBits widest vector, in bits (128 and 256 run the NEON / AVX2 paths on an AVX-512 machine)
 */
public record SimdOptions(boolean enabled, int maxBits) {

    public static final SimdOptions DEFAULTS = new SimdOptions(true, Integer.MAX_VALUE);

    private static SimdOptions current = DEFAULTS; // guarded by SimdOptions.class
    private static boolean frozen; // guarded by SimdOptions.class

    public SimdOptions {
        if (maxBits < 64) {
            throw new IllegalArgumentException("maxBits must be at least 64, got " + maxBits);
        }
    }

    /**
     * Chooses the kernels of this process. Idempotent for equal options.
     *
     * @throws IllegalStateException if kernels were already selected with other options
     */
    public static synchronized void configure(SimdOptions options) {
        java.util.Objects.requireNonNull(options, "options");
        if (frozen && !options.equals(current)) {
            throw new IllegalStateException("SIMD kernels are already selected with " + current
                    + "; configure them before the first kernel call");
        }
        current = options;
    }

    /** The options in force; reading them freezes the choice. */
    public static synchronized SimdOptions current() {
        frozen = true;
        return current;
    }
}
