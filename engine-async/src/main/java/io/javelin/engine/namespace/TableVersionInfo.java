package io.javelin.engine.namespace;

/** One version of a table, as the spec's ListTableVersions lists it ({@code manifestSize} -1 when unknown). */
public record TableVersionInfo(long version, long timestampMillis, String manifestPath, long manifestSize) {
}
