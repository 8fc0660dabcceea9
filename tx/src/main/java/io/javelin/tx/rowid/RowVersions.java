package io.javelin.tx.rowid;

import java.util.ArrayList;
import java.util.List;
import org.roaringbitmap.RoaringBitmap;

/**
 * Per-row dataset versions of a fragment (created-at or last-updated-at), run-length encoded as Lance's
 * {@code RowDatasetVersionSequence}.
 */
public final class RowVersions {

    /** {@code rows} consecutive rows carrying {@code version}. */
    public record Run(long rows, long version) {
    }

    private RowVersions() {
    }

    public static List<Run> uniform(long rows, long version) {
        return List.of(new Run(rows, version));
    }

    /** One version per row. */
    public static long[] expand(List<Run> runs) {
        long n = 0;
        for (Run r : runs) {
            n += r.rows();
        }
        long[] out = new long[Math.toIntExact(n)];
        int at = 0;
        for (Run r : runs) {
            for (long i = 0; i < r.rows(); i++) {
                out[at++] = r.version();
            }
        }
        return out;
    }

    /** Runs of equal neighbours. */
    public static List<Run> compress(long[] versions) {
        List<Run> out = new ArrayList<>();
        int i = 0;
        while (i < versions.length) {
            int j = i;
            while (j < versions.length && versions[j] == versions[i]) {
                j++;
            }
            out.add(new Run(j - i, versions[i]));
            i = j;
        }
        return out;
    }

    /** The versions of the rows not in {@code deletedOffsets}. */
    public static long[] live(long[] versions, RoaringBitmap deletedOffsets) {
        if (deletedOffsets == null || deletedOffsets.isEmpty()) {
            return versions;
        }
        long[] out = new long[versions.length - (int) deletedOffsets.rangeCardinality(0, versions.length)];
        int n = 0;
        for (int i = 0; i < versions.length; i++) {
            if (!deletedOffsets.contains(i)) {
                out[n++] = versions[i];
            }
        }
        return out;
    }
}
