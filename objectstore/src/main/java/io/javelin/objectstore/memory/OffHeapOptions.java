package io.javelin.objectstore.memory;

/**
 * How this process allocates off-heap memory. Process-wide, like the memory itself, and chosen once: set it
 * with {@link #configure} before the first allocation (test runs do, from their JVM properties); afterwards
 * it is frozen.
 *
 * @param uninitialized read buffers come from {@code malloc}, not zeroed (false: every allocation zeroed, for
 *                      debugging code that might read bytes it never wrote)
 * @param poolBytes     freed blocks of at least 1 MiB kept for reuse, in bytes
 * @param traceHandles  remember where every live {@link Buffer} handle was made, so a leak report can name the
 *                      code that did not release it ({@link Buffer#liveTraces()}); slow, for debugging
 */
public record OffHeapOptions(boolean uninitialized, long poolBytes, boolean traceHandles) {

    public static final OffHeapOptions DEFAULTS = new OffHeapOptions(true, 256L << 20, false);

    private static OffHeapOptions current = DEFAULTS; // guarded by OffHeapOptions.class
    private static boolean frozen; // guarded by OffHeapOptions.class

    public OffHeapOptions {
        if (poolBytes < 0) {
            throw new IllegalArgumentException("poolBytes must be >= 0, got " + poolBytes);
        }
    }

    /**
     * Sets the options of this process. Idempotent for equal options.
     *
     * @throws IllegalStateException if memory was already allocated under other options
     */
    public static synchronized void configure(OffHeapOptions options) {
        java.util.Objects.requireNonNull(options, "options");
        if (frozen && !options.equals(current)) {
            throw new IllegalStateException("Off-heap memory is already in use with " + current
                    + "; configure it before the first allocation");
        }
        current = options;
    }

    /** The options in force; reading them freezes them. */
    public static synchronized OffHeapOptions current() {
        frozen = true;
        return current;
    }
}
