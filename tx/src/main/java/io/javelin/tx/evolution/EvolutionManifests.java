package io.javelin.tx.evolution;

import io.javelin.encoding.pb.file.Field;
import io.javelin.tx.CommitConflictException;
import io.javelin.tx.InvalidTableMetadataException;
import io.javelin.tx.pb.DataFile;
import io.javelin.tx.pb.DataFragment;
import io.javelin.tx.pb.IndexMetadata;
import io.javelin.tx.pb.IndexSection;
import io.javelin.tx.pb.Manifest;
import io.javelin.tx.pb.Transaction;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The manifest effect of the schema-evolution operations (Lance {@code build_manifest} for Merge, Project
 * and DataReplacement), applied to a manifest builder. Pure.
 *
 * <ul>
 *   <li>Merge: schema := payload, fragments := payload (must keep every fragment with its row count);
 *       indices on fields no longer in the schema are dropped.</li>
 *   <li>Project: schema := payload; data files with no field left in the schema are dropped from their
 *       fragments (their {@code fields} are otherwise kept verbatim: dropped ids stay listed, not
 *       tombstoned, exactly as Lance does, so {@link #maxFieldId} still sees them).</li>
 *   <li>DataReplacement: in each named fragment the file with identical {@code fields} and file version
 *       gets the new path and size; if none of the fragment's files holds those fields (an all-null
 *       column), the new file is added.</li>
 * </ul>
 * After every operation Lance drops data files whose fields are all tombstoned ({@code -2}).
 */
public final class EvolutionManifests {

    /** Field id marking a column of a data file that no longer belongs to the schema. */
    public static final int TOMBSTONE = -2;

    private EvolutionManifests() {
    }

    public static IndexSection applyMerge(Manifest.Builder m, Transaction.Merge merge, IndexSection index) {
        Map<Long, DataFragment> before = new HashMap<>();
        m.getFragmentsList().forEach(f -> before.put(f.getId(), f));
        if (merge.getFragmentsCount() < before.size()) {
            throw new InvalidTableMetadataException("Merge operation reduced fragment count from " + before.size() + " to "
                    + merge.getFragmentsCount() + ": a Merge may only add columns");
        }
        Set<Long> seen = new HashSet<>();
        for (DataFragment f : merge.getFragmentsList()) {
            DataFragment old = before.get(f.getId());
            if (old != null && old.getPhysicalRows() != f.getPhysicalRows()) {
                throw new InvalidTableMetadataException("Merge operation changed the row count of fragment " + f.getId()
                        + " from " + old.getPhysicalRows() + " to " + f.getPhysicalRows());
            }
            seen.add(f.getId());
            checkFiles(f);
        }
        for (long id : before.keySet()) {
            if (!seen.contains(id)) {
                throw new CommitConflictException("Merge operation is missing fragment " + id + " of the dataset");
            }
        }
        m.clearFields().addAllFields(merge.getSchemaList())
                .clearSchemaMetadata().putAllSchemaMetadata(merge.getSchemaMetadataMap())
                .clearFragments().addAllFragments(merge.getFragmentsList());
        return retainRelevantIndices(index, merge.getSchemaList());
    }

    public static IndexSection applyProject(Manifest.Builder m, Transaction.Project project, IndexSection index) {
        Set<Integer> live = ids(project.getSchemaList());
        List<DataFragment> out = new ArrayList<>();
        for (DataFragment f : m.getFragmentsList()) {
            DataFragment.Builder b = f.toBuilder().clearFiles();
            for (DataFile df : f.getFilesList()) {
                if (df.getFieldsList().stream().anyMatch(live::contains)) {
                    b.addFiles(df);
                }
            }
            out.add(b.build());
        }
        m.clearFields().addAllFields(project.getSchemaList()).clearFragments().addAllFragments(out);
        return retainRelevantIndices(index, project.getSchemaList());
    }

    public static void applyDataReplacement(Manifest.Builder m, Transaction.DataReplacement r) {
        Set<List<Integer>> shapes = new HashSet<>();
        r.getReplacementsList().forEach(g -> shapes.add(g.getNewFile().getFieldsList()));
        if (shapes.size() > 1) {
            throw new InvalidTableMetadataException("All new data files of a DataReplacement must have the same fields, found "
                    + shapes);
        }
        Map<Long, DataFragment> byId = new LinkedHashMap<>();
        m.getFragmentsList().forEach(f -> byId.put(f.getId(), f));
        for (Transaction.DataReplacementGroup g : r.getReplacementsList()) {
            DataFragment frag = byId.get(g.getFragmentId());
            if (frag == null) {
                throw new CommitConflictException("Fragment " + g.getFragmentId() + " being replaced no longer exists");
            }
            DataFile nf = g.getNewFile();
            DataFragment.Builder b = frag.toBuilder().clearFiles();
            Set<Integer> covered = new HashSet<>();
            for (DataFile df : frag.getFilesList()) {
                if (df.getFieldsList().equals(nf.getFieldsList()) && df.getFileMajorVersion() == nf.getFileMajorVersion()
                        && df.getFileMinorVersion() == nf.getFileMinorVersion()) {
                    df = df.toBuilder().setPath(nf.getPath()).setFileSizeBytes(nf.getFileSizeBytes()).build();
                }
                covered.addAll(df.getFieldsList());
                b.addFiles(df);
            }
            if (nf.getFieldsList().stream().noneMatch(covered::contains)) {
                b.addFiles(nf); // an all-null column replaced with real data
            }
            DataFragment updated = b.build();
            if (updated.equals(frag)) {
                throw new InvalidTableMetadataException("DataReplacement of fragment " + frag.getId() + " changed nothing: the new"
                        + " file's fields " + nf.getFieldsList() + " match no data file of the fragment");
            }
            byId.put(frag.getId(), updated);
        }
        m.clearFragments().addAllFragments(byId.values());
    }

    /** Lance's {@code remove_tombstoned_data_files}: a file whose every field is -2 is no longer read. */
    public static void removeTombstonedDataFiles(Manifest.Builder m) {
        for (int i = 0; i < m.getFragmentsCount(); i++) {
            DataFragment f = m.getFragments(i);
            if (f.getFilesList().stream().noneMatch(EvolutionManifests::allTombstoned)) {
                continue;
            }
            DataFragment.Builder b = f.toBuilder().clearFiles();
            f.getFilesList().stream().filter(df -> !allTombstoned(df)).forEach(b::addFiles);
            m.setFragments(i, b);
        }
    }

    private static boolean allTombstoned(DataFile df) {
        return df.getFieldsCount() > 0 && df.getFieldsList().stream().allMatch(id -> id == TOMBSTONE);
    }

    /**
     * Lance {@code Manifest::max_field_id}: the largest id in the schema or in any data file's
     * {@code fields} (ids of dropped columns still listed there are never reused).
     */
    public static int maxFieldId(Manifest m) {
        int max = -1;
        for (Field f : m.getFieldsList()) {
            max = Math.max(max, f.getId());
        }
        for (DataFragment f : m.getFragmentsList()) {
            for (DataFile df : f.getFilesList()) {
                for (int id : df.getFieldsList()) {
                    max = Math.max(max, id);
                }
            }
        }
        return max;
    }

    private static void checkFiles(DataFragment f) {
        for (DataFile df : f.getFilesList()) {
            if (df.getFieldsCount() == 0) {
                throw new InvalidTableMetadataException("Data file " + df.getPath() + " does not contain any fields");
            }
        }
    }

    private static Set<Integer> ids(List<Field> schema) {
        Set<Integer> s = new HashSet<>();
        schema.forEach(f -> s.add(f.getId()));
        return s;
    }

    /** Drops indices on fields that left the schema; Lance's system indices ({@code __lance_*}) stay. */
    static IndexSection retainRelevantIndices(IndexSection index, List<Field> schema) {
        if (index == null) {
            return null;
        }
        Set<Integer> live = ids(schema);
        List<IndexMetadata> kept = new ArrayList<>();
        for (IndexMetadata im : index.getIndicesList()) {
            if (im.getName().startsWith("__lance") || live.containsAll(im.getFieldsList())) {
                kept.add(im);
            }
        }
        return kept.isEmpty() ? null : index.toBuilder().clearIndices().addAllIndices(kept).build();
    }
}
