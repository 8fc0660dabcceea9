package io.javelin.encoding.writer.v20;

import io.javelin.encoding.pb.v20.ArrayEncoding;
import io.javelin.encoding.pb.v20.Binary;
import io.javelin.encoding.pb.v20.Buffer;
import io.javelin.encoding.pb.v20.FixedSizeList;
import io.javelin.encoding.pb.v20.Flat;
import io.javelin.encoding.pb.v20.List;
import io.javelin.encoding.pb.v20.Nullable;
import io.javelin.encoding.pb.v20.PackedStruct;
import io.javelin.encoding.pb.v20.SimpleStruct;
import io.javelin.encoding.writer.Bytes;
import io.javelin.encoding.writer.ColumnWriters;
import io.javelin.encoding.writer.EncodedPage;
import io.javelin.encoding.writer.LeafType;
import io.javelin.encoding.writer.LeafValues;
import io.javelin.encoding.writer.UnsupportedTypeException;
import io.javelin.encoding.writer.WriteOptions;
import java.util.ArrayList;
import java.util.Map;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The columns of a 2.0 file: one per field in pre-order (file-format.md §2, §4.2). Struct-level
 * nulls are not stored (as in Lance 2.0); lists store offsets in their own column.
 */
public final class LegacyColumns implements ColumnWriters {
    static final String COMPRESSION = "lance-encoding:compression";
    private final java.util.List<Col> roots = new ArrayList<>();
    private final WriteOptions options;
    private int next;
    private final java.util.List<EncodedPage> pages = new ArrayList<>();
    private final java.util.List<Integer> cols = new ArrayList<>();
    private java.util.List<Integer> last = java.util.List.of();

    public LegacyColumns(Schema schema, WriteOptions options) {
        this.options = options;
        for (Field f : schema.getFields()) {
            roots.add(build(f));
        }
    }

    private Col build(Field f) {
        int idx = next++;
        ArrowType t = f.getType();
        if (LeafType.isPacked(f)) {
            // One column of row-major fixed-width children (PackedStruct); 2.0 keeps no struct validity.
            return new PrimitiveCol(idx, LeafType.packedStruct(f), Map.of(), false);
        }
        if (t instanceof ArrowType.Struct) {
            if (f.getChildren().isEmpty()) {
                throw new UnsupportedTypeException("Empty struct field '" + f.getName() + "' is not supported");
            }
            java.util.List<Col> children = new ArrayList<>();
            for (Field c : f.getChildren()) {
                children.add(build(c));
            }
            return new StructCol(idx, children);
        }
        if (t instanceof ArrowType.List || t instanceof ArrowType.LargeList) {
            return new ListCol(idx, t instanceof ArrowType.LargeList, build(f.getChildren().get(0)));
        }
        if (t instanceof ArrowType.Map) {
            throw new UnsupportedTypeException("Map field '" + f.getName() + "' needs file version 2.2 or later");
        }
        LeafType lt = LeafType.of(f);
        if (lt.kind() == LeafType.Kind.FSL && lt.dims().length > 1) {
            throw new UnsupportedTypeException("Nested fixed_size_list field '" + f.getName() + "' is not supported in 2.0");
        }
        Map<String, String> meta = f.getMetadata() == null ? Map.of() : f.getMetadata();
        return new PrimitiveCol(idx, lt, meta, t instanceof ArrowType.Utf8);
    }

    @Override
    public int numColumns() {
        return next;
    }

    @Override
    public java.util.List<EncodedPage> append(VectorSchemaRoot batch) {
        pages.clear();
        cols.clear();
        int n = batch.getRowCount();
        for (int c = 0; c < roots.size(); c++) {
            FieldVector v = batch.getVector(c);
            if (v.getValueCount() < n) {
                throw new io.javelin.encoding.writer.SchemaMismatchException("Column " + v.getName() + " has "
                        + v.getValueCount() + " values, the batch has " + n + " rows");
            }
            roots.get(c).append(v, 0, n);
        }
        last = new ArrayList<>(cols);
        return new ArrayList<>(pages);
    }

    @Override
    public java.util.List<EncodedPage> finish() {
        pages.clear();
        cols.clear();
        for (Col c : roots) {
            c.finish();
        }
        last = new ArrayList<>(cols);
        return new ArrayList<>(pages);
    }

    @Override
    public java.util.List<Integer> lastColumns() {
        return last;
    }

    private void emit(int col, EncodedPage p) {
        pages.add(p);
        cols.add(col);
    }

    static Buffer buf(int index) {
        return Buffer.newBuilder().setBufferIndex(index).setBufferType(Buffer.BufferType.page).build();
    }

    static ArrayEncoding flat(int bits, int buffer) {
        return ArrayEncoding.newBuilder().setFlat(Flat.newBuilder().setBitsPerValue(bits).setBuffer(buf(buffer))).build();
    }

    static ArrayEncoding noNulls(ArrayEncoding values) {
        return ArrayEncoding.newBuilder().setNullable(Nullable.newBuilder()
                .setNoNulls(Nullable.NoNull.newBuilder().setValues(values))).build();
    }

    static ArrayEncoding someNulls(ArrayEncoding validity, ArrayEncoding values) {
        return ArrayEncoding.newBuilder().setNullable(Nullable.newBuilder()
                .setSomeNulls(Nullable.SomeNull.newBuilder().setValidity(validity).setValues(values))).build();
    }

    static ArrayEncoding allNulls() {
        return ArrayEncoding.newBuilder().setNullable(Nullable.newBuilder()
                .setAllNulls(Nullable.AllNull.getDefaultInstance())).build();
    }

    static byte[] bitmap(Bytes flags, int from, int count) {
        byte[] out = new byte[(count + 7) / 8];
        byte[] a = flags.array();
        for (int i = 0; i < count; i++) {
            if (a[from + i] != 0) {
                out[i >> 3] |= (byte) (1 << (i & 7));
            }
        }
        return out;
    }

    private abstract class Col {
        final int index;
        /** False under a list: the list flushes its items together with its offsets page (Lance 2.0 rule). */
        boolean independent = true;

        Col(int index) {
            this.index = index;
        }

        abstract void append(FieldVector v, int start, int count);

        abstract void finish();

        /** Bytes buffered in this column and its descendants. */
        abstract long buffered();

        /** Emits whatever this column and its descendants buffered (not the struct header pages). */
        abstract void flushAll();

        void dependent() {
            independent = false;
        }
    }

    private final class StructCol extends Col {
        final java.util.List<Col> children;
        long count;

        StructCol(int index, java.util.List<Col> children) {
            super(index);
            this.children = children;
        }

        @Override
        long buffered() {
            long b = 0;
            for (Col c : children) {
                b += c.buffered();
            }
            return b;
        }

        @Override
        void flushAll() {
            for (Col c : children) {
                c.flushAll();
            }
        }

        @Override
        void dependent() {
            super.dependent();
            for (Col c : children) {
                c.dependent();
            }
        }

        @Override
        void append(FieldVector v, int start, int count) {
            StructVector s = (StructVector) v;
            this.count += count;
            for (int i = 0; i < children.size(); i++) {
                children.get(i).append((FieldVector) s.getChildByOrdinal(i), start, count);
            }
        }

        @Override
        void finish() {
            ArrayEncoding e = ArrayEncoding.newBuilder().setStruct(SimpleStruct.getDefaultInstance()).build();
            emit(index, new EncodedPage(java.util.List.of(), e, count, 0));
            for (Col c : children) {
                c.finish();
            }
        }
    }

    private final class ListCol extends Col {
        final boolean large;
        final Col child;
        final Bytes lengths = new Bytes(1024);
        final Bytes valid = new Bytes(256);
        int rows;
        long items;

        ListCol(int index, boolean large, Col child) {
            super(index);
            this.large = large;
            this.child = child;
            child.dependent();
        }

        @Override
        long buffered() {
            return lengths.size() + child.buffered();
        }

        @Override
        void flushAll() {
            if (rows > 0) {
                flush();
            }
        }

        @Override
        void append(FieldVector v, int start, int count) {
            FieldVector data = large ? ((LargeListVector) v).getDataVector() : ((ListVector) v).getDataVector();
            int runStart = -1;
            int runEnd = -1;
            for (int i = start; i < start + count; i++) {
                long s;
                long e;
                if (large) {
                    s = ((LargeListVector) v).getOffsetBuffer().getLong((long) i * 8);
                    e = ((LargeListVector) v).getOffsetBuffer().getLong((long) (i + 1) * 8);
                } else {
                    s = ((ListVector) v).getOffsetBuffer().getInt((long) i * 4);
                    e = ((ListVector) v).getOffsetBuffer().getInt((long) (i + 1) * 4);
                }
                boolean nul = v.isNull(i);
                long len = nul ? 0 : e - s;
                lengths.u64(len);
                valid.u8(nul ? 0 : 1);
                rows++;
                items += len;
                if (len > 0) {
                    if (runEnd == s) {
                        runEnd = (int) e;
                    } else {
                        if (runStart >= 0) {
                            child.append(data, runStart, runEnd - runStart);
                        }
                        runStart = (int) s;
                        runEnd = (int) e;
                    }
                }
                if (independent && (i - start) % 64 == 63) {
                    if (runStart >= 0) {
                        child.append(data, runStart, runEnd - runStart);
                        runStart = -1;
                        runEnd = -1;
                    }
                    if (buffered() >= options.pageSizeBytes()) {
                        flush();
                    }
                }
            }
            if (runStart >= 0) {
                child.append(data, runStart, runEnd - runStart);
            }
            if (independent && buffered() >= options.pageSizeBytes()) {
                flush();
            }
        }

        /** The offsets page, then every descendant's buffered items (an items page never spans two offsets pages). */
        void flush() {
            long adj = items + 1;
            Bytes offs = new Bytes(rows * 8);
            long end = 0;
            for (int i = 0; i < rows; i++) {
                end += lengths.getU64(i * 8);
                offs.u64(valid.getU8(i) == 0 ? end + adj : end);
            }
            ArrayEncoding e = ArrayEncoding.newBuilder().setList(List.newBuilder()
                    .setOffsets(noNulls(flat(64, 0)))
                    .setNullOffsetAdjustment(adj)
                    .setNumItems(items)).build();
            emit(index, new EncodedPage(java.util.List.of(offs), e, rows, 0));
            lengths.clear();
            valid.clear();
            rows = 0;
            items = 0;
            child.flushAll();
        }

        @Override
        void finish() {
            if (rows > 0) {
                flush();
            }
            child.finish();
        }

        @Override
        void dependent() {
            super.dependent();
            child.dependent();
        }
    }

    private final class PrimitiveCol extends Col {
        final LeafType type;
        final LeafValues values;
        final Bytes valid = new Bytes(1024);
        final Map<String, String> meta;
        final boolean utf8;
        int nulls;

        PrimitiveCol(int index, LeafType type, Map<String, String> meta, boolean utf8) {
            super(index);
            this.type = type;
            this.values = new LeafValues(type);
            this.meta = meta;
            this.utf8 = utf8;
        }

        @Override
        void append(FieldVector v, int start, int count) {
            boolean packed = type.packed() != null;
            for (int i = start; i < start + count; i++) {
                if (!packed && v.isNull(i)) {
                    valid.u8(0);
                    nulls++;
                    values.appendNull();
                } else {
                    valid.u8(1);
                    values.append(v, i);
                }
                if (independent && values.bufferedBytes() >= options.pageSizeBytes()) {
                    flush();
                }
            }
        }

        @Override
        void finish() {
            if (values.count() > 0) {
                flush();
            }
        }

        @Override
        long buffered() {
            return values.bufferedBytes();
        }

        @Override
        void flushAll() {
            if (values.count() > 0) {
                flush();
            }
        }

        void flush() {
            int n = values.count();
            EncodedPage page = switch (type.kind()) {
                case VARIABLE -> binary(n);
                case FIXED, BOOL, FSL -> fixed(n);
            };
            emit(index, page);
            values.clear();
            valid.clear();
            nulls = 0;
        }

        /** Lance 2.0 dictionary-encodes Utf8 pages of ≥ 100 rows with fewer than 100 distinct values. */
        private EncodedPage dictionary(int n) {
            if (!utf8 || n < 100 || nulls == n || meta.containsKey(COMPRESSION)) {
                return null;
            }
            java.util.HashMap<java.nio.ByteBuffer, Integer> ids = new java.util.HashMap<>();
            byte[] data = values.data().array();
            Bytes idx = new Bytes(n);
            Bytes itemEnds = new Bytes(800);
            Bytes itemBytes = new Bytes(1024);
            for (int i = 0; i < n; i++) {
                if (valid.getU8(i) == 0) {
                    idx.u8(0);
                    continue;
                }
                int s = (int) values.start(i);
                int len = (int) (values.end(i) - s);
                java.nio.ByteBuffer key = java.nio.ByteBuffer.wrap(data, s, len);
                Integer id = ids.get(key);
                if (id == null) {
                    if (ids.size() >= 99) {
                        return null;
                    }
                    id = ids.size() + 1;
                    ids.put(key, id);
                    itemBytes.put(data, s, len);
                    itemEnds.u64(itemBytes.size());
                }
                idx.u8(id);
            }
            ArrayEncoding items = ArrayEncoding.newBuilder().setBinary(Binary.newBuilder()
                    .setIndices(noNulls(flat(64, 1)))
                    .setBytes(flat(8, 2))
                    .setNullAdjustment(itemBytes.size() + 1L)).build();
            ArrayEncoding e = ArrayEncoding.newBuilder().setDictionary(io.javelin.encoding.pb.v20.Dictionary.newBuilder()
                    .setIndices(noNulls(flat(8, 0)))
                    .setItems(items)
                    .setNumDictionaryItems(ids.size())).build();
            return new EncodedPage(java.util.List.of(idx, itemEnds, itemBytes), e, n, 0);
        }

        private EncodedPage binary(int n) {
            EncodedPage dict = dictionary(n);
            if (dict != null) {
                return dict;
            }
            long last = n == 0 ? 0 : values.end(n - 1);
            long adj = last + 1;
            Bytes idx = new Bytes(n * 8);
            for (int i = 0; i < n; i++) {
                idx.u64(valid.getU8(i) == 0 ? values.end(i) + adj : values.end(i));
            }
            Bytes bytes = Bytes.wrap(values.data().toArray());
            ArrayEncoding bytesEnc = flat(8, 1);
            String comp = meta.get(COMPRESSION);
            if (comp != null && (comp.equalsIgnoreCase("zstd") || comp.equalsIgnoreCase("lz4"))) {
                io.javelin.encoding.compress.BufferCodec codec =
                        io.javelin.encoding.compress.BufferCompression.forName(comp);
                byte[] dst = new byte[(int) codec.maxCompressedLength(bytes.size())];
                int w = (int) codec.compress(bytes.segment(), java.lang.foreign.MemorySegment.ofArray(dst));
                bytes = Bytes.wrap(java.util.Arrays.copyOf(dst, w));
                bytesEnc = ArrayEncoding.newBuilder().setFlat(Flat.newBuilder().setBitsPerValue(8).setBuffer(buf(1))
                        .setCompression(io.javelin.encoding.pb.v20.Compression.newBuilder()
                                .setScheme(comp.toLowerCase(java.util.Locale.ROOT)))).build();
            }
            ArrayEncoding e = ArrayEncoding.newBuilder().setBinary(Binary.newBuilder()
                    .setIndices(noNulls(flat(64, 0)))
                    .setBytes(bytesEnc)
                    .setNullAdjustment(adj)).build();
            return new EncodedPage(java.util.List.of(idx, bytes), e, n, 0);
        }

        /** Lance 2.0's PackedStructEncoder: one row-major buffer, a Flat per child, no validity. */
        private EncodedPage packedStruct(int n) {
            PackedStruct.Builder ps = PackedStruct.newBuilder().setBuffer(buf(0));
            for (int w : type.packed()) {
                ps.addInner(noNulls(flat(w * 8, 0)));
            }
            ArrayEncoding e = ArrayEncoding.newBuilder().setPackedStruct(ps).build();
            return new EncodedPage(java.util.List.of(Bytes.wrap(values.data().toArray())), e, n, 0);
        }

        private EncodedPage fixed(int n) {
            if (type.packed() != null) {
                return packedStruct(n);
            }
            if (nulls == n) {
                return new EncodedPage(java.util.List.of(), allNulls(), n, 0);
            }
            java.util.List<Bytes> bufs = new ArrayList<>();
            int b = 0;
            ArrayEncoding validity = null;
            if (nulls > 0) {
                bufs.add(Bytes.wrap(bitmap(valid, 0, n)));
                validity = flat(1, b++);
            }
            ArrayEncoding vals;
            if (type.kind() == LeafType.Kind.BOOL) {
                bufs.add(Bytes.wrap(bitmap(values.data(), 0, n)));
                vals = flat(1, b++);
            } else if (type.kind() == LeafType.Kind.FIXED) {
                bufs.add(Bytes.wrap(values.data().toArray()));
                vals = flat(type.byteWidth() * 8, b++);
            } else {
                int dim = type.dims()[0];
                ArrayEncoding items;
                if (values.layerHasNull(0)) {
                    bufs.add(Bytes.wrap(bitmap(values.validity(0), 0, n * dim)));
                    ArrayEncoding iv = flat(1, b++);
                    bufs.add(Bytes.wrap(values.data().toArray()));
                    items = someNulls(iv, flat(type.byteWidth() * 8, b++));
                } else {
                    bufs.add(Bytes.wrap(values.data().toArray()));
                    items = noNulls(flat(type.byteWidth() * 8, b++));
                }
                vals = ArrayEncoding.newBuilder().setFixedSizeList(FixedSizeList.newBuilder()
                        .setDimension(dim).setItems(items)).build();
            }
            ArrayEncoding e = validity == null ? noNulls(vals) : someNulls(validity, vals);
            return new EncodedPage(bufs, e, n, 0);
        }
    }
}
