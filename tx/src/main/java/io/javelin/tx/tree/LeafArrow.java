package io.javelin.tx.tree;

import static io.javelin.tx.tree.CorruptSnapshotException.check;

import com.google.protobuf.InvalidProtocolBufferException;
import io.javelin.tx.pb.DataFile;
import io.javelin.tx.pb.DataFragment;
import io.javelin.tx.pb.DataOverlayFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.FieldType;

/**
 * Converts between fragment records and the Arrow leaf batch of {@link LeafSchema}, validating
 * every leaf rule of spec 000 while decoding.
 */
public final class LeafArrow {

    private LeafArrow() {
    }

    /** An encoded batch: the root and the dictionaries it refers to. Close to free both. */
    public record Batch(VectorSchemaRoot root, DictionaryProvider.MapDictionaryProvider dictionaries)
            implements AutoCloseable {
        @Override
        public void close() {
            root.close();
            for (long id : dictionaries.getDictionaryIds()) {
                dictionaries.lookup(id).getVector().close();
            }
        }
    }

    /** Builds the leaf batch of {@code records} (sorted by id, complete records). */
    public static Batch encode(List<DataFragment> records, BufferAllocator allocator) {
        return encode(records, allocator, LeafSchema.SCHEMA);
    }

    /** Encodes with a variant of the leaf schema (same vector classes); for tests of schema checks. */
    static Batch encode(List<DataFragment> records, BufferAllocator allocator, org.apache.arrow.vector.types.pojo.Schema schema) {
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
        DictionaryProvider.MapDictionaryProvider dicts = new DictionaryProvider.MapDictionaryProvider();
        try {
            DictBuilder[] builders = new DictBuilder[4];
            for (int i = 0; i < 4; i++) {
                builders[i] = new DictBuilder();
            }
            UInt8Vector id = (UInt8Vector) root.getVector("id");
            VarBinaryVector meta = (VarBinaryVector) root.getVector("fragment_meta");
            ListVector files = (ListVector) root.getVector("files");
            ListVector overlays = (ListVector) root.getVector("overlays");
            StructVector fileItem = (StructVector) files.getDataVector();
            StructVector overlayItem = (StructVector) overlays.getDataVector();
            StructVector overlayFile = (StructVector) overlayItem.getChild("data_file");
            VarBinaryVector overlayMeta = (VarBinaryVector) overlayItem.getChild("overlay_meta");
            int fileIdx = 0;
            int overlayIdx = 0;
            for (int row = 0; row < records.size(); row++) {
                DataFragment f = records.get(row);
                id.setSafe(row, f.getId());
                meta.setSafe(row, f.toBuilder().setId(0).clearFiles().clearOverlays().build().toByteArray());
                files.startNewValue(row);
                for (DataFile df : f.getFilesList()) {
                    writeDataFile(fileItem, fileIdx++, df, builders[0], builders[1]);
                }
                files.endValue(row, f.getFilesCount());
                overlays.startNewValue(row);
                for (DataOverlayFile o : f.getOverlaysList()) {
                    writeDataFile(overlayFile, overlayIdx, o.getDataFile(), builders[2], builders[3]);
                    overlayItem.setIndexDefined(overlayIdx);
                    overlayMeta.setSafe(overlayIdx, o.toBuilder().clearDataFile().build().toByteArray());
                    overlayIdx++;
                }
                overlays.endValue(row, f.getOverlaysCount());
            }
            setCounts(fileItem, fileIdx);
            setCounts(overlayItem, overlayIdx);
            root.setRowCount(records.size());
            for (int i = 0; i < 4; i++) {
                FieldType type = FieldType.notNullable(org.apache.arrow.vector.types.pojo.ArrowType.Binary.INSTANCE);
                VarBinaryVector values = new VarBinaryVector("dict" + i, type, allocator);
                builders[i].fill(values);
                dicts.put(new Dictionary(values, new DictionaryEncoding(i, false, LeafSchema.INT32)));
            }
            return new Batch(root, dicts);
        } catch (RuntimeException e) {
            new Batch(root, dicts).close();
            throw e;
        }
    }

    private static void setCounts(StructVector struct, int count) {
        for (FieldVector child : struct.getChildrenFromFields()) {
            if (child instanceof StructVector s) {
                setCounts(s, count);
            } else {
                child.setValueCount(count);
            }
        }
        struct.setValueCount(count);
    }

    private static void writeDataFile(StructVector s, int idx, DataFile df, DictBuilder fields, DictBuilder cols) {
        s.setIndexDefined(idx);
        ((VarCharVector) s.getChild("path")).setSafe(idx, df.getPath().getBytes(java.nio.charset.StandardCharsets.UTF_8));
        ((IntVector) s.getChild("field_ids")).setSafe(idx, fields.key(df.getFieldsList()));
        ((IntVector) s.getChild("column_indices")).setSafe(idx, cols.key(df.getColumnIndicesList()));
        ((UInt4Vector) s.getChild("major_version")).setSafe(idx, df.getFileMajorVersion());
        ((UInt4Vector) s.getChild("minor_version")).setSafe(idx, df.getFileMinorVersion());
        ((UInt8Vector) s.getChild("file_size_bytes")).setSafe(idx, df.getFileSizeBytes());
        UInt4Vector base = (UInt4Vector) s.getChild("base_id");
        if (df.hasBaseId()) {
            base.setSafe(idx, df.getBaseId());
        } else {
            base.setNull(idx);
        }
    }

    /** Deduplicates mapping vectors by content. */
    private static final class DictBuilder {
        private final Map<ByteBuffer, Integer> keys = new HashMap<>();
        private final List<byte[]> values = new ArrayList<>();

        int key(List<Integer> vector) {
            ByteBuffer b = ByteBuffer.allocate(vector.size() * 4).order(ByteOrder.LITTLE_ENDIAN);
            for (int v : vector) {
                b.putInt(v);
            }
            byte[] bytes = b.array();
            return keys.computeIfAbsent(ByteBuffer.wrap(bytes), k -> {
                values.add(bytes);
                return values.size() - 1;
            });
        }

        void fill(VarBinaryVector v) {
            v.allocateNew(values.size());
            for (int i = 0; i < values.size(); i++) {
                v.setSafe(i, values.get(i));
            }
            v.setValueCount(values.size());
        }
    }

    // ------------------------------------------------------------------ decoding

    /**
     * Decodes and validates a leaf batch.
     *
     * @param owner resolved dataset of the leaf; a foreign owner stamps its base id on
     *              fragment-owned file references that have none
     */
    public static List<DataFragment> decode(VectorSchemaRoot root, DictionaryProvider dicts, Datasets.Owner owner) {
        check(LeafSchema.matches(root.getSchema()), Rule.R15_LEAF_SCHEMA, "leaf schema %s does not match the spec",
                root.getSchema());
        for (FieldVector v : root.getFieldVectors()) {
            checkNoNulls(v);
        }
        UInt8Vector id = (UInt8Vector) root.getVector("id");
        VarBinaryVector meta = (VarBinaryVector) root.getVector("fragment_meta");
        ListVector files = (ListVector) root.getVector("files");
        ListVector overlays = (ListVector) root.getVector("overlays");
        StructVector fileItem = (StructVector) files.getDataVector();
        StructVector overlayItem = (StructVector) overlays.getDataVector();
        StructVector overlayFile = (StructVector) overlayItem.getChild("data_file");
        VarBinaryVector overlayMeta = (VarBinaryVector) overlayItem.getChild("overlay_meta");
        Mappings fileMaps = new Mappings(fileItem, dicts);
        Mappings overlayMaps = new Mappings(overlayFile, dicts);
        int rows = root.getRowCount();
        List<DataFragment> out = new ArrayList<>(rows);
        long previous = -1;
        for (int row = 0; row < rows; row++) {
            long fid = id.get(row);
            check(fid >= 0 && fid <= 0xFFFF_FFFFL, Rule.R16_LEAF_IDS, "leaf id %s does not fit in u32",
                    Long.toUnsignedString(fid));
            check(fid > previous, Rule.R16_LEAF_IDS, "leaf ids not strictly increasing: %d after %d", fid, previous);
            previous = fid;
            DataFragment m;
            try {
                m = DataFragment.parseFrom(meta.get(row));
            } catch (InvalidProtocolBufferException e) {
                throw new CorruptSnapshotException(Rule.R17_FRAGMENT_META, "fragment_meta of " + fid + " does not parse", e);
            }
            check(m.getId() == 0, Rule.R17_FRAGMENT_META, "fragment_meta of %d carries id %d", fid, m.getId());
            check(m.getFilesCount() == 0 && m.getOverlaysCount() == 0, Rule.R17_FRAGMENT_META,
                    "fragment_meta of %d carries files or overlays", fid);
            DataFragment.Builder b = m.toBuilder().setId(fid);
            int fs = files.getOffsetBuffer().getInt((long) row * 4);
            int fe = files.getOffsetBuffer().getInt((long) (row + 1) * 4);
            for (int i = fs; i < fe; i++) {
                b.addFiles(readDataFile(fileItem, i, fileMaps, owner));
            }
            int os = overlays.getOffsetBuffer().getInt((long) row * 4);
            int oe = overlays.getOffsetBuffer().getInt((long) (row + 1) * 4);
            for (int i = os; i < oe; i++) {
                DataOverlayFile o;
                try {
                    o = DataOverlayFile.parseFrom(overlayMeta.get(i));
                } catch (InvalidProtocolBufferException e) {
                    throw new CorruptSnapshotException(Rule.R19_OVERLAY_META, "overlay_meta does not parse", e);
                }
                check(!o.hasDataFile(), Rule.R19_OVERLAY_META, "overlay_meta of %d carries data_file", fid);
                b.addOverlays(o.toBuilder().setDataFile(readDataFile(overlayFile, i, overlayMaps, owner)));
            }
            if (!owner.isCurrent() && b.hasDeletionFile() && !b.getDeletionFile().hasBaseId()) {
                b.setDeletionFile(b.getDeletionFile().toBuilder().setBaseId(owner.baseId()));
            }
            DataFragment f = b.build();
            Records.checkRecord(f);
            out.add(f);
        }
        return out;
    }

    private static void checkNoNulls(ValueVector v) {
        if (v.getName().equals("base_id")) {
            return;
        }
        check(v.getNullCount() == 0, Rule.R15_LEAF_SCHEMA, "non-nullable leaf column %s has nulls", v.getName());
        if (v instanceof ListVector l) {
            checkNoNulls(l.getDataVector());
        } else if (v instanceof StructVector s) {
            for (FieldVector c : s.getChildrenFromFields()) {
                checkNoNulls(c);
            }
        }
    }

    private static DataFile readDataFile(StructVector s, int i, Mappings maps, Datasets.Owner owner) {
        DataFile.Builder b = DataFile.newBuilder()
                .setPath(new String(((VarCharVector) s.getChild("path")).get(i), java.nio.charset.StandardCharsets.UTF_8))
                .addAllFields(maps.fields(i))
                .addAllColumnIndices(maps.columns(i))
                .setFileMajorVersion(((UInt4Vector) s.getChild("major_version")).get(i))
                .setFileMinorVersion(((UInt4Vector) s.getChild("minor_version")).get(i))
                .setFileSizeBytes(((UInt8Vector) s.getChild("file_size_bytes")).get(i));
        UInt4Vector base = (UInt4Vector) s.getChild("base_id");
        if (!base.isNull(i)) {
            b.setBaseId(base.get(i));
        } else if (!owner.isCurrent()) {
            b.setBaseId(owner.baseId());
        }
        return b.build();
    }

    /** Decoded mapping dictionaries of one data_file struct, compared by content. */
    private static final class Mappings {
        private final IntVector fieldKeys;
        private final IntVector columnKeys;
        private final List<List<Integer>> fieldValues;
        private final List<List<Integer>> columnValues;

        Mappings(StructVector s, DictionaryProvider dicts) {
            fieldKeys = (IntVector) s.getChild("field_ids");
            columnKeys = (IntVector) s.getChild("column_indices");
            fieldValues = values(fieldKeys, dicts);
            columnValues = values(columnKeys, dicts);
        }

        private static List<List<Integer>> values(IntVector keys, DictionaryProvider dicts) {
            DictionaryEncoding enc = keys.getField().getDictionary();
            Dictionary d = enc == null ? null : dicts.lookup(enc.getId());
            check(d != null, Rule.R20_MAPPING, "mapping column %s has no dictionary", keys.getName());
            check(d.getVector() instanceof VarBinaryVector, Rule.R15_LEAF_SCHEMA,
                    "dictionary of %s is not binary", keys.getName());
            VarBinaryVector v = (VarBinaryVector) d.getVector();
            check(v.getNullCount() == 0, Rule.R15_LEAF_SCHEMA, "dictionary of %s has null values", keys.getName());
            List<List<Integer>> out = new ArrayList<>(v.getValueCount());
            for (int i = 0; i < v.getValueCount(); i++) {
                byte[] bytes = v.get(i);
                check(bytes.length % 4 == 0, Rule.R20_MAPPING, "mapping value of %d bytes is not a multiple of 4",
                        bytes.length);
                ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
                List<Integer> vec = new ArrayList<>(bytes.length / 4);
                while (b.hasRemaining()) {
                    vec.add(b.getInt());
                }
                out.add(List.copyOf(vec));
            }
            return out;
        }

        List<Integer> fields(int i) {
            return lookup(fieldKeys, fieldValues, i);
        }

        List<Integer> columns(int i) {
            return lookup(columnKeys, columnValues, i);
        }

        private static List<Integer> lookup(IntVector keys, List<List<Integer>> values, int i) {
            int k = keys.get(i);
            check(k >= 0 && k < values.size(), Rule.R20_MAPPING, "dictionary key %d out of bounds [0, %d)", k,
                    values.size());
            return values.get(k);
        }
    }

}
