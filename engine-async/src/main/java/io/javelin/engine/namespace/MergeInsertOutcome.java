package io.javelin.engine.namespace;

/** Row counts of a merge-insert and the version it committed. */
public record MergeInsertOutcome(long updated, long inserted, long deleted, long version) {
}
