package io.javelin.engine;

/**
 * What a scan returns for a blob v2 column ({@link Scanner#scan(org.apache.arrow.memory.BufferAllocator, BlobHandling)}).
 */
public enum BlobHandling {
    /** The stored descriptor struct {@code (kind, position, size, blob_id, blob_uri)}, no payload I/O (the default, as lance-core). */
    DESCRIPTORS,
    /** Every blob as a {@code large_binary} value with its whole payload (Lance's {@code blob_handling="all_binary"}). */
    ALL_BINARY,
    /**
     * The column's logical write shape: payloads in {@code data}, external objects kept as {@code uri}
     * (and {@code position}/{@code size}); what a rewrite (compaction) writes back.
     */
    LOGICAL
}
