package io.javelin.tx.manifest;

import io.javelin.tx.InvalidTableMetadataException;
import io.javelin.tx.pb.DataFile;
import io.javelin.tx.pb.DataFragment;
import io.javelin.tx.pb.Manifest;
import java.util.HashSet;
import java.util.Set;

/**
 * Table invariants a decodable manifest must still satisfy before we trust it: fragment ids unique and
 * ascending and within the high-water mark, deletion counts within physical rows, every stored path
 * inside the dataset, base ids that resolve. Lance 7.0.0 reuses fragment ids across an Overwrite, which
 * is legal and not checked here.
 */
public final class ManifestValidator {

    private ManifestValidator() {
    }

    /** Validates a manifest about to be written: fragment ids strictly increasing. */
    public static void validate(Manifest m, String path) {
        validate(m, path, false);
    }

    /**
     * {@code read}: a manifest read from storage, where two fragments sharing an id (an old writer's bug,
     * e.g. Lance 0.16) are tolerated as lance-core's readers do (only its explicit {@code validate} refuses
     * them); nothing new is ever written that way.
     */
    public static void validate(Manifest m, String path, boolean read) {
        try {
            check(m, path, read);
        } catch (InvalidTableMetadataException e) {
            if (e.getMessage().contains("path=")) {
                throw e;
            }
            throw new InvalidTableMetadataException(e.getMessage() + " (manifest version " + m.getVersion() + ", path=" + path + ")");
        }
    }

    private static void check(Manifest m, String path, boolean read) {
        String where = " (manifest version " + m.getVersion() + ", path=" + path + ")";
        Set<Integer> baseIds = new HashSet<>();
        for (var b : m.getBasePathsList()) {
            if (!baseIds.add(b.getId())) {
                throw new InvalidTableMetadataException("Duplicate base path id " + b.getId() + where);
            }
        }
        // Fragment tree (spec 000): the field and flag 4096 in both words agree; the flat list is empty.
        boolean readerTree = (m.getReaderFeatureFlags() & FeatureFlags.FRAGMENT_TREE) != 0;
        boolean writerTree = (m.getWriterFeatureFlags() & FeatureFlags.FRAGMENT_TREE) != 0;
        if (readerTree != writerTree || readerTree != m.hasFragmentTree()) {
            throw new InvalidTableMetadataException("Fragment tree flag (reader " + readerTree + ", writer " + writerTree
                    + ") and fragment_tree field (" + m.hasFragmentTree() + ") disagree" + where);
        }
        if (m.hasFragmentTree() && m.getFragmentsCount() > 0) {
            throw new InvalidTableMetadataException("Tree manifest also lists " + m.getFragmentsCount() + " flat fragments" + where);
        }
        long previous = -1;
        for (DataFragment f : m.getFragmentsList()) {
            long id = f.getId();
            if (id < 0 || id > 0xFFFF_FFFFL) {
                throw new InvalidTableMetadataException("Fragment id " + Long.toUnsignedString(id) + " does not fit u32" + where);
            }
            if (id < previous || id == previous && !read) {
                throw new InvalidTableMetadataException((id == previous ? "Duplicate fragment id " : "Fragment ids out of order at ")
                        + id + where);
            }
            previous = id;
            if (m.hasMaxFragmentId() && id > Integer.toUnsignedLong(m.getMaxFragmentId())) {
                throw new InvalidTableMetadataException("Fragment id " + id + " exceeds max_fragment_id "
                        + Integer.toUnsignedLong(m.getMaxFragmentId()) + where);
            }
            validateFragment(f, baseIds, where);
        }
        if (!m.getTransactionFile().isEmpty()) {
            SafePaths.checkFileName("Transaction file", m.getTransactionFile());
        }
    }

    static void validateFragment(DataFragment f, Set<Integer> baseIds, String where) {
        for (DataFile df : f.getFilesList()) {
            SafePaths.checkRelative("Data file", df.getPath());
            if (df.hasBaseId() && !baseIds.contains(df.getBaseId())) {
                throw new InvalidTableMetadataException("Data file " + df.getPath() + " names unknown base id " + df.getBaseId() + where);
            }
            boolean v2 = df.getFileMajorVersion() >= 2 || (df.getFileMajorVersion() == 0 && df.getFileMinorVersion() == 3);
            if (v2 && df.getFieldsCount() != df.getColumnIndicesCount()) {
                throw new InvalidTableMetadataException("Data file " + df.getPath() + " has " + df.getFieldsCount()
                        + " fields but " + df.getColumnIndicesCount() + " column indices" + where);
            }
        }
        if (f.hasDeletionFile()) {
            var d = f.getDeletionFile();
            if (f.getPhysicalRows() > 0 && d.getNumDeletedRows() > f.getPhysicalRows()) {
                throw new InvalidTableMetadataException("Fragment " + f.getId() + " deletes " + d.getNumDeletedRows()
                        + " of " + f.getPhysicalRows() + " rows" + where);
            }
            if (d.hasBaseId() && !baseIds.contains(d.getBaseId())) {
                throw new InvalidTableMetadataException("Deletion file of fragment " + f.getId() + " names unknown base id "
                        + d.getBaseId() + where);
            }
        }
        if (f.hasExternalRowIds()) {
            SafePaths.checkRelative("Row id file", f.getExternalRowIds().getPath());
        }
    }
}
