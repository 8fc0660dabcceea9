package io.javelin.encoding.writer;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import com.google.protobuf.Empty;
import io.javelin.encoding.pb.ColumnMetadata;
import io.javelin.encoding.pb.DirectEncoding;
import io.javelin.encoding.pb.Encoding;
import io.javelin.encoding.pb.v20.ColumnEncoding;
import io.javelin.encoding.writer.v20.LegacyColumns;
import io.javelin.encoding.writer.v21.StructuralColumns;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The synchronous core of the writer: turns batches into the bytes of one Lance file, in file
 * order. Not thread-safe; {@link LanceFileWriter} drives it from a single Reactor pipeline.
 *
 * <p>Layout (file-format.md §1): data pages (each buffer padded to 64 bytes with {@code 'H'}), the
 * schema (global buffer 0), column metadata, CMO table, GBO table, 40-byte footer.
 */
public final class FileEncoder {
    static final int ALIGN = 64;
    static final byte PAD = 72;
    private static final byte[] MAGIC = {'L', 'A', 'N', 'C'};

    private final Schema schema;
    private final WriteOptions options;
    private final ColumnWriters columns;
    private final List<ColumnMetadata.Builder> metadata = new ArrayList<>();
    private long position;
    private long rows;
    private boolean finished;
    private final List<byte[]> extraGlobalBuffers = new ArrayList<>();
    /** Top-level blob fields: field index, column index and the rows that were null (2.1+ page layers). */
    private final List<Integer> blobFields;
    private final Schema physical;
    private final java.util.Map<Integer, BlobNulls> blobColumns = new java.util.HashMap<>();
    /** Top-level blob v2 fields (encoded by {@link BlobV2Columns}, not the column writers) and their file columns. */
    private final List<Integer> blobV2Fields;
    private final int[] blobV2Columns;
    /** Column of the column writers → column of the file (blob v2 columns are interleaved). */
    private final int[] fileColumn;

    /** Null rows of a blob column, consumed page by page in row order. */
    private static final class BlobNulls {
        long[] rows = new long[0];
        int size;
        int next;

        void add(long[] r, int n) {
            if (size + n > rows.length) {
                rows = java.util.Arrays.copyOf(rows, Math.max(size + n, 2 * rows.length));
            }
            System.arraycopy(r, 0, rows, size, n);
            size += n;
        }

        boolean anyIn(long first, long count) {
            boolean any = false;
            while (next < size && rows[next] < first + count) {
                any |= rows[next] >= first;
                next++;
            }
            return any;
        }
    }

    public FileEncoder(Schema schema, WriteOptions options) {
        this.schema = Objects.requireNonNull(schema, "schema");
        this.options = Objects.requireNonNull(options, "options");
        for (Field f : schema.getFields()) {
            LogicalTypes.logicalType(f);
        }
        this.blobV2Fields = BlobV2Columns.topLevel(schema, options.version());
        Schema withoutV2 = schema;
        if (!blobV2Fields.isEmpty()) {
            List<Field> kept = new ArrayList<>(schema.getFields());
            for (int k = blobV2Fields.size() - 1; k >= 0; k--) {
                kept.remove((int) blobV2Fields.get(k));
            }
            withoutV2 = new Schema(kept, schema.getCustomMetadata());
        }
        this.blobFields = BlobFields.topLevel(withoutV2);
        this.physical = BlobFields.physical(withoutV2, blobFields);
        this.columns = writers(physical, options);
        this.blobV2Columns = new int[blobV2Fields.size()];
        this.fileColumn = new int[columns.numColumns()];
        int writerCol = 0;
        int fileCol = 0;
        int v2 = 0;
        for (int i = 0; i < schema.getFields().size(); i++) {
            if (v2 < blobV2Fields.size() && blobV2Fields.get(v2) == i) {
                blobV2Columns[v2++] = fileCol++;
                continue;
            }
            int n = writers(new Schema(List.of(schema.getFields().get(i))), options).numColumns();
            for (int c = 0; c < n; c++) {
                fileColumn[writerCol++] = fileCol++;
            }
        }
        ByteString colEnc = Any.pack(ColumnEncoding.newBuilder().setValues(Empty.getDefaultInstance()).build(), "")
                .toByteString();
        for (int i = 0; i < columns.numColumns() + blobV2Fields.size(); i++) {
            metadata.add(ColumnMetadata.newBuilder().setEncoding(Encoding.newBuilder()
                    .setDirect(DirectEncoding.newBuilder().setEncoding(colEnc))));
        }
        for (int f : blobFields) {
            int col = fileColumn[writers(new Schema(physical.getFields().subList(0, f)), options).numColumns()];
            blobColumns.put(col, new BlobNulls());
            if (!options.version().structural()) {
                ByteString blobEnc = Any.pack(ColumnEncoding.newBuilder().setBlob(io.javelin.encoding.pb.v20.Blob.newBuilder()
                        .setInner(ColumnEncoding.newBuilder().setValues(Empty.getDefaultInstance()))).build(), "").toByteString();
                metadata.get(col).setEncoding(Encoding.newBuilder().setDirect(DirectEncoding.newBuilder().setEncoding(blobEnc)));
            }
        }
    }

    private static ColumnWriters writers(Schema schema, WriteOptions options) {
        return options.version().structural()
                ? new StructuralColumns(schema, options)
                : new LegacyColumns(schema, options);
    }

    public Schema schema() {
        return schema;
    }

    public long rows() {
        return rows;
    }

    public long position() {
        return position;
    }

    /** Encodes one batch; returns the bytes of the pages that filled up (possibly none). */
    public List<ByteBuffer> write(VectorSchemaRoot batch) {
        if (finished) {
            throw new IllegalStateException("File already finished");
        }
        checkSchema(batch.getSchema());
        if (!blobV2Fields.isEmpty()) {
            return writeWithBlobV2(batch);
        }
        if (blobFields.isEmpty()) {
            List<EncodedPage> pages = columns.append(batch);
            rows += batch.getRowCount();
            return emit(pages, columns.lastColumns());
        }
        // Blob values go out of line ahead of this batch's pages; the columns see descriptors.
        List<ByteBuffer> out = new ArrayList<>();
        List<org.apache.arrow.vector.FieldVector> vectors = new ArrayList<>(batch.getFieldVectors());
        List<org.apache.arrow.vector.FieldVector> owned = new ArrayList<>();
        try {
            int n = batch.getRowCount();
            List<Integer> cols = new ArrayList<>(blobColumns.keySet());
            java.util.Collections.sort(cols);
            for (int b = 0; b < blobFields.size(); b++) {
                int f = blobFields.get(b);
                org.apache.arrow.vector.LargeVarBinaryVector v = (org.apache.arrow.vector.LargeVarBinaryVector) batch.getVector(f);
                BlobFields.Out o = BlobFields.externalize(v, n, position, ALIGN,
                        options.version().structural() ? 1L << 16 : 1L, rows, v.getAllocator());
                owned.add(o.descriptors());
                vectors.set(f, o.descriptors());
                out.addAll(o.bytes());
                position = o.newPosition();
                blobColumns.get(cols.get(b)).add(o.nullRows(), o.nulls());
            }
            VectorSchemaRoot phys = new VectorSchemaRoot(physical.getFields(), vectors, n);
            List<EncodedPage> pages = columns.append(phys);
            rows += n;
            out.addAll(emit(pages, columns.lastColumns()));
            return out;
        } finally {
            owned.forEach(org.apache.arrow.vector.FieldVector::close);
        }
    }

    /** Blob v2 columns: inline bytes and descriptor pages first, then the other columns' batch (without them). */
    private List<ByteBuffer> writeWithBlobV2(VectorSchemaRoot batch) {
        List<ByteBuffer> out = new ArrayList<>();
        int n = batch.getRowCount();
        List<EncodedPage> v2Pages = new ArrayList<>();
        List<Integer> v2Cols = new ArrayList<>();
        for (int k = 0; k < blobV2Fields.size(); k++) {
            var v = (org.apache.arrow.vector.complex.StructVector) batch.getVector(blobV2Fields.get(k));
            BlobV2Columns.Out o = BlobV2Columns.encode(v, n, position, ALIGN, PAD, rows);
            for (ByteBuffer b : o.inline()) {
                out.add(b);
            }
            position = o.newPosition();
            v2Pages.add(o.page());
            v2Cols.add(blobV2Columns[k]);
        }
        out.addAll(emitAt(v2Pages, v2Cols));
        List<org.apache.arrow.vector.FieldVector> rest = new ArrayList<>(batch.getFieldVectors());
        for (int k = blobV2Fields.size() - 1; k >= 0; k--) {
            rest.remove((int) blobV2Fields.get(k));
        }
        VectorSchemaRoot others = new VectorSchemaRoot(rest.stream().map(org.apache.arrow.vector.FieldVector::getField).toList(), rest, n);
        if (blobFields.isEmpty()) {
            List<EncodedPage> pages = columns.append(others);
            rows += n;
            out.addAll(emit(pages, columns.lastColumns()));
            return out;
        }
        throw new UnsupportedTypeException("A file cannot hold both legacy (lance-encoding:blob) and blob v2 columns");
    }

    /**
     * Adds a user global buffer (index files keep IVF models and codebooks there); the first one added
     * becomes global buffer 1 (0 is the schema). Must be called before {@link #finish()}.
     */
    public int addGlobalBuffer(byte[] bytes) {
        if (finished) {
            throw new IllegalStateException("File already finished");
        }
        extraGlobalBuffers.add(bytes.clone());
        return extraGlobalBuffers.size();
    }

    /** Flushes the last pages and writes schema, metadata, tables and footer. */
    public List<ByteBuffer> finish() {
        if (finished) {
            throw new IllegalStateException("File already finished");
        }
        finished = true;
        List<EncodedPage> pages = columns.finish();
        List<ByteBuffer> out = emit(pages, columns.lastColumns());
        Bytes tail = new Bytes(4096);
        long gbPos = position;
        byte[] fd = LogicalTypes.fileDescriptor(schema, rows).toByteArray();
        tail.put(fd);
        long[][] extra = new long[extraGlobalBuffers.size()][2];
        for (int i = 0; i < extra.length; i++) {
            tail.fill((int) ((ALIGN - ((position + tail.size()) % ALIGN)) % ALIGN), PAD);
            extra[i][0] = position + tail.size();
            extra[i][1] = extraGlobalBuffers.get(i).length;
            tail.put(extraGlobalBuffers.get(i));
        }
        long colMetaStart = position + tail.size();
        long[][] cmo = new long[metadata.size()][2];
        for (int i = 0; i < metadata.size(); i++) {
            byte[] m = metadata.get(i).build().toByteArray();
            cmo[i][0] = position + tail.size();
            cmo[i][1] = m.length;
            tail.put(m);
        }
        long cmoStart = position + tail.size();
        for (long[] e : cmo) {
            tail.u64(e[0]).u64(e[1]);
        }
        long gboStart = position + tail.size();
        tail.u64(gbPos).u64(fd.length);
        for (long[] e : extra) {
            tail.u64(e[0]).u64(e[1]);
        }
        tail.u64(colMetaStart).u64(cmoStart).u64(gboStart);
        tail.u32(1 + extra.length).u32(metadata.size());
        tail.u16(options.version().footerMajor()).u16(options.version().footerMinor());
        tail.put(MAGIC);
        position += tail.size();
        out.add(tail.toByteBuffer());
        return out;
    }

    private List<ByteBuffer> emit(List<EncodedPage> pages, List<Integer> writerCols) {
        List<Integer> cols = new ArrayList<>(writerCols.size());
        for (int c : writerCols) {
            cols.add(fileColumn[c]);
        }
        return emitAt(pages, cols);
    }

    /** Writes pages of file columns {@code cols}. */
    private List<ByteBuffer> emitAt(List<EncodedPage> pages, List<Integer> cols) {
        List<ByteBuffer> out = new ArrayList<>();
        for (int p = 0; p < pages.size(); p++) {
            EncodedPage page = pages.get(p);
            ColumnMetadata.Page.Builder pb = ColumnMetadata.Page.newBuilder();
            for (Bytes b : page.buffers()) {
                pb.addBufferOffsets(position);
                pb.addBufferSizes(b.size());
                int pad = (int) ((ALIGN - (b.size() % ALIGN)) % ALIGN);
                b.fill(pad, PAD);
                position += b.size();
                out.add(b.toByteBuffer());
            }
            pb.setLength(page.numRows());
            pb.setPriority(page.rowNumber());
            com.google.protobuf.Message layout = page.layout();
            BlobNulls blob = blobColumns.get(cols.get(p));
            if (blob != null && options.version().structural()) {
                boolean nulls = blob.anyIn(page.rowNumber(), page.numRows());
                layout = io.javelin.encoding.pb.v21.PageLayout.newBuilder().setBlobLayout(
                        io.javelin.encoding.pb.v21.BlobLayout.newBuilder()
                                .setInnerLayout((io.javelin.encoding.pb.v21.PageLayout) layout)
                                .addLayers(nulls ? io.javelin.encoding.pb.v21.RepDefLayer.REPDEF_NULLABLE_ITEM
                                        : io.javelin.encoding.pb.v21.RepDefLayer.REPDEF_ALL_VALID_ITEM)).build();
            }
            pb.setEncoding(Encoding.newBuilder().setDirect(DirectEncoding.newBuilder()
                    .setEncoding(Any.pack(layout, "").toByteString())));
            metadata.get(cols.get(p)).addPages(pb);
        }
        return out;
    }

    private void checkSchema(Schema actual) {
        List<Field> exp = schema.getFields();
        List<Field> act = actual.getFields();
        if (exp.size() != act.size()) {
            throw new SchemaMismatchException("Batch has " + act.size() + " fields, the file schema has " + exp.size()
                    + " (batch=" + actual + ", file=" + schema + ")");
        }
        for (int i = 0; i < exp.size(); i++) {
            checkField(exp.get(i), act.get(i), exp.get(i).getName(), false);
        }
    }

    /** {@code listItem}: the child of a list type, whose name Arrow Java vectors do not keep ({@code $data$}); the file schema's name is written. */
    private static void checkField(Field exp, Field act, String path, boolean listItem) {
        if (!listItem && !exp.getName().equals(act.getName()) || !exp.getType().equals(act.getType())
                || exp.getChildren().size() != act.getChildren().size()) {
            throw new SchemaMismatchException("Field " + path + " of the batch is " + act.getName() + ": " + act.getType()
                    + ", expected " + exp.getName() + ": " + exp.getType());
        }
        for (int i = 0; i < exp.getChildren().size(); i++) {
            ArrowType.ArrowTypeID t = exp.getType().getTypeID();
            boolean list = t == ArrowType.ArrowTypeID.List || t == ArrowType.ArrowTypeID.LargeList || t == ArrowType.ArrowTypeID.FixedSizeList;
            checkField(exp.getChildren().get(i), act.getChildren().get(i), path + "." + exp.getChildren().get(i).getName(), list);
        }
    }
}
