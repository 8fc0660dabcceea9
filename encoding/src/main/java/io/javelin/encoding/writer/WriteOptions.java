package io.javelin.encoding.writer;

/**
 * Settings of one file write.
 *
 * @param version       target file version
 * @param pageSizeBytes a column's buffered data is flushed as a page when it reaches this size
 */
public record WriteOptions(LanceFileVersion version, long pageSizeBytes) {
    public static final long DEFAULT_PAGE_SIZE = 8L << 20;

    public WriteOptions {
        if (version == null) {
            throw new IllegalArgumentException("version is null");
        }
        if (pageSizeBytes < 1024) {
            throw new IllegalArgumentException("Page size must be at least 1024 bytes, got " + pageSizeBytes);
        }
    }

    public static WriteOptions defaults() {
        return new WriteOptions(LanceFileVersion.V2_1, DEFAULT_PAGE_SIZE);
    }

    public static WriteOptions of(LanceFileVersion version) {
        return new WriteOptions(version, DEFAULT_PAGE_SIZE);
    }

    public WriteOptions withPageSize(long bytes) {
        return new WriteOptions(version, bytes);
    }
}
