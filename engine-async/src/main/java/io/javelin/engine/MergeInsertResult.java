package io.javelin.engine;

/**
 * The outcome of a merge-insert (Lance {@code MergeStats}): the new version (the same one when nothing
 * changed) and the rows inserted, updated and deleted.
 */
public record MergeInsertResult(Dataset dataset, long inserted, long updated, long deleted) {
}
