package io.javelin.tx.transaction;

import static io.javelin.tx.transaction.OperationKind.APPEND;
import static io.javelin.tx.transaction.OperationKind.CLONE;
import static io.javelin.tx.transaction.OperationKind.CREATE_INDEX;
import static io.javelin.tx.transaction.OperationKind.DATA_OVERLAY;
import static io.javelin.tx.transaction.OperationKind.DATA_REPLACEMENT;
import static io.javelin.tx.transaction.OperationKind.DELETE;
import static io.javelin.tx.transaction.OperationKind.MERGE;
import static io.javelin.tx.transaction.OperationKind.OVERWRITE;
import static io.javelin.tx.transaction.OperationKind.PROJECT;
import static io.javelin.tx.transaction.OperationKind.RESERVE_FRAGMENTS;
import static io.javelin.tx.transaction.OperationKind.RESTORE;
import static io.javelin.tx.transaction.OperationKind.REWRITE;
import static io.javelin.tx.transaction.OperationKind.UNKNOWN;
import static io.javelin.tx.transaction.OperationKind.UPDATE;
import static io.javelin.tx.transaction.OperationKind.UPDATE_BASES;
import static io.javelin.tx.transaction.OperationKind.UPDATE_CONFIG;
import static io.javelin.tx.transaction.OperationKind.UPDATE_MEM_WAL_STATE;

import io.javelin.tx.pb.DataFragment;
import io.javelin.tx.pb.IndexMetadata;
import io.javelin.tx.pb.Transaction;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.roaringbitmap.RoaringBitmap;

/**
 * Lance's conflict matrix as a pure function: may {@code mine} (not yet committed, read at version R) be
 * committed on top of {@code theirs} (committed after R)? Not symmetric. Rows and footnotes follow the
 * implementer's digest §4.2 (Lance {@code conflict_resolver.rs}); where the snapshot code and the newer
 * spec disagree the conservative reading is taken (Overwrite after Overwrite is retryable).
 *
 * <p>Cell codes: {@code .} compatible, {@code X} incompatible, {@code T} retryable, {@code Ro}/{@code To}
 * rebase/retry only if the two touch a common fragment, digits: footnote rules in {@link #special}.
 */
public final class ConflictResolver {

    /** Column order of {@link #ROWS}; DATA_OVERLAY and UNKNOWN columns are always incompatible. */
    private static final OperationKind[] COLUMNS = {APPEND, DELETE, UPDATE, OVERWRITE, CREATE_INDEX, REWRITE, MERGE,
        PROJECT, RESTORE, RESERVE_FRAGMENTS, UPDATE_CONFIG, DATA_REPLACEMENT, UPDATE_MEM_WAL_STATE, CLONE, UPDATE_BASES};

    private static final Map<OperationKind, String[]> ROWS = new EnumMap<>(OperationKind.class);

    static {
        //                          App   Del   Upd   Ovw   CIx   Rew   Mrg   Prj   Rst   Rsv   UCf   DRp   MWS   Cln   UBs
        row(APPEND,                 ".",  ".",  ".",  "X",  ".",  ".",  ".",  ".",  "X",  ".",  ".",  ".",  "X",  ".",  ".");
        row(DELETE,                 ".",  "Ro", "Ro", "X",  ".",  "To", "T",  ".",  "X",  ".",  ".",  "To", "X",  ".",  ".");
        row(UPDATE,                 ".",  "Ro", "Ro", "X",  ".",  "To", "T",  ".",  "X",  ".",  ".",  "To", "4",  ".",  ".");
        row(OVERWRITE,              ".",  ".",  ".",  "2",  ".",  ".",  ".",  ".",  ".",  ".",  "2",  ".",  "X",  ".",  ".");
        row(CREATE_INDEX,           ".",  ".",  ".",  "X",  "3",  "3",  ".",  ".",  "X",  ".",  ".",  "5",  "X",  ".",  ".");
        row(REWRITE,                ".",  "To", "To", "X",  "3",  "To", "T",  ".",  "X",  ".",  ".",  "To", ".",  ".",  ".");
        row(MERGE,                  "T",  "T",  "T",  "X",  ".",  "T",  "T",  "X",  "X",  ".",  ".",  "T",  "X",  ".",  ".");
        row(PROJECT,                ".",  ".",  ".",  "X",  ".",  ".",  "T",  "T",  "X",  ".",  ".",  ".",  "X",  ".",  ".");
        row(RESTORE,                ".",  ".",  ".",  ".",  ".",  ".",  ".",  ".",  ".",  ".",  ".",  ".",  "X",  ".",  ".");
        row(RESERVE_FRAGMENTS,      ".",  ".",  ".",  "X",  ".",  ".",  ".",  ".",  "X",  ".",  ".",  ".",  ".",  ".",  ".");
        row(UPDATE_CONFIG,          ".",  ".",  ".",  "6",  ".",  ".",  ".",  ".",  ".",  ".",  "6",  ".",  ".",  ".",  ".");
        row(DATA_REPLACEMENT,       ".",  ".",  ".",  "X",  "5",  "To", ".",  ".",  "X",  ".",  ".",  "8",  "X",  ".",  ".");
        row(UPDATE_MEM_WAL_STATE,   "X",  "X",  "10", "X",  ".",  ".",  "X",  "X",  "X",  ".",  ".",  "X",  "9",  "X",  ".");
        row(CLONE,                  ".",  ".",  ".",  ".",  ".",  ".",  ".",  ".",  ".",  ".",  ".",  ".",  ".",  ".",  ".");
        row(UPDATE_BASES,           ".",  ".",  ".",  ".",  ".",  ".",  ".",  ".",  ".",  ".",  ".",  ".",  ".",  ".",  "B");
    }

    private static void row(OperationKind op, String... cells) {
        if (cells.length != COLUMNS.length) {
            throw new IllegalStateException("Conflict matrix row " + op + " has " + cells.length + " cells");
        }
        ROWS.put(op, cells);
    }

    private ConflictResolver() {
    }

    /** The raw matrix cell (for documentation and exhaustive tests). */
    public static String cell(OperationKind mine, OperationKind theirs) {
        if (mine == UNKNOWN || mine == DATA_OVERLAY || theirs == UNKNOWN || theirs == DATA_OVERLAY) {
            return "X";
        }
        String[] row = ROWS.get(mine);
        for (int i = 0; i < COLUMNS.length; i++) {
            if (COLUMNS[i] == theirs) {
                return row[i];
            }
        }
        throw new IllegalStateException("No column for " + theirs);
    }

    public static Resolution check(Transaction mine, Transaction theirs) {
        OperationKind m = OperationKind.of(mine);
        OperationKind t = OperationKind.of(theirs);
        String what = m + " after a concurrent " + t + " (their read version " + theirs.getReadVersion() + ")";
        String cell = cell(m, t);
        return switch (cell) {
            case "." -> Resolution.COMPATIBLE;
            case "X" -> Resolution.incompatible(what + " is incompatible");
            case "T" -> Resolution.retry(what + ": re-run the operation on the new version");
            case "Ro", "To" -> overlap(cell, mine, theirs, what);
            default -> special(cell, mine, theirs, what);
        };
    }

    private static Resolution overlap(String cell, Transaction mine, Transaction theirs, String what) {
        Set<Long> shared = intersect(touched(mine), touched(theirs));
        if (shared.isEmpty()) {
            return Resolution.COMPATIBLE;
        }
        if (cell.equals("To")) {
            return Resolution.retry(what + " touched the same fragments " + shared);
        }
        // Ro (Delete/Update vs Delete/Update): rebasable only if they neither removed a fragment we modify
        // nor changed its data files (only its deletion file).
        Set<Long> removedByThem = removed(theirs);
        Set<Long> gone = intersect(shared, removedByThem);
        if (!gone.isEmpty()) {
            return Resolution.retry(what + " removed fragments " + gone + " that this operation modifies");
        }
        Map<Long, DataFragment> ours = updated(mine);
        for (DataFragment f : updatedList(theirs)) {
            DataFragment o = ours.get(f.getId());
            if (o != null && !o.getFilesList().equals(f.getFilesList())) {
                return Resolution.retry(what + " rewrote the data files of fragment " + f.getId());
            }
        }
        return Resolution.rebase(what + " changed the deletion files of fragments " + shared);
    }

    private static Resolution special(String cell, Transaction mine, Transaction theirs, String what) {
        switch (cell) {
            case "2": // Overwrite after Overwrite: retryable (v13 reading); after UpdateConfig: only overlapping keys
                if (theirs.hasOverwrite()) {
                    return Resolution.retry(what + ": concurrent overwrites");
                }
                return configKeys(theirs).stream().anyMatch(mine.getOverwrite().getConfigUpsertValuesMap()::containsKey)
                        || replacesConfig(theirs)
                        ? Resolution.incompatible(what + " changed the same config keys")
                        : Resolution.COMPATIBLE;
            case "3": { // CreateIndex/Rewrite vs CreateIndex/Rewrite
                if (mine.hasCreateIndex() && theirs.hasCreateIndex()) {
                    return writesFragReuse(mine) && writesFragReuse(theirs)
                            ? Resolution.retry(what + ": both write the fragment reuse index")
                            : Resolution.COMPATIBLE;
                }
                Transaction index = mine.hasCreateIndex() ? mine : theirs;
                Transaction rewrite = mine.hasRewrite() ? mine : theirs;
                Set<Long> rewritten = touched(rewrite);
                for (IndexMetadata im : index.getCreateIndex().getNewIndicesList()) {
                    RoaringBitmap covered = bitmap(im.getFragmentBitmap());
                    if (covered == null) {
                        return Resolution.retry(what + ": index " + im.getName() + " has no fragment bitmap");
                    }
                    for (long id : rewritten) {
                        if (covered.contains((int) id)) {
                            return Resolution.retry(what + ": index " + im.getName() + " covers rewritten fragment " + id);
                        }
                    }
                }
                return Resolution.COMPATIBLE;
            }
            case "4": // Update vs UpdateMemWalState: only if the update merges a MemWAL
                return mine.getUpdate().getCompactedSstablesCount() > 0
                        ? Resolution.incompatible(what + ": both touch the MemWAL")
                        : Resolution.COMPATIBLE;
            case "5": { // CreateIndex vs DataReplacement: replaced columns indexed?
                Transaction index = mine.hasCreateIndex() ? mine : theirs;
                Transaction repl = mine.hasDataReplacement() ? mine : theirs;
                Set<Integer> fields = new HashSet<>();
                repl.getDataReplacement().getReplacementsList().forEach(g -> fields.addAll(g.getNewFile().getFieldsList()));
                for (IndexMetadata im : index.getCreateIndex().getNewIndicesList()) {
                    for (int f : im.getFieldsList()) {
                        if (fields.contains(f)) {
                            return Resolution.retry(what + ": index " + im.getName() + " is on replaced field " + f);
                        }
                    }
                }
                return Resolution.COMPATIBLE;
            }
            case "6": { // UpdateConfig vs Overwrite / UpdateConfig
                if (theirs.hasOverwrite()) {
                    Transaction.UpdateConfig u = mine.getUpdateConfig();
                    boolean schema = u.hasSchemaMetadataUpdates() || u.getFieldMetadataUpdatesCount() > 0
                            || u.getSchemaMetadataCount() > 0 || u.getFieldMetadataCount() > 0;
                    boolean keys = replacesConfig(mine)
                            || configKeys(mine).stream().anyMatch(theirs.getOverwrite().getConfigUpsertValuesMap()::containsKey);
                    return schema || keys ? Resolution.incompatible(what + " changed the same config or schema metadata")
                            : Resolution.COMPATIBLE;
                }
                return updateConfigOverlap(mine.getUpdateConfig(), theirs.getUpdateConfig())
                        ? Resolution.incompatible(what + " changed the same keys")
                        : Resolution.COMPATIBLE;
            }
            case "8": { // DataReplacement vs DataReplacement: same fragment and overlapping fields
                Map<Long, Set<Integer>> a = replacedFields(mine);
                Map<Long, Set<Integer>> b = replacedFields(theirs);
                for (var e : a.entrySet()) {
                    Set<Integer> other = b.get(e.getKey());
                    if (other != null && !intersect(e.getValue(), other).isEmpty()) {
                        return Resolution.retry(what + ": both replace fields of fragment " + e.getKey());
                    }
                }
                return Resolution.COMPATIBLE;
            }
            case "9":
                return Resolution.incompatible(what + ": concurrent MemWAL state changes");
            case "10":
                return theirs.getUpdate().getCompactedSstablesCount() > 0
                        ? Resolution.COMPATIBLE
                        : Resolution.incompatible(what + " is incompatible");
            case "B": { // UpdateBases: same id (non-zero), name or path
                for (var a : mine.getUpdateBases().getNewBasesList()) {
                    for (var b : theirs.getUpdateBases().getNewBasesList()) {
                        if ((a.getId() != 0 && a.getId() == b.getId()) || a.getPath().equals(b.getPath())
                                || (a.hasName() && b.hasName() && a.getName().equals(b.getName()))) {
                            return Resolution.incompatible(what + ": base path " + a.getPath() + " clashes");
                        }
                    }
                }
                return Resolution.COMPATIBLE;
            }
            default:
                throw new IllegalStateException("Unknown conflict matrix cell " + cell);
        }
    }

    /** Fragment ids an operation modifies or removes (what "overlap" means in the matrix). */
    static Set<Long> touched(Transaction t) {
        Set<Long> ids = new HashSet<>();
        switch (t.getOperationCase()) {
            case DELETE -> {
                t.getDelete().getUpdatedFragmentsList().forEach(f -> ids.add(f.getId()));
                ids.addAll(t.getDelete().getDeletedFragmentIdsList());
            }
            case UPDATE -> {
                t.getUpdate().getUpdatedFragmentsList().forEach(f -> ids.add(f.getId()));
                ids.addAll(t.getUpdate().getRemovedFragmentIdsList());
            }
            case REWRITE -> {
                t.getRewrite().getOldFragmentsList().forEach(f -> ids.add(f.getId()));
                t.getRewrite().getGroupsList().forEach(g -> g.getOldFragmentsList().forEach(f -> ids.add(f.getId())));
            }
            case DATA_REPLACEMENT -> t.getDataReplacement().getReplacementsList().forEach(g -> ids.add(g.getFragmentId()));
            default -> { }
        }
        return ids;
    }

    static Set<Long> removed(Transaction t) {
        return switch (t.getOperationCase()) {
            case DELETE -> new HashSet<>(t.getDelete().getDeletedFragmentIdsList());
            case UPDATE -> new HashSet<>(t.getUpdate().getRemovedFragmentIdsList());
            default -> touched(t);
        };
    }

    private static List<DataFragment> updatedList(Transaction t) {
        return t.hasDelete() ? t.getDelete().getUpdatedFragmentsList()
                : t.hasUpdate() ? t.getUpdate().getUpdatedFragmentsList() : List.of();
    }

    private static Map<Long, DataFragment> updated(Transaction t) {
        Map<Long, DataFragment> m = new HashMap<>();
        updatedList(t).forEach(f -> m.put(f.getId(), f));
        return m;
    }

    private static boolean writesFragReuse(Transaction t) {
        return t.getCreateIndex().getNewIndicesList().stream().anyMatch(i -> i.getName().equals("__lance_frag_reuse"));
    }

    private static RoaringBitmap bitmap(com.google.protobuf.ByteString bytes) {
        if (bytes.isEmpty()) {
            return null;
        }
        try {
            RoaringBitmap rb = new RoaringBitmap();
            rb.deserialize(ByteBuffer.wrap(bytes.toByteArray()));
            return rb;
        } catch (IOException | RuntimeException e) {
            return null; // unreadable bitmap: treat as unknown coverage (conservative)
        }
    }

    private static Set<String> configKeys(Transaction t) {
        Set<String> keys = new HashSet<>();
        if (t.hasUpdateConfig()) {
            Transaction.UpdateConfig u = t.getUpdateConfig();
            u.getConfigUpdates().getUpdateEntriesList().forEach(e -> keys.add(e.getKey()));
            keys.addAll(u.getUpsertValuesMap().keySet());
            keys.addAll(u.getDeleteKeysList());
        } else if (t.hasOverwrite()) {
            keys.addAll(t.getOverwrite().getConfigUpsertValuesMap().keySet());
        }
        return keys;
    }

    private static boolean replacesConfig(Transaction t) {
        return t.hasUpdateConfig() && t.getUpdateConfig().getConfigUpdates().getReplace();
    }

    private static boolean updateConfigOverlap(Transaction.UpdateConfig a, Transaction.UpdateConfig b) {
        if (mapOverlap(a.getConfigUpdates(), b.getConfigUpdates()) || mapOverlap(a.getTableMetadataUpdates(), b.getTableMetadataUpdates())
                || mapOverlap(a.getSchemaMetadataUpdates(), b.getSchemaMetadataUpdates())) {
            return true;
        }
        Set<String> legacyA = new HashSet<>(a.getUpsertValuesMap().keySet());
        legacyA.addAll(a.getDeleteKeysList());
        a.getConfigUpdates().getUpdateEntriesList().forEach(e -> legacyA.add(e.getKey()));
        Set<String> legacyB = new HashSet<>(b.getUpsertValuesMap().keySet());
        legacyB.addAll(b.getDeleteKeysList());
        b.getConfigUpdates().getUpdateEntriesList().forEach(e -> legacyB.add(e.getKey()));
        if (!intersect(legacyA, legacyB).isEmpty()) {
            return true;
        }
        if ((a.getSchemaMetadataCount() > 0 || a.hasSchemaMetadataUpdates()) && (b.getSchemaMetadataCount() > 0 || b.hasSchemaMetadataUpdates())) {
            return true;
        }
        Set<Integer> fa = new HashSet<>(a.getFieldMetadataUpdatesMap().keySet());
        a.getFieldMetadataMap().keySet().forEach(k -> fa.add(k));
        Set<Integer> fb = new HashSet<>(b.getFieldMetadataUpdatesMap().keySet());
        b.getFieldMetadataMap().keySet().forEach(k -> fb.add(k));
        return !intersect(fa, fb).isEmpty();
    }

    private static boolean mapOverlap(Transaction.UpdateMap a, Transaction.UpdateMap b) {
        if (a.getUpdateEntriesCount() == 0 && !a.getReplace() || b.getUpdateEntriesCount() == 0 && !b.getReplace()) {
            return false;
        }
        if (a.getReplace() || b.getReplace()) {
            return true;
        }
        Set<String> ka = new HashSet<>();
        a.getUpdateEntriesList().forEach(e -> ka.add(e.getKey()));
        return b.getUpdateEntriesList().stream().anyMatch(e -> ka.contains(e.getKey()));
    }

    private static Map<Long, Set<Integer>> replacedFields(Transaction t) {
        Map<Long, Set<Integer>> m = new HashMap<>();
        t.getDataReplacement().getReplacementsList().forEach(g ->
                m.computeIfAbsent(g.getFragmentId(), k -> new HashSet<>()).addAll(g.getNewFile().getFieldsList()));
        return m;
    }

    private static <T> Set<T> intersect(Set<T> a, Set<T> b) {
        Set<T> out = new HashSet<>(a);
        out.retainAll(b);
        return out;
    }
}
