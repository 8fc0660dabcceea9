package io.javelin.engine.maintenance;

/**
 * What cleanup removed (Lance {@code RemovalStats}), plus the staging files of writes that were killed before
 * publishing ({@code temporaryFilesRemoved}; only the local store has such files).
 */
public record CleanupStats(long oldVersions, long bytesRemoved, long dataFilesRemoved, long deletionFilesRemoved,
                           long transactionFilesRemoved, long indexFilesRemoved, long temporaryFilesRemoved) {

    public CleanupStats withTemporaryFilesRemoved(long n) {
        return new CleanupStats(oldVersions, bytesRemoved, dataFilesRemoved, deletionFilesRemoved, transactionFilesRemoved,
                indexFilesRemoved, n);
    }

    public CleanupStats(long oldVersions, long bytesRemoved, long dataFilesRemoved, long deletionFilesRemoved,
                        long transactionFilesRemoved, long indexFilesRemoved) {
        this(oldVersions, bytesRemoved, dataFilesRemoved, deletionFilesRemoved, transactionFilesRemoved, indexFilesRemoved, 0);
    }
}
