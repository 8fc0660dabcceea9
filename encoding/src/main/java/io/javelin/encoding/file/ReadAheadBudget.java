package io.javelin.encoding.file;

/**
 * The read-ahead bytes of one dataset scan, shared by the file scans of all fragments it reads at once
 * (Lance's {@code io_buffer_size}): each file scan reserves the encoded bytes of a page it loads ahead and
 * returns them when the page becomes current or the scan ends. Without it, every concurrently read fragment
 * could hold its own full {@link ReadAhead#budgetBytes()}. A file scan may always hold one page ahead, so none
 * stalls behind the others; the bound is therefore this limit plus one page per file scan. Thread-safe.
 */
public final class ReadAheadBudget {

    private final long limitBytes;
    private long reserved; // guarded by this
    private long peak; // guarded by this

    public ReadAheadBudget(long limitBytes) {
        if (limitBytes <= 0) {
            throw new IllegalArgumentException("Read-ahead budget must be positive, got " + limitBytes);
        }
        this.limitBytes = limitBytes;
    }

    /** Reserves {@code bytes} if they fit; {@code force}: reserves them anyway (a file scan's one page ahead). */
    synchronized boolean reserve(long bytes, boolean force) {
        if (!force && reserved + bytes > limitBytes) {
            return false;
        }
        reserved += bytes;
        peak = Math.max(peak, reserved);
        return true;
    }

    synchronized void release(long bytes) {
        reserved -= bytes;
    }

    public long limitBytes() {
        return limitBytes;
    }

    /** Bytes reserved now. */
    public synchronized long reservedBytes() {
        return reserved;
    }

    /** Most bytes reserved at once so far. */
    public synchronized long peakBytes() {
        return peak;
    }
}
