package io.javelin.objectstore.io;

import io.javelin.objectstore.ByteRange;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns the ranges of one request into physical reads, as Lance's scheduler does: ranges (sorted
 * by offset) whose gap is at most {@code maxGap} are merged (overlap allowed), then every merged
 * range longer than {@code maxIopSize} is cut into {@code ceil(len / maxIopSize)} equal chunks, the
 * last taking the remainder. Pure: no I/O, no state.
 */
public final class RangePlanner {

    private RangePlanner() {
    }

    /**
     * @throws IllegalArgumentException if the ranges are not sorted by offset
     */
    public static List<ByteRange> plan(List<ByteRange> ranges, long maxGap, long maxIopSize) {
        if (maxGap < 0) {
            throw new IllegalArgumentException("Invalid max gap: " + maxGap + " (must be >= 0)");
        }
        if (maxIopSize < 1) {
            throw new IllegalArgumentException("Invalid max IOP size: " + maxIopSize + " (must be >= 1)");
        }
        List<ByteRange> merged = new ArrayList<>();
        long start = -1;
        long end = -1;
        ByteRange prev = null;
        for (ByteRange r : ranges) {
            if (prev != null && r.offset() < prev.offset()) {
                throw new IllegalArgumentException("Ranges must be sorted by offset: " + prev + " before " + r);
            }
            prev = r;
            if (start < 0) {
                start = r.offset();
                end = r.end();
            } else if (r.offset() <= end + maxGap) {
                end = Math.max(end, r.end());
            } else {
                merged.add(new ByteRange(start, end - start));
                start = r.offset();
                end = r.end();
            }
        }
        if (start >= 0) {
            merged.add(new ByteRange(start, end - start));
        }
        List<ByteRange> iops = new ArrayList<>(merged.size());
        for (ByteRange m : merged) {
            if (m.length() == 0) {
                continue;
            }
            long n = (m.length() + maxIopSize - 1) / maxIopSize;
            long chunk = m.length() / n;
            for (long i = 0; i < n; i++) {
                long s = m.offset() + i * chunk;
                long e = i == n - 1 ? m.end() : s + chunk;
                iops.add(new ByteRange(s, e - s));
            }
        }
        return iops;
    }
}
