package io.javelin.engine.maintenance;

/** What cleanup removed (Lance {@code RemovalStats}). */
public record CleanupStats(long oldVersions, long bytesRemoved, long dataFilesRemoved, long deletionFilesRemoved,
                           long transactionFilesRemoved, long indexFilesRemoved) {
}
