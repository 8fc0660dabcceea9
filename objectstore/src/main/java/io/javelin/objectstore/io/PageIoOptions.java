package io.javelin.objectstore.io;

import io.javelin.objectstore.StoreTraits;
import java.util.Map;

/**
 * Scheduler settings, with Lance's defaults and environment variables.
 *
 * @param ioParallelism concurrent physical reads ({@code LANCE_IO_THREADS}; 8 local, 64 cloud)
 * @param ioBufferSize  bytes read but not yet delivered before dispatch waits
 *                      ({@code LANCE_DEFAULT_IO_BUFFER_SIZE}, 2 GiB); 0 = no byte backpressure
 * @param maxGap        largest gap read through to merge two ranges (4 KiB local, 64 KiB cloud)
 * @param maxIopSize    largest single read ({@code LANCE_MAX_IOP_SIZE}, 16 MiB)
 */
public record PageIoOptions(int ioParallelism, long ioBufferSize, long maxGap, long maxIopSize) {

    public static final long DEFAULT_MAX_IOP = 16L * 1024 * 1024;
    public static final long DEFAULT_IO_BUFFER = 2L * 1024 * 1024 * 1024;

    public PageIoOptions {
        if (ioParallelism < 1) {
            throw new IllegalArgumentException("Invalid io parallelism: " + ioParallelism + " (must be >= 1)");
        }
        if (ioBufferSize < 0) {
            throw new IllegalArgumentException("Invalid io buffer size: " + ioBufferSize + " (must be >= 0)");
        }
        if (maxGap < 0 || maxIopSize < 1) {
            throw new IllegalArgumentException("Invalid gap/IOP size: " + maxGap + "/" + maxIopSize);
        }
    }

    public static PageIoOptions forStore(StoreTraits traits) {
        return forStore(traits, System.getenv());
    }

    public static PageIoOptions forStore(StoreTraits traits, Map<String, String> env) {
        return new PageIoOptions(
                (int) env(env, "LANCE_IO_THREADS", traits.ioParallelism()),
                env(env, "LANCE_DEFAULT_IO_BUFFER_SIZE", DEFAULT_IO_BUFFER),
                traits.blockSize(),
                env(env, "LANCE_MAX_IOP_SIZE", DEFAULT_MAX_IOP));
    }

    private static long env(Map<String, String> env, String name, long dflt) {
        String v = env.get(name);
        if (v == null || v.isBlank()) {
            return dflt;
        }
        try {
            return Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("Invalid " + name + ": '" + v + "' (expected an integer)");
        }
    }

    public PageIoOptions withIoParallelism(int n) {
        return new PageIoOptions(n, ioBufferSize, maxGap, maxIopSize);
    }

    public PageIoOptions withIoBufferSize(long bytes) {
        return new PageIoOptions(ioParallelism, bytes, maxGap, maxIopSize);
    }

    public PageIoOptions withMaxGap(long gap) {
        return new PageIoOptions(ioParallelism, ioBufferSize, gap, maxIopSize);
    }

    public PageIoOptions withMaxIopSize(long size) {
        return new PageIoOptions(ioParallelism, ioBufferSize, maxGap, size);
    }
}
