package io.javelin.tx.transaction;

import com.google.protobuf.ByteString;
import com.google.protobuf.Timestamp;
import io.javelin.encoding.pb.file.Field;
import io.javelin.tx.CommitConflictException;
import io.javelin.tx.InvalidTableMetadataException;
import io.javelin.tx.UnsupportedFeatureException;
import io.javelin.tx.manifest.FeatureFlags;
import io.javelin.tx.manifest.ManifestFile;
import io.javelin.tx.manifest.ManifestValidator;
import io.javelin.tx.pb.DataFile;
import io.javelin.tx.pb.DataFragment;
import io.javelin.tx.pb.IndexMetadata;
import io.javelin.tx.pb.IndexSection;
import io.javelin.tx.pb.Manifest;
import io.javelin.tx.pb.Transaction;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.roaringbitmap.RoaringBitmap;

/**
 * The next manifest from (the manifest the transaction is applied to, the transaction): Lance's
 * {@code build_manifest} for the operations this engine commits. Pure: no I/O, same inputs same output.
 *
 * <p>Fragment ids come from the {@code max_fragment_id} high-water mark and are never reused, also for
 * Overwrite (Lance 7.0.0 restarts at 0 there; newer Lance does not, and both read either).
 */
public final class ManifestBuilder {

    public static final Manifest.WriterVersion WRITER_VERSION =
            Manifest.WriterVersion.newBuilder().setLibrary("javelin").setVersion("0.1.0").build();
    public static final String DEFAULT_DATA_FORMAT = "2.1";

    /** The new manifest (version, flags, timestamp set; transaction offsets set by the codec) and its index section. */
    public record Built(Manifest manifest, IndexSection indexSection) {
    }

    private ManifestBuilder() {
    }

    /**
     * @param base          the latest manifest, null only when creating the dataset (read version 0)
     * @param restoreSource for Restore: the manifest of the version being restored, else null
     */
    public static Built build(ManifestFile base, Transaction txn, ManifestFile restoreSource, Instant now) {
        return build(base, txn, restoreSource, now, false);
    }

    /**
     * @param enableStableRowIds only when creating the dataset: turn on stable row ids (Lance
     *                           {@code enable_stable_row_ids}); an existing dataset keeps its own setting
     */
    public static Built build(ManifestFile base, Transaction txn, ManifestFile restoreSource, Instant now,
                              boolean enableStableRowIds) {
        if (base != null) {
            FeatureFlags.checkWritable(base.manifest());
        }
        Manifest.Builder m;
        IndexSection index = base == null || base.indexSection() == null ? null : base.indexSection();
        List<Integer> newFragmentIds = new ArrayList<>();
        boolean stableRowIds = base == null ? enableStableRowIds
                : (base.manifest().getReaderFeatureFlags() & FeatureFlags.STABLE_ROW_IDS) != 0;
        long version = base == null ? 1 : base.version() + 1;
        long nextRowId = base == null ? 0 : base.manifest().getNextRowId();
        // new fragments whose rows get fresh stable row ids (or keep preserved ones) and version stamps
        List<DataFragment.Builder> withNewRows = new ArrayList<>();
        boolean updatedRows = false;
        switch (OperationKind.of(txn)) {
            case OVERWRITE -> {
                Transaction.Overwrite o = txn.getOverwrite();
                m = base == null ? Manifest.newBuilder() : base.manifest().toBuilder();
                m.clearFields().addAllFields(o.getSchemaList()).clearSchemaMetadata().putAllSchemaMetadata(o.getSchemaMetadataMap())
                        .clearFragments().putAllConfig(o.getConfigUpsertValuesMap()).clearIndexSection();
                if (base == null) {
                    m.clearBasePaths().addAllBasePaths(o.getInitialBasesList());
                    m.setDataFormat(Manifest.DataStorageFormat.newBuilder().setFileFormat("lance")
                            .setVersion(dataFormatOf(o.getFragmentsList(), DEFAULT_DATA_FORMAT)));
                } else {
                    m.setDataFormat(m.getDataFormat().toBuilder().setFileFormat("lance")
                            .setVersion(dataFormatOf(o.getFragmentsList(), m.getDataFormat().getVersion())));
                }
                index = null; // an overwrite drops every index
                long next = nextFragmentId(m);
                for (DataFragment f : o.getFragmentsList()) {
                    checkNewFragment(f);
                    withNewRows.add(f.toBuilder().setId(next));
                    newFragmentIds.add((int) next++);
                }
                // as Lance: an overwrite keeps the dataset's stable-row-id setting and continues next_row_id
            }
            case APPEND -> {
                m = requireBase(base, txn).manifest().toBuilder();
                long next = nextFragmentId(m);
                for (DataFragment f : txn.getAppend().getFragmentsList()) {
                    checkNewFragment(f);
                    // only id 0 means "unassigned" (Lance fragments_with_ids); pre-reserved ids are kept
                    long id = f.getId() == 0 ? next++ : f.getId();
                    withNewRows.add(f.toBuilder().setId(id));
                    newFragmentIds.add((int) id);
                }
            }
            case DELETE -> {
                m = requireBase(base, txn).manifest().toBuilder();
                Transaction.Delete d = txn.getDelete();
                Map<Long, DataFragment> byId = fragments(m);
                for (DataFragment f : d.getUpdatedFragmentsList()) {
                    if (!byId.containsKey(f.getId())) {
                        throw new CommitConflictException("Delete updates fragment " + f.getId() + " which no longer exists");
                    }
                    byId.put(f.getId(), f);
                }
                for (long id : d.getDeletedFragmentIdsList()) {
                    byId.remove(id);
                }
                m.clearFragments().addAllFragments(byId.values());
            }
            case UPDATE -> {
                m = requireBase(base, txn).manifest().toBuilder();
                Transaction.Update u = txn.getUpdate();
                Map<Long, DataFragment> byId = fragments(m);
                for (long id : u.getRemovedFragmentIdsList()) {
                    byId.remove(id);
                }
                Set<Long> updatedIds = new HashSet<>();
                for (DataFragment f : u.getUpdatedFragmentsList()) {
                    if (!byId.containsKey(f.getId())) {
                        throw new CommitConflictException("Update modifies fragment " + f.getId() + " which no longer exists");
                    }
                    byId.put(f.getId(), f);
                    updatedIds.add(f.getId());
                }
                long next = nextFragmentId(m);
                for (DataFragment f : u.getNewFragmentsList()) {
                    checkNewFragment(f);
                    withNewRows.add(f.toBuilder().setId(next));
                    newFragmentIds.add((int) next++);
                }
                updatedRows = true;
                m.clearFragments().addAllFragments(byId.values());
                index = pruneIndexBitmaps(index, new HashSet<>(u.getFieldsModifiedList()), updatedIds);
            }
            case RESERVE_FRAGMENTS -> {
                m = requireBase(base, txn).manifest().toBuilder();
                long max = m.hasMaxFragmentId() ? Integer.toUnsignedLong(m.getMaxFragmentId()) : maxId(m);
                long reserved = max + txn.getReserveFragments().getNumFragments();
                checkU32(reserved);
                m.setMaxFragmentId((int) reserved);
            }
            case UPDATE_CONFIG -> {
                m = requireBase(base, txn).manifest().toBuilder();
                applyUpdateConfig(m, txn.getUpdateConfig());
            }
            case RESTORE -> {
                ManifestFile current = requireBase(base, txn);
                if (restoreSource == null || restoreSource.version() != txn.getRestore().getVersion()) {
                    throw new IllegalArgumentException("Restore needs the manifest of version " + txn.getRestore().getVersion());
                }
                m = restoreSource.manifest().toBuilder();
                index = restoreSource.indexSection();
                // restoring must not lower the high-water marks (ids would be reused)
                long max = Math.max(maxFragmentId(current.manifest()), maxFragmentId(restoreSource.manifest()));
                if (max >= 0) {
                    m.setMaxFragmentId((int) max);
                }
                m.setNextRowId(Math.max(current.manifest().getNextRowId(), restoreSource.manifest().getNextRowId()));
                stableRowIds = (restoreSource.manifest().getReaderFeatureFlags() & FeatureFlags.STABLE_ROW_IDS) != 0;
            }
            case CREATE_INDEX -> {
                m = requireBase(base, txn).manifest().toBuilder();
                index = applyCreateIndex(index, txn.getCreateIndex());
            }
            case MERGE -> {
                m = requireBase(base, txn).manifest().toBuilder();
                index = io.javelin.tx.evolution.EvolutionManifests.applyMerge(m, txn.getMerge(), index);
            }
            case PROJECT -> {
                m = requireBase(base, txn).manifest().toBuilder();
                index = io.javelin.tx.evolution.EvolutionManifests.applyProject(m, txn.getProject(), index);
            }
            case DATA_REPLACEMENT -> {
                m = requireBase(base, txn).manifest().toBuilder();
                io.javelin.tx.evolution.EvolutionManifests.applyDataReplacement(m, txn.getDataReplacement());
            }
            case REWRITE -> {
                m = requireBase(base, txn).manifest().toBuilder();
                index = RewriteApplier.apply(m, txn.getRewrite(), stableRowIds, index, newFragmentIds, version);
            }
            default -> throw new UnsupportedFeatureException("Committing a " + OperationKind.of(txn)
                    + " transaction is not supported by this engine yet");
        }
        if (stableRowIds) {
            for (DataFragment.Builder f : withNewRows) {
                nextRowId = io.javelin.tx.rowid.RowIdAssigner.assign(f, nextRowId);
                if (updatedRows) {
                    io.javelin.tx.rowid.RowIdAssigner.stampUpdated(f, version);
                } else {
                    io.javelin.tx.rowid.RowIdAssigner.stampNew(f, version);
                }
            }
            m.setNextRowId(nextRowId);
        }
        withNewRows.forEach(m::addFragments);
        m.setVersion(version).setWriterVersion(WRITER_VERSION).setVersionAuxData(0).setTag("")
                .setTimestamp(Timestamp.newBuilder().setSeconds(now.getEpochSecond()).setNanos(now.getNano()))
                .setTransactionFile(TransactionFiles.fileName(txn))
                .clearIndexSection().clearTransactionSection();
        io.javelin.tx.evolution.EvolutionManifests.removeTombstonedDataFiles(m);
        // Lance drops fragments whose rows are all deleted, and keeps the list sorted by id
        List<DataFragment> kept = new ArrayList<>();
        for (DataFragment f : m.getFragmentsList()) {
            long deleted = f.hasDeletionFile() ? f.getDeletionFile().getNumDeletedRows() : 0;
            if (!(f.getPhysicalRows() > 0 && deleted >= f.getPhysicalRows())) {
                kept.add(f);
            }
        }
        kept.sort(Comparator.comparingLong(DataFragment::getId));
        m.clearFragments().addAllFragments(kept);
        long hw = Math.max(maxFragmentId(m.build()), newFragmentIds.stream().mapToLong(Integer::toUnsignedLong).max().orElse(-1));
        if (hw >= 0) {
            checkU32(hw);
            m.setMaxFragmentId((int) hw);
        }
        FeatureFlags.apply(m, stableRowIds);
        checkDataFormat(m, newFragmentIds);
        Manifest built = m.build();
        ManifestValidator.validate(built, "(new manifest)");
        return new Built(built, index);
    }

    private static ManifestFile requireBase(ManifestFile base, Transaction txn) {
        if (base == null) {
            throw new IllegalArgumentException(OperationKind.of(txn) + " needs an existing dataset (read version "
                    + txn.getReadVersion() + ")");
        }
        return base;
    }

    /** Writers must never produce empty or unknown-size fragments (0 means "unknown" to Lance). */
    static void checkNewFragment(DataFragment f) {
        if (f.getPhysicalRows() <= 0) {
            throw new InvalidTableMetadataException("New fragment has physical_rows " + f.getPhysicalRows() + " (must be > 0)");
        }
        if (f.getFilesCount() == 0) {
            throw new InvalidTableMetadataException("New fragment has no data files");
        }
        for (DataFile df : f.getFilesList()) {
            if (df.getFieldsCount() == 0) {
                throw new InvalidTableMetadataException("Data file " + df.getPath() + " has no fields");
            }
        }
    }

    static long maxFragmentId(Manifest m) {
        return m.hasMaxFragmentId() ? Integer.toUnsignedLong(m.getMaxFragmentId()) : maxIdOf(m.getFragmentsList());
    }

    private static long maxId(Manifest.Builder m) {
        return maxIdOf(m.getFragmentsList());
    }

    private static long maxIdOf(List<DataFragment> fragments) {
        long max = -1;
        for (DataFragment f : fragments) {
            max = Math.max(max, f.getId());
        }
        return max;
    }

    static long nextFragmentId(Manifest.Builder m) {
        return (m.hasMaxFragmentId() ? Integer.toUnsignedLong(m.getMaxFragmentId()) : maxId(m)) + 1;
    }

    static void checkU32(long id) {
        if (id > 0xFFFF_FFFFL) {
            throw new InvalidTableMetadataException("Fragment ids exhausted: " + id + " does not fit u32");
        }
    }

    private static Map<Long, DataFragment> fragments(Manifest.Builder m) {
        Map<Long, DataFragment> byId = new LinkedHashMap<>();
        m.getFragmentsList().forEach(f -> byId.put(f.getId(), f));
        return byId;
    }

    /** The manifest data_format version of a data file, e.g. (2,1) → "2.1"; (0,3) is 2.0. */
    static String fileVersion(DataFile f) {
        int major = f.getFileMajorVersion();
        int minor = f.getFileMinorVersion();
        if (major == 0 && minor == 3) {
            return "2.0";
        }
        if (major == 0) {
            return "0.1";
        }
        return major + "." + minor;
    }

    private static String dataFormatOf(List<DataFragment> fragments, String fallback) {
        for (DataFragment f : fragments) {
            for (DataFile df : f.getFilesList()) {
                return fileVersion(df);
            }
        }
        return fallback;
    }

    /** Lance refuses datasets whose data files disagree with {@code data_format} (without flag 256). */
    private static void checkDataFormat(Manifest.Builder m, List<Integer> newIds) {
        String want = m.getDataFormat().getVersion();
        if (want.isEmpty() || newIds.isEmpty()) {
            return;
        }
        Set<Long> fresh = new HashSet<>();
        newIds.forEach(i -> fresh.add(Integer.toUnsignedLong(i)));
        for (DataFragment f : m.getFragmentsList()) {
            if (!fresh.contains(f.getId())) {
                continue;
            }
            for (DataFile df : f.getFilesList()) {
                if (!fileVersion(df).equals(want)) {
                    throw new InvalidTableMetadataException("The operation added files with version " + fileVersion(df)
                            + " but the dataset's data storage version is " + want + " (" + df.getPath() + ")");
                }
            }
        }
    }

    private static void applyUpdateConfig(Manifest.Builder m, Transaction.UpdateConfig u) {
        // legacy members (older writers) first, then the UpdateMap ones
        m.putAllConfig(u.getUpsertValuesMap());
        u.getDeleteKeysList().forEach(m::removeConfig);
        if (u.hasConfigUpdates()) {
            Map<String, String> c = apply(new LinkedHashMap<>(m.getConfigMap()), u.getConfigUpdates());
            m.clearConfig().putAllConfig(c);
        }
        if (u.hasTableMetadataUpdates()) {
            Map<String, String> c = apply(new LinkedHashMap<>(m.getTableMetadataMap()), u.getTableMetadataUpdates());
            m.clearTableMetadata().putAllTableMetadata(c);
        }
        u.getSchemaMetadataMap().forEach((k, v) -> m.putSchemaMetadata(k, ByteString.copyFromUtf8(v)));
        if (u.hasSchemaMetadataUpdates()) {
            Map<String, String> s = new LinkedHashMap<>();
            m.getSchemaMetadataMap().forEach((k, v) -> s.put(k, v.toStringUtf8()));
            Map<String, String> c = apply(s, u.getSchemaMetadataUpdates());
            m.clearSchemaMetadata();
            c.forEach((k, v) -> m.putSchemaMetadata(k, ByteString.copyFromUtf8(v)));
        }
        Map<Integer, Transaction.UpdateMap> fieldUpdates = new HashMap<>(u.getFieldMetadataUpdatesMap());
        Map<Integer, Transaction.UpdateConfig.FieldMetadataUpdate> legacyFields = new HashMap<>();
        u.getFieldMetadataMap().forEach((k, v) -> legacyFields.put(k, v));
        if (fieldUpdates.isEmpty() && legacyFields.isEmpty()) {
            return;
        }
        for (int i = 0; i < m.getFieldsCount(); i++) {
            Field f = m.getFields(i);
            Transaction.UpdateMap um = fieldUpdates.remove(f.getId());
            Transaction.UpdateConfig.FieldMetadataUpdate legacy = legacyFields.remove(f.getId());
            if (um == null && legacy == null) {
                continue;
            }
            Map<String, String> md = new LinkedHashMap<>();
            f.getMetadataMap().forEach((k, v) -> md.put(k, v.toStringUtf8()));
            if (legacy != null) {
                md.putAll(legacy.getMetadataMap());
            }
            if (um != null) {
                apply(md, um);
            }
            Field.Builder fb = f.toBuilder().clearMetadata();
            md.forEach((k, v) -> fb.putMetadata(k, ByteString.copyFromUtf8(v)));
            m.setFields(i, fb);
        }
        if (!fieldUpdates.isEmpty() || !legacyFields.isEmpty()) {
            throw new InvalidTableMetadataException("UpdateConfig names unknown field ids " + fieldUpdates.keySet() + legacyFields.keySet());
        }
    }

    private static Map<String, String> apply(Map<String, String> target, Transaction.UpdateMap um) {
        if (um.getReplace()) {
            target.clear();
        }
        for (Transaction.UpdateMapEntry e : um.getUpdateEntriesList()) {
            if (e.hasValue()) {
                target.put(e.getKey(), e.getValue());
            } else {
                target.remove(e.getKey());
            }
        }
        return target;
    }

    private static IndexSection applyCreateIndex(IndexSection index, Transaction.CreateIndex ci) {
        // raw 16-byte uuids compared as bytes (a UTF-8 decoding would map distinct invalid sequences to the same string)
        Set<ByteString> removedUuids = new HashSet<>();
        ci.getRemovedIndicesList().forEach(i -> removedUuids.add(i.getUuid().getUuid()));
        Set<String> newNames = new HashSet<>();
        ci.getNewIndicesList().forEach(i -> newNames.add(i.getName()));
        List<IndexMetadata> out = new ArrayList<>();
        if (index != null) {
            for (IndexMetadata im : index.getIndicesList()) {
                if (!removedUuids.contains(im.getUuid().getUuid()) && !newNames.contains(im.getName())) {
                    out.add(im);
                }
            }
        }
        out.addAll(ci.getNewIndicesList());
        return out.isEmpty() ? null : IndexSection.newBuilder().addAllIndices(out).build();
    }

    /** Rows rewritten in place invalidate index coverage of those fragments for the modified fields. */
    private static IndexSection pruneIndexBitmaps(IndexSection index, Set<Integer> fieldsModified, Set<Long> fragmentIds) {
        if (index == null || fieldsModified.isEmpty() || fragmentIds.isEmpty()) {
            return index;
        }
        IndexSection.Builder out = IndexSection.newBuilder();
        for (IndexMetadata im : index.getIndicesList()) {
            boolean affected = im.getFieldsList().stream().anyMatch(f -> fieldsModified.contains(f));
            if (!affected || im.getFragmentBitmap().isEmpty()) {
                out.addIndices(im);
                continue;
            }
            try {
                RoaringBitmap rb = new RoaringBitmap();
                rb.deserialize(ByteBuffer.wrap(im.getFragmentBitmap().toByteArray()));
                fragmentIds.forEach(id -> rb.remove((int) (long) id));
                rb.removeRunCompression();
                ByteBuffer buf = ByteBuffer.allocate(rb.serializedSizeInBytes());
                rb.serialize(buf);
                out.addIndices(im.toBuilder().setFragmentBitmap(ByteString.copyFrom(buf.array())));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return out.build();
    }

}
