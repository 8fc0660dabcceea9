package io.javelin.tx;

import io.javelin.tx.pb.DataFragment;

/** Metadata-level view of one fragment: rows come from the manifest alone (Lance {@code count_rows}). */
public record FragmentInfo(long id, long physicalRows, long deletedRows, DataFragment fragment) {

    public static FragmentInfo of(DataFragment f) {
        long deleted = f.hasDeletionFile() ? f.getDeletionFile().getNumDeletedRows() : 0;
        return new FragmentInfo(f.getId(), f.getPhysicalRows(), deleted, f);
    }

    public long liveRows() {
        return physicalRows - deletedRows;
    }
}
