package io.javelin.tx.version;

/** Where version {@code version} lives; {@code size} is -1 when not known from a listing. */
public record ManifestLocation(long version, String path, ManifestNaming naming, long size) {
}
