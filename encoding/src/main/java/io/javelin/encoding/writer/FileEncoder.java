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

    public FileEncoder(Schema schema, WriteOptions options) {
        this.schema = Objects.requireNonNull(schema, "schema");
        this.options = Objects.requireNonNull(options, "options");
        for (Field f : schema.getFields()) {
            LogicalTypes.logicalType(f);
        }
        this.columns = options.version().structural()
                ? new StructuralColumns(schema, options)
                : new LegacyColumns(schema, options);
        ByteString colEnc = Any.pack(ColumnEncoding.newBuilder().setValues(Empty.getDefaultInstance()).build(), "")
                .toByteString();
        for (int i = 0; i < columns.numColumns(); i++) {
            metadata.add(ColumnMetadata.newBuilder().setEncoding(Encoding.newBuilder()
                    .setDirect(DirectEncoding.newBuilder().setEncoding(colEnc))));
        }
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
        List<EncodedPage> pages = columns.append(batch);
        rows += batch.getRowCount();
        return emit(pages, columns.lastColumns());
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

    private List<ByteBuffer> emit(List<EncodedPage> pages, List<Integer> cols) {
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
            pb.setEncoding(Encoding.newBuilder().setDirect(DirectEncoding.newBuilder()
                    .setEncoding(Any.pack(page.layout(), "").toByteString())));
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
            checkField(exp.get(i), act.get(i), exp.get(i).getName());
        }
    }

    private static void checkField(Field exp, Field act, String path) {
        checkField(exp, act, path, false);
    }

    /** {@code listItem}: the child of a list / fixed-size list, whose name Arrow Java may set to "$data$" on copies. */
    private static void checkField(Field exp, Field act, String path, boolean listItem) {
        if ((!listItem && !exp.getName().equals(act.getName())) || !exp.getType().equals(act.getType())
                || exp.getChildren().size() != act.getChildren().size()) {
            throw new SchemaMismatchException("Field " + path + " of the batch is " + act.getName() + ": " + act.getType()
                    + ", expected " + exp.getName() + ": " + exp.getType());
        }
        for (int i = 0; i < exp.getChildren().size(); i++) {
            boolean item = exp.getType() instanceof org.apache.arrow.vector.types.pojo.ArrowType.List
                    || exp.getType() instanceof org.apache.arrow.vector.types.pojo.ArrowType.LargeList
                    || exp.getType() instanceof org.apache.arrow.vector.types.pojo.ArrowType.FixedSizeList;
            checkField(exp.getChildren().get(i), act.getChildren().get(i), path + "." + exp.getChildren().get(i).getName(), item);
        }
    }
}
