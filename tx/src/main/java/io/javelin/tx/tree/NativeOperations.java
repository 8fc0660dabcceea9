package io.javelin.tx.tree;

import io.javelin.tx.pb.DataFile;
import io.javelin.tx.pb.DataFragment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Lowers the results of native Lance operations to {@link FragmentEdit}s. Conflict checks and
 * native validation stay with the transaction layer; these methods only describe the resulting
 * record changes so that the writer can store them with the fewest reads and the smallest
 * actions. Overwrite ({@link TreeWriter#overwrite}) and Restore ({@link TreeWriter#restore}) are
 * whole-state operations and have no edit form; ReserveFragments changes only
 * Manifest.max_fragment_id and lowers to no edit at all.
 */
public final class NativeOperations {

    private NativeOperations() {
    }

    /** Append: new fragments with freshly allocated ids (no reads). */
    public static List<FragmentEdit> append(List<DataFragment> fragments) {
        return fragments.stream().<FragmentEdit>map(FragmentEdit.Create::new).toList();
    }

    /**
     * Delete: fragments whose deletion file changed (lowered to add/clear_deletion_file) and
     * fragments deleted entirely.
     */
    public static List<FragmentEdit> delete(List<DataFragment> updated, List<Long> deletedIds) {
        List<FragmentEdit> out = new ArrayList<>();
        updated.forEach(f -> out.add(new FragmentEdit.Put(f)));
        deletedIds.forEach(id -> out.add(new FragmentEdit.Remove(id)));
        return out;
    }

    /**
     * Update: removed fragments, rewritten fragments (deletion files or column rewrites) and new
     * fragments holding the updated rows.
     *
     * @param previousMax max_fragment_id before the operation (ids above it are fresh)
     */
    public static List<FragmentEdit> update(List<Long> removedIds, List<DataFragment> updated,
            List<DataFragment> created, long previousMax) {
        List<FragmentEdit> out = new ArrayList<>();
        removedIds.forEach(id -> out.add(new FragmentEdit.Remove(id)));
        updated.forEach(f -> out.add(new FragmentEdit.Put(f)));
        created.forEach(f -> out.add(f.getId() > previousMax ? new FragmentEdit.Create(f) : new FragmentEdit.Put(f)));
        return out;
    }

    /** One DataReplacement entry: a new file for the fields of {@code oldFile} (null = no such file). */
    public record Replacement(long fragmentId, DataFile oldFile, DataFile newFile) {
    }

    /**
     * DataReplacement: a file with the same mapping and version becomes {@code replace_data_file}
     * (no read); a disjoint new file becomes {@code add_data_file}; a replacement that changes the
     * mapping or file version rewrites that slot of the resolved record.
     */
    public static List<FragmentEdit> dataReplacement(List<Replacement> replacements) {
        List<FragmentEdit> out = new ArrayList<>();
        for (Replacement r : replacements) {
            DataFile o = r.oldFile();
            DataFile n = r.newFile();
            if (o == null) {
                out.add(new FragmentEdit.AddFile(r.fragmentId(), n));
            } else if (o.getFieldsList().equals(n.getFieldsList())
                    && o.getColumnIndicesList().equals(n.getColumnIndicesList())
                    && o.getFileMajorVersion() == n.getFileMajorVersion()
                    && o.getFileMinorVersion() == n.getFileMinorVersion()) {
                out.add(new FragmentEdit.ReplaceFile(r.fragmentId(), o.getPath(), n.getPath(), n.getFileSizeBytes(),
                        n.hasBaseId() ? n.getBaseId() : null));
            } else {
                out.add(new FragmentEdit.Modify(r.fragmentId(), f -> {
                    DataFragment.Builder b = f.toBuilder();
                    for (int i = 0; i < b.getFilesCount(); i++) {
                        if (b.getFiles(i).getPath().equals(o.getPath())) {
                            b.setFiles(i, n);
                            break;
                        }
                    }
                    return b.build();
                }));
            }
        }
        return out;
    }

    /** Add columns with backfill: one appended data file per fragment (no reads, count-neutral). */
    public static List<FragmentEdit> addColumns(Map<Long, List<DataFile>> newFiles) {
        List<FragmentEdit> out = new ArrayList<>();
        newFiles.forEach((id, files) -> files.forEach(f -> out.add(new FragmentEdit.AddFile(id, f))));
        return out;
    }

    /**
     * Merge: the complete new fragment list of a Merge operation. Changed records are diffed against
     * their priors (appended files lower to {@code add_data_file}); fragments missing from the list
     * are removed by the caller's Merge semantics via {@code removedIds}.
     */
    public static List<FragmentEdit> merge(List<DataFragment> fragments, List<Long> removedIds, long previousMax) {
        List<FragmentEdit> out = new ArrayList<>();
        for (DataFragment f : fragments) {
            out.add(f.getId() > previousMax ? new FragmentEdit.Create(f) : new FragmentEdit.Put(f));
        }
        removedIds.forEach(id -> out.add(new FragmentEdit.Remove(id)));
        return out;
    }

    /** One Rewrite (compaction) group. */
    public record RewriteGroup(List<Long> oldIds, List<DataFragment> newFragments) {
    }

    /** Rewrite: old fragments removed, new ones created (reserved ids below previousMax resolve first). */
    public static List<FragmentEdit> rewrite(List<RewriteGroup> groups, long previousMax) {
        List<FragmentEdit> out = new ArrayList<>();
        for (RewriteGroup g : groups) {
            g.oldIds().forEach(id -> out.add(new FragmentEdit.Remove(id)));
            for (DataFragment f : g.newFragments()) {
                out.add(f.getId() > previousMax ? new FragmentEdit.Create(f) : new FragmentEdit.Put(f));
            }
        }
        return out;
    }

    /** ReserveFragments: advances Manifest.max_fragment_id only. */
    public static List<FragmentEdit> reserveFragments() {
        return List.of();
    }
}
