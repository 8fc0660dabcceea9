package io.javelin.engine;

import java.time.Instant;

/** One committed version: number, commit time, the operation that made it and its live row count. */
public record VersionInfo(long version, Instant timestamp, String operation, long rows, int fragments) {
}
