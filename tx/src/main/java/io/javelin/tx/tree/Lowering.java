package io.javelin.tx.tree;

import io.javelin.tx.pb.AddDataFile;
import io.javelin.tx.pb.AddDeletionFile;
import io.javelin.tx.pb.ClearDeletionFile;
import io.javelin.tx.pb.DataFile;
import io.javelin.tx.pb.DataFragment;
import io.javelin.tx.pb.FragmentAction;
import io.javelin.tx.pb.RemoveDataFile;
import io.javelin.tx.pb.ReplaceDataFile;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Lowers a record change to the smallest list of storage actions that reproduces it exactly.
 * Every candidate is verified by applying it; anything else becomes one {@code upsert_fragment}.
 */
public final class Lowering {

    private Lowering() {
    }

    /** Actions turning {@code before} into {@code after} (either may be null = absent). */
    public static List<FragmentAction> lower(DataFragment before, DataFragment after) {
        if (Objects.equals(before, after)) {
            return List.of();
        }
        if (after == null) {
            return List.of(FragmentAction.newBuilder().setRemoveFragment(before.getId()).build());
        }
        List<FragmentAction> upsert = List.of(FragmentAction.newBuilder().setUpsertFragment(after).build());
        if (before == null) {
            return upsert;
        }
        DataFragment bRest = before.toBuilder().clearFiles().clearDeletionFile().build();
        DataFragment aRest = after.toBuilder().clearFiles().clearDeletionFile().build();
        if (!bRest.equals(aRest)) {
            return upsert;
        }
        long id = after.getId();
        List<FragmentAction> actions = new ArrayList<>();
        if (!before.getFilesList().equals(after.getFilesList())) {
            List<FragmentAction> fileActions = fileActions(id, before.getFilesList(), after.getFilesList());
            if (fileActions == null) {
                return upsert;
            }
            actions.addAll(fileActions);
        }
        if (!Objects.equals(before.hasDeletionFile() ? before.getDeletionFile() : null,
                after.hasDeletionFile() ? after.getDeletionFile() : null)) {
            actions.add(after.hasDeletionFile()
                    ? FragmentAction.newBuilder().setAddDeletionFile(AddDeletionFile.newBuilder().setFragId(id)
                            .setDeletionFile(after.getDeletionFile())).build()
                    : FragmentAction.newBuilder().setClearDeletionFile(ClearDeletionFile.newBuilder().setFragId(id))
                            .build());
        }
        DataFragment r = before;
        try {
            for (FragmentAction a : actions) {
                r = Records.apply(r, a);
            }
        } catch (CorruptSnapshotException e) {
            return upsert;
        }
        if (!after.equals(r)) {
            return upsert;
        }
        int size = 0;
        for (FragmentAction a : actions) {
            size += a.getSerializedSize();
        }
        return size < upsert.getFirst().getSerializedSize() ? actions : upsert;
    }

    private static List<FragmentAction> fileActions(long id, List<DataFile> before, List<DataFile> after) {
        // Appended files.
        if (after.size() > before.size() && after.subList(0, before.size()).equals(before)) {
            List<FragmentAction> out = new ArrayList<>();
            for (DataFile f : after.subList(before.size(), after.size())) {
                out.add(FragmentAction.newBuilder().setAddDataFile(AddDataFile.newBuilder().setFragId(id).setFile(f))
                        .build());
            }
            return out;
        }
        // Slot replacements keeping mapping and version.
        if (after.size() == before.size()) {
            List<FragmentAction> out = new ArrayList<>();
            for (int i = 0; i < before.size(); i++) {
                DataFile b = before.get(i);
                DataFile a = after.get(i);
                if (b.equals(a)) {
                    continue;
                }
                if (!b.getFieldsList().equals(a.getFieldsList()) || !b.getColumnIndicesList().equals(a.getColumnIndicesList())
                        || b.getFileMajorVersion() != a.getFileMajorVersion()
                        || b.getFileMinorVersion() != a.getFileMinorVersion()) {
                    return null;
                }
                ReplaceDataFile.Builder r = ReplaceDataFile.newBuilder().setFragId(id).setExpectedPath(b.getPath())
                        .setPath(a.getPath()).setFileSizeBytes(a.getFileSizeBytes());
                if (a.hasBaseId()) {
                    r.setBaseId(a.getBaseId());
                }
                out.add(FragmentAction.newBuilder().setReplaceDataFile(r).build());
            }
            return out;
        }
        // Removed paths.
        Set<String> removed = new LinkedHashSet<>();
        for (DataFile f : before) {
            if (!after.contains(f)) {
                removed.add(f.getPath());
            }
        }
        List<FragmentAction> out = new ArrayList<>();
        for (String p : removed) {
            out.add(FragmentAction.newBuilder().setRemoveDataFile(RemoveDataFile.newBuilder().setFragId(id).setPath(p))
                    .build());
        }
        return out;
    }
}
