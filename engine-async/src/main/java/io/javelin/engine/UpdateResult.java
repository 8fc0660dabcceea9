package io.javelin.engine;

/** The outcome of {@link Dataset#update}: the new version (this one when nothing matched) and how many rows changed. */
public record UpdateResult(Dataset dataset, long rowsUpdated) {
}
