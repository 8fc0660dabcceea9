package io.javelin.engine;

import io.javelin.encoding.writer.LanceFileVersion;

/**
 * Settings of a write (immutable; {@code with*} return copies).
 *
 * @param mode               create, append or overwrite
 * @param dataStorageVersion Lance file version of new data files (ignored on append: the dataset's wins)
 * @param maxRowsPerFile     a data file (one fragment) is closed after this many rows (Lance default 1 Mi)
 * @param enableStableRowIds when the write creates the dataset: stable row ids (Lance {@code enable_stable_row_ids})
 * @param tableConfig        table config set when a write creates or overwrites the dataset, e.g.
 *                           {@code lance.manifest.layout=tree} (ignored on append)
 * @param blobs              blob v2 write settings (external URIs outside base paths, packed sidecar roll size)
 * @param maxBytesPerFile    Lance {@code max_bytes_per_file}: a data file is also closed once the batches written
 *                           into it reach this many bytes of Arrow data (Lance default 90 GB)
 */
public record WriteParams(WriteMode mode, LanceFileVersion dataStorageVersion, long maxRowsPerFile, boolean enableStableRowIds,
                          java.util.Map<String, String> tableConfig, BlobWriteOptions blobs, long maxBytesPerFile) {

    public static final long DEFAULT_MAX_ROWS_PER_FILE = 1024 * 1024;
    /** Lance's default {@code max_bytes_per_file}: 90 GB. */
    public static final long DEFAULT_MAX_BYTES_PER_FILE = 90L * 1024 * 1024 * 1024;

    public WriteParams {
        if (mode == null || dataStorageVersion == null) {
            throw new IllegalArgumentException("mode and dataStorageVersion are required");
        }
        if (maxRowsPerFile <= 0) {
            throw new IllegalArgumentException("maxRowsPerFile must be positive, got " + maxRowsPerFile);
        }
        if (maxBytesPerFile <= 0) {
            throw new IllegalArgumentException("maxBytesPerFile must be positive, got " + maxBytesPerFile);
        }
        tableConfig = tableConfig == null ? java.util.Map.of() : java.util.Map.copyOf(tableConfig);
        blobs = blobs == null ? BlobWriteOptions.DEFAULTS : blobs;
    }

    public WriteParams(WriteMode mode, LanceFileVersion dataStorageVersion, long maxRowsPerFile, boolean enableStableRowIds,
                       java.util.Map<String, String> tableConfig, BlobWriteOptions blobs) {
        this(mode, dataStorageVersion, maxRowsPerFile, enableStableRowIds, tableConfig, blobs, DEFAULT_MAX_BYTES_PER_FILE);
    }

    public WriteParams(WriteMode mode, LanceFileVersion dataStorageVersion, long maxRowsPerFile, boolean enableStableRowIds,
                       java.util.Map<String, String> tableConfig) {
        this(mode, dataStorageVersion, maxRowsPerFile, enableStableRowIds, tableConfig, BlobWriteOptions.DEFAULTS);
    }

    public WriteParams withBlobs(BlobWriteOptions b) {
        return new WriteParams(mode, dataStorageVersion, maxRowsPerFile, enableStableRowIds, tableConfig, b, maxBytesPerFile);
    }

    public WriteParams withMaxBytesPerFile(long bytes) {
        return new WriteParams(mode, dataStorageVersion, maxRowsPerFile, enableStableRowIds, tableConfig, blobs, bytes);
    }

    public WriteParams(WriteMode mode, LanceFileVersion dataStorageVersion, long maxRowsPerFile,
                       java.util.Map<String, String> tableConfig) {
        this(mode, dataStorageVersion, maxRowsPerFile, false, tableConfig);
    }

    public WriteParams(WriteMode mode, LanceFileVersion dataStorageVersion, long maxRowsPerFile, boolean enableStableRowIds) {
        this(mode, dataStorageVersion, maxRowsPerFile, enableStableRowIds, java.util.Map.of());
    }

    /** Table config for a create/overwrite, e.g. {@code Map.of("lance.manifest.layout", "tree")}. */
    public WriteParams withTableConfig(java.util.Map<String, String> config) {
        return new WriteParams(mode, dataStorageVersion, maxRowsPerFile, enableStableRowIds, config, blobs, maxBytesPerFile);
    }

    public WriteParams(WriteMode mode, LanceFileVersion dataStorageVersion, long maxRowsPerFile) {
        this(mode, dataStorageVersion, maxRowsPerFile, false);
    }

    public static WriteParams of(WriteMode mode) {
        return new WriteParams(mode, LanceFileVersion.V2_1, DEFAULT_MAX_ROWS_PER_FILE);
    }

    public WriteParams withEnableStableRowIds(boolean on) {
        return new WriteParams(mode, dataStorageVersion, maxRowsPerFile, on, tableConfig, blobs, maxBytesPerFile);
    }

    public WriteParams withMode(WriteMode m) {
        return new WriteParams(m, dataStorageVersion, maxRowsPerFile, enableStableRowIds, tableConfig, blobs, maxBytesPerFile);
    }

    public WriteParams withDataStorageVersion(LanceFileVersion v) {
        return new WriteParams(mode, v, maxRowsPerFile, enableStableRowIds, tableConfig, blobs, maxBytesPerFile);
    }

    public WriteParams withMaxRowsPerFile(long rows) {
        return new WriteParams(mode, dataStorageVersion, rows, enableStableRowIds, tableConfig, blobs, maxBytesPerFile);
    }
}
