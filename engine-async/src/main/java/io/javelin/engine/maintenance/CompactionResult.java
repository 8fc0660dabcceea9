package io.javelin.engine.maintenance;

import io.javelin.engine.Dataset;

/** The dataset after compaction (the same version when there was nothing to do; close it) and the metrics. */
public record CompactionResult(Dataset dataset, CompactionMetrics metrics) {
}
