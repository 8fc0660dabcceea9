package io.javelin.tx.rowid;

import java.util.ArrayList;
import java.util.List;

import io.javelin.tx.InvalidTableMetadataException;
import io.javelin.tx.pb.DataFragment;

/**
 * Assignment of stable row ids at commit time (Lance {@code assign_row_ids}), re-run on every retry against
 * the latest {@code next_row_id}. A fragment without ids gets {@code [next, next + physical_rows)}; one with
 * fewer ids than rows (an update or merge-insert preserving ids of moved rows: see {@link #preserve}) keeps
 * them and gets fresh ids for the rest; more ids than rows is an error.
 */
public final class RowIdAssigner {

    private RowIdAssigner() {
    }

    /** Assigns ids to {@code f} in place; returns the new {@code next_row_id}. */
    public static long assign(DataFragment.Builder f, long nextRowId) {
        long rows = f.getPhysicalRows();
        if (!f.hasInlineRowIds() && !f.hasExternalRowIds()) {
            FragmentRowIds.setRowIds(f, RowIdSequence.range(nextRowId, nextRowId + rows));
            return nextRowId + rows;
        }
        if (f.hasExternalRowIds()) {
            return nextRowId; // pre-written external ids cover the fragment (checked when read)
        }
        RowIdSequence given = RowIdCodec.decode(f.getInlineRowIds().toByteArray());
        long have = given.length();
        if (have == rows) {
            return nextRowId;
        }
        if (have > rows) {
            throw new InvalidTableMetadataException("Fragment has more row ids (" + have + ") than physical rows (" + rows + ")");
        }
        FragmentRowIds.setRowIds(f, given.extend(RowIdSequence.range(nextRowId, nextRowId + rows - have)));
        return nextRowId + rows - have;
    }

    /**
     * The hook for row-moving updates: rows written to a new fragment that keep their stable ids. The first
     * {@code ids.length} rows of the fragment get these ids; the commit assigns fresh ids to the rest.
     */
    public static DataFragment.Builder preserve(DataFragment.Builder f, long[] ids) {
        return FragmentRowIds.setRowIds(f, RowIdSequence.of(ids));
    }

    /** New rows: created-at and last-updated-at are both the committing version (Lance {@code build_version_meta}). */
    public static void stampNew(DataFragment.Builder f, long version) {
        var runs = RowVersions.uniform(f.getPhysicalRows(), version);
        FragmentRowIds.setCreatedAt(f, runs);
        FragmentRowIds.setLastUpdatedAt(f, runs);
    }

    /**
     * Rewritten rows (update): last-updated-at is the committing version; created-at is kept when the writer
     * carried it over from the original rows, else it becomes the committing version too.
     */
    public static void stampUpdated(DataFragment.Builder f, long version) {
        var runs = RowVersions.uniform(f.getPhysicalRows(), version);
        if (f.hasInlineCreatedAtVersions()) {
            // carried versions, with THIS_COMMIT (0) for the rows the writer inserted
            List<RowVersions.Run> carried = new ArrayList<>();
            for (RowVersions.Run r : RowIdCodec.decodeVersions(f.getInlineCreatedAtVersions().toByteArray())) {
                carried.add(r.version() == THIS_COMMIT ? new RowVersions.Run(r.rows(), version) : r);
            }
            FragmentRowIds.setCreatedAt(f, carried);
        } else if (!f.hasExternalCreatedAtVersions()) {
            FragmentRowIds.setCreatedAt(f, runs);
        }
        FragmentRowIds.setLastUpdatedAt(f, runs);
    }

    /** In carried created-at versions: a row the committing version creates (real versions start at 1). */
    public static final long THIS_COMMIT = 0;
}
