package io.javelin.engine.namespace;

/** Rows an update changed and the version it committed. */
public record UpdateOutcome(long updatedRows, long version) {
}
