package io.javelin.tx.tree;

import static io.javelin.tx.tree.CorruptSnapshotException.check;

import io.javelin.tx.pb.DataFile;
import io.javelin.tx.pb.DataFragment;
import io.javelin.tx.pb.DataOverlayFile;
import io.javelin.tx.pb.FragmentAction;
import io.javelin.tx.pb.FragmentTreeMutation;
import io.javelin.tx.pb.ReplaceDataFile;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** Fragment-record rules and the semantics of the storage actions. */
public final class Records {

    static final long MAX_ID = 0xFFFF_FFFFL;

    private Records() {
    }

    /** Visible rows of a record: physical rows minus deleted rows. */
    public static long visibleRows(DataFragment f) {
        return f.getPhysicalRows() - (f.hasDeletionFile() ? f.getDeletionFile().getNumDeletedRows() : 0);
    }

    /** Checks the record rules that hold for every record stored in or produced by a tree. */
    public static void checkRecord(DataFragment f) {
        check(f.getId() >= 0 && f.getId() <= MAX_ID, Rule.R16_LEAF_IDS, "fragment id %d does not fit in u32", f.getId());
        if (f.hasDeletionFile()) {
            long deleted = f.getDeletionFile().getNumDeletedRows();
            check(deleted > 0, Rule.R23_COUNTS, "deletion file of fragment %d has no num_deleted_rows", f.getId());
            check(deleted <= f.getPhysicalRows(), Rule.R23_COUNTS,
                    "fragment %d deletes %d of %d physical rows", f.getId(), deleted, f.getPhysicalRows());
        }
        for (DataFile df : f.getFilesList()) {
            checkDataFile(df);
        }
        for (DataOverlayFile o : f.getOverlaysList()) {
            checkDataFile(o.getDataFile());
        }
    }

    /** DataFile mapping rules: no -1 field ids; legacy files have no column indices, others one per field. */
    public static void checkDataFile(DataFile df) {
        for (int field : df.getFieldsList()) {
            check(field != -1, Rule.R20_MAPPING, "data file %s stores field id -1", df.getPath());
        }
        boolean legacy = df.getFileMajorVersion() == 0 && df.getFileMinorVersion() < 3;
        if (legacy) {
            check(df.getColumnIndicesCount() == 0, Rule.R20_MAPPING,
                    "legacy data file %s has column indices", df.getPath());
            return;
        }
        check(df.getColumnIndicesCount() == df.getFieldsCount(), Rule.R20_MAPPING,
                "data file %s has %d fields but %d column indices", df.getPath(), df.getFieldsCount(),
                df.getColumnIndicesCount());
        Set<Integer> seen = new HashSet<>();
        for (int c : df.getColumnIndicesList()) {
            check(c >= -1, Rule.R20_MAPPING, "data file %s has column index %d", df.getPath(), c);
            check(c == -1 || seen.add(c), Rule.R20_MAPPING, "data file %s repeats column index %d", df.getPath(), c);
        }
    }

    /** Checks that a mutation carries one recognized action with its payload; returns its target id. */
    public static long checkAction(FragmentTreeMutation m) {
        check(m.hasAction(), Rule.R39_ACTION, "mutation %d has no action", m.getActionSequence());
        FragmentAction a = m.getAction();
        return switch (a.getActionCase()) {
            case UPSERT_FRAGMENT -> a.getUpsertFragment().getId();
            case REMOVE_FRAGMENT -> a.getRemoveFragment();
            case ADD_DATA_FILE -> {
                check(a.getAddDataFile().hasFile(), Rule.R39_ACTION, "add_data_file without file");
                yield a.getAddDataFile().getFragId();
            }
            case REMOVE_DATA_FILE -> a.getRemoveDataFile().getFragId();
            case ADD_DELETION_FILE -> {
                check(a.getAddDeletionFile().hasDeletionFile(), Rule.R39_ACTION, "add_deletion_file without file");
                yield a.getAddDeletionFile().getFragId();
            }
            case CLEAR_DELETION_FILE -> a.getClearDeletionFile().getFragId();
            case REPLACE_DATA_FILE -> a.getReplaceDataFile().getFragId();
            case ACTION_NOT_SET -> throw new CorruptSnapshotException(Rule.R39_ACTION,
                    "mutation " + m.getActionSequence() + " selects no recognized action");
        };
    }

    /** Target fragment id of an action (which must be valid). */
    public static long target(FragmentAction a) {
        return checkAction(FragmentTreeMutation.newBuilder().setAction(a).build());
    }

    /**
     * Applies one action to a record ({@code null} = absent) and returns the result
     * ({@code null} = absent). Removal of an absent fragment, a missing path or a missing deletion
     * file is a no-op; every other action requires the fragment to exist.
     */
    public static DataFragment apply(DataFragment before, FragmentAction a) {
        long id = target(a);
        switch (a.getActionCase()) {
            case UPSERT_FRAGMENT:
                return a.getUpsertFragment();
            case REMOVE_FRAGMENT:
                return null;
            default:
                break;
        }
        check(before != null, Rule.R43_MISSING_FRAGMENT, "%s targets missing fragment %d", a.getActionCase(), id);
        DataFragment.Builder b = before.toBuilder();
        switch (a.getActionCase()) {
            case ADD_DATA_FILE -> b.addFiles(a.getAddDataFile().getFile());
            case REMOVE_DATA_FILE -> {
                String path = a.getRemoveDataFile().getPath();
                List<DataFile> kept = before.getFilesList().stream().filter(f -> !f.getPath().equals(path)).toList();
                b.clearFiles().addAllFiles(kept);
            }
            case ADD_DELETION_FILE -> b.setDeletionFile(a.getAddDeletionFile().getDeletionFile());
            case CLEAR_DELETION_FILE -> b.clearDeletionFile();
            case REPLACE_DATA_FILE -> {
                ReplaceDataFile r = a.getReplaceDataFile();
                int slot = -1;
                for (int i = 0; i < before.getFilesCount(); i++) {
                    if (before.getFiles(i).getPath().equals(r.getExpectedPath())) {
                        slot = i;
                        break;
                    }
                }
                check(slot >= 0, Rule.R44_REPLACE_SLOT, "fragment %d has no file %s to replace", id,
                        r.getExpectedPath());
                DataFile.Builder f = before.getFiles(slot).toBuilder().setPath(r.getPath())
                        .setFileSizeBytes(r.getFileSizeBytes());
                if (r.hasBaseId()) {
                    f.setBaseId(r.getBaseId());
                } else {
                    f.clearBaseId();
                }
                b.setFiles(slot, f);
            }
            default -> throw new IllegalStateException(a.getActionCase().toString());
        }
        return b.build();
    }

    /** The exact deltas (fragments, total rows, visible rows) of a record change. */
    public static long[] deltas(DataFragment before, DataFragment after) {
        long fc = (after != null ? 1 : 0) - (before != null ? 1 : 0);
        long tr = (after != null ? after.getPhysicalRows() : 0) - (before != null ? before.getPhysicalRows() : 0);
        long vr = (after != null ? visibleRows(after) : 0) - (before != null ? visibleRows(before) : 0);
        return new long[] {fc, tr, vr};
    }

    /** Builds a mutation with exact deltas for applying {@code action} to {@code before}. */
    public static FragmentTreeMutation mutation(long sequence, FragmentAction action, DataFragment before) {
        DataFragment after = apply(before, action);
        long[] d = deltas(before, after);
        return FragmentTreeMutation.newBuilder().setActionSequence(sequence).setAction(action)
                .setFragmentCountDelta(d[0]).setTotalRowsDelta(d[1]).setVisibleRowsDelta(d[2]).build();
    }

    /** Applies a mutation whose prior record is known and verifies its stored deltas. */
    public static DataFragment applyVerified(DataFragment before, FragmentTreeMutation m) {
        DataFragment after = apply(before, m.getAction());
        if (after != null) {
            check(after.getId() == Records.target(m.getAction()), Rule.R39_ACTION,
                    "upsert payload id differs from its target");
            checkRecord(after);
        }
        long[] d = deltas(before, after);
        check(d[0] == m.getFragmentCountDelta() && d[1] == m.getTotalRowsDelta() && d[2] == m.getVisibleRowsDelta(),
                Rule.R40_DELTAS, "mutation %d stores deltas (%d,%d,%d) but changes (%d,%d,%d)",
                m.getActionSequence(), m.getFragmentCountDelta(), m.getTotalRowsDelta(), m.getVisibleRowsDelta(),
                d[0], d[1], d[2]);
        return after;
    }
}
