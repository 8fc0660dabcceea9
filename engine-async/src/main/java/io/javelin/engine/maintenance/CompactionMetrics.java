package io.javelin.engine.maintenance;

/** What a compaction did (Lance {@code CompactionMetrics}); all zero when there was nothing to compact. */
public record CompactionMetrics(int fragmentsRemoved, int fragmentsAdded, int filesRemoved, int filesAdded) implements java.io.Serializable {

    public static final CompactionMetrics NONE = new CompactionMetrics(0, 0, 0, 0);
}
