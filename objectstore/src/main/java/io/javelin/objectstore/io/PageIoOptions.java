package io.javelin.objectstore.io;

import io.javelin.objectstore.StoreTraits;
import java.util.Map;

/**
 * Scheduler settings. {@link #forStore} picks them by store kind ({@link StoreTraits#local()}), with Lance's
 * environment variables as overrides.
 *
 * @param ioParallelism   concurrent physical reads ({@code LANCE_IO_THREADS}; 8 local, 64 cloud)
 * @param ioBufferSize    bytes read but not yet delivered before dispatch waits ({@code LANCE_DEFAULT_IO_BUFFER_SIZE};
 *                        2 GiB for every kind, as Lance's scanner, but for the whole store here, not per scan);
 *                        0 = no byte backpressure
 * @param maxGap          largest gap read through to merge two ranges of one request (local: the 4 KiB block;
 *                        cloud: {@link #CLOUD_MAX_GAP}, see there)
 * @param maxIopSize      largest single read ({@code LANCE_MAX_IOP_SIZE}, 16 MiB): a longer page or coalesced range goes
 *                        out as several ranged GETs in parallel (measured on S3 with 20 ms latency: cutting Lance's
 *                        usual 8-16 MiB pages smaller made scans slower, not faster)
 * @param maxSparseRequest bytes of the ranges of one request of many small ranges (a take's rows): local stores read
 *                        such a request as one batch, so it is cut at 1 MiB; a cloud store gets the whole take as one
 *                        request and coalesces it into a few large GETs (unlimited)
 */
public record PageIoOptions(int ioParallelism, long ioBufferSize, long maxGap, long maxIopSize, long maxSparseRequest) {

    public static final long DEFAULT_MAX_IOP = 16L * 1024 * 1024;
    public static final long DEFAULT_IO_BUFFER = 2L * 1024 * 1024 * 1024;
    /**
     * Cloud stores merge ranges up to 256 KiB apart (Lance: 64 KiB). A GET costs a first-byte latency (tens of ms)
     * that would buy several MiB of transfer, so reading through a gap is cheaper than another request: the late
     * materialization of a filtered scan (1% of the rows: a vector row every ~50 KiB) then costs about a GET per
     * 16 MiB of pages, as Lance's whole-page reads do, instead of a GET per few rows. Larger gaps would make a
     * sparse take (1000 rows of millions: ~1 MiB apart) read whole columns.
     */
    public static final long CLOUD_MAX_GAP = 256L << 10;
    /** Local stores: bytes of one batched request of small reads (see {@link PageIoScheduler}). */
    public static final long LOCAL_MAX_SPARSE_REQUEST = 1L << 20;

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
        if (maxSparseRequest < 1) {
            throw new IllegalArgumentException("Invalid sparse request size: " + maxSparseRequest + " (must be >= 1)");
        }
    }

    /** Local-style options (sparse requests cut at 1 MiB). */
    public PageIoOptions(int ioParallelism, long ioBufferSize, long maxGap, long maxIopSize) {
        this(ioParallelism, ioBufferSize, maxGap, maxIopSize, LOCAL_MAX_SPARSE_REQUEST);
    }

    public static PageIoOptions forStore(StoreTraits traits) {
        return forStore(traits, System.getenv());
    }

    public static PageIoOptions forStore(StoreTraits traits, Map<String, String> env) {
        boolean local = traits.local();
        return new PageIoOptions(
                (int) env(env, "LANCE_IO_THREADS", traits.ioParallelism()),
                env(env, "LANCE_DEFAULT_IO_BUFFER_SIZE", DEFAULT_IO_BUFFER),
                local ? traits.blockSize() : Math.max(traits.blockSize(), CLOUD_MAX_GAP),
                env(env, "LANCE_MAX_IOP_SIZE", DEFAULT_MAX_IOP),
                local ? LOCAL_MAX_SPARSE_REQUEST : Long.MAX_VALUE);
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
        return new PageIoOptions(n, ioBufferSize, maxGap, maxIopSize, maxSparseRequest);
    }

    public PageIoOptions withIoBufferSize(long bytes) {
        return new PageIoOptions(ioParallelism, bytes, maxGap, maxIopSize, maxSparseRequest);
    }

    public PageIoOptions withMaxGap(long gap) {
        return new PageIoOptions(ioParallelism, ioBufferSize, gap, maxIopSize, maxSparseRequest);
    }

    public PageIoOptions withMaxIopSize(long size) {
        return new PageIoOptions(ioParallelism, ioBufferSize, maxGap, size, maxSparseRequest);
    }

    public PageIoOptions withMaxSparseRequest(long bytes) {
        return new PageIoOptions(ioParallelism, ioBufferSize, maxGap, maxIopSize, bytes);
    }
}
