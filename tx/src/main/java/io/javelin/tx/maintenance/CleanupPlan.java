package io.javelin.tx.maintenance;

import java.util.List;

/**
 * What cleanup deletes: old manifests, then unreferenced files, with Lance's {@code RemovalStats} counts.
 * Paths are relative to the dataset root.
 */
public record CleanupPlan(List<Long> oldVersions, List<String> manifests, List<String> files, long bytesRemoved,
                          int dataFiles, int deletionFiles, int transactionFiles, int indexFiles, List<Removal> removals) {

    /** One object cleanup deletes, its size and why (what a dry run prints). */
    public record Removal(String path, long bytes, String reason) {
    }

    public CleanupPlan {
        oldVersions = List.copyOf(oldVersions);
        manifests = List.copyOf(manifests);
        files = List.copyOf(files);
        removals = List.copyOf(removals);
    }
}
