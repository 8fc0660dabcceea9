package io.javelin.engine;

import io.javelin.encoding.writer.LanceFileVersion;

/**
 * Settings of a write (immutable; {@code with*} return copies).
 *
 * @param mode               create, append or overwrite
 * @param dataStorageVersion Lance file version of new data files (ignored on append: the dataset's wins)
 * @param maxRowsPerFile     a data file (one fragment) is closed after this many rows (Lance default 1 Mi)
 * @param enableStableRowIds when the write creates the dataset: stable row ids (Lance {@code enable_stable_row_ids})
 */
public record WriteParams(WriteMode mode, LanceFileVersion dataStorageVersion, long maxRowsPerFile, boolean enableStableRowIds) {

    public static final long DEFAULT_MAX_ROWS_PER_FILE = 1024 * 1024;

    public WriteParams {
        if (mode == null || dataStorageVersion == null) {
            throw new IllegalArgumentException("mode and dataStorageVersion are required");
        }
        if (maxRowsPerFile <= 0) {
            throw new IllegalArgumentException("maxRowsPerFile must be positive, got " + maxRowsPerFile);
        }
    }

    public WriteParams(WriteMode mode, LanceFileVersion dataStorageVersion, long maxRowsPerFile) {
        this(mode, dataStorageVersion, maxRowsPerFile, false);
    }

    public static WriteParams of(WriteMode mode) {
        return new WriteParams(mode, LanceFileVersion.V2_1, DEFAULT_MAX_ROWS_PER_FILE);
    }

    public WriteParams withEnableStableRowIds(boolean on) {
        return new WriteParams(mode, dataStorageVersion, maxRowsPerFile, on);
    }

    public WriteParams withMode(WriteMode m) {
        return new WriteParams(m, dataStorageVersion, maxRowsPerFile, enableStableRowIds);
    }

    public WriteParams withDataStorageVersion(LanceFileVersion v) {
        return new WriteParams(mode, v, maxRowsPerFile, enableStableRowIds);
    }

    public WriteParams withMaxRowsPerFile(long rows) {
        return new WriteParams(mode, dataStorageVersion, rows, enableStableRowIds);
    }
}
