package io.javelin.engine.maintenance;

/**
 * Compaction settings, named and defaulted as Lance's {@code CompactionOptions}.
 *
 * @param targetRowsPerFragment          fragments with fewer live rows are merged with their neighbours into
 *                                       fragments of about this many rows (Lance default 1 Mi)
 * @param maxRowsPerGroup                rows per read batch while rewriting (Lance default 1024)
 * @param materializeDeletions           rewrite fragments whose deleted fraction is at least the threshold
 * @param materializeDeletionsThreshold  deleted rows / physical rows (Lance default 0.1)
 * @param deferIndexRemap                accepted for API parity: index files are never remapped by this engine
 *                                       yet; without stable row ids a rewritten fragment simply drops out of
 *                                       each index's coverage (queries scan it) until the index is rebuilt
 */
public record CompactionOptions(long targetRowsPerFragment, int maxRowsPerGroup, boolean materializeDeletions,
                                double materializeDeletionsThreshold, boolean deferIndexRemap) implements java.io.Serializable {

    public static final long DEFAULT_TARGET_ROWS_PER_FRAGMENT = 1024 * 1024;
    public static final int DEFAULT_MAX_ROWS_PER_GROUP = 1024;

    public CompactionOptions {
        if (targetRowsPerFragment <= 0 || maxRowsPerGroup <= 0) {
            throw new IllegalArgumentException("targetRowsPerFragment and maxRowsPerGroup must be positive");
        }
        if (!(materializeDeletionsThreshold >= 0 && materializeDeletionsThreshold <= 1)) {
            throw new IllegalArgumentException("materializeDeletionsThreshold must be in [0, 1], got " + materializeDeletionsThreshold);
        }
    }

    public static CompactionOptions defaults() {
        return new CompactionOptions(DEFAULT_TARGET_ROWS_PER_FRAGMENT, DEFAULT_MAX_ROWS_PER_GROUP, true, 0.1, false);
    }

    public CompactionOptions withTargetRowsPerFragment(long rows) {
        return new CompactionOptions(rows, maxRowsPerGroup, materializeDeletions, materializeDeletionsThreshold, deferIndexRemap);
    }

    public CompactionOptions withMaxRowsPerGroup(int rows) {
        return new CompactionOptions(targetRowsPerFragment, rows, materializeDeletions, materializeDeletionsThreshold, deferIndexRemap);
    }

    public CompactionOptions withMaterializeDeletions(boolean on, double threshold) {
        return new CompactionOptions(targetRowsPerFragment, maxRowsPerGroup, on, threshold, deferIndexRemap);
    }
}
