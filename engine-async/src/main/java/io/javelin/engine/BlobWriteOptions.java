package io.javelin.engine;

/**
 * Blob v2 settings of a write.
 *
 * @param allowExternalBlobOutsideBases accept external blob URIs that map to no registered (non-root) base
 *                                      path (Lance's {@code allow_external_blob_outside_bases}); off by default
 * @param packFileSizeThreshold         bytes after which a packed {@code .blob} sidecar is closed and the next
 *                                      one started (Lance's {@code blob_pack_file_size_threshold}, 1 GiB); 0 means
 *                                      the column's schema metadata or the default
 */
public record BlobWriteOptions(boolean allowExternalBlobOutsideBases, long packFileSizeThreshold) {

    public static final long DEFAULT_PACK_FILE_SIZE = 1L << 30;
    public static final BlobWriteOptions DEFAULTS = new BlobWriteOptions(false, 0);

    public BlobWriteOptions {
        if (packFileSizeThreshold < 0) {
            throw new IllegalArgumentException("packFileSizeThreshold must not be negative, got " + packFileSizeThreshold);
        }
    }

    public BlobWriteOptions withAllowExternalBlobOutsideBases(boolean on) {
        return new BlobWriteOptions(on, packFileSizeThreshold);
    }

    public BlobWriteOptions withPackFileSizeThreshold(long bytes) {
        return new BlobWriteOptions(allowExternalBlobOutsideBases, bytes);
    }
}
