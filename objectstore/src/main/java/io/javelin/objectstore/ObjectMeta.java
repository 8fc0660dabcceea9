package io.javelin.objectstore;

import java.time.Instant;

/**
 * What a store knows about one object.
 *
 * @param path         key relative to the store root
 * @param size         size in bytes
 * @param lastModified modification time, or null when the store did not say
 * @param eTag         entity tag (S3, Azure; content hash plus generation elsewhere), or null
 * @param version      GCS generation, or the store's version of the object; null when unknown
 */
public record ObjectMeta(String path, long size, Instant lastModified, String eTag, String version) {
}
