package io.javelin.encoding.file;

import com.google.protobuf.InvalidProtocolBufferException;
import io.javelin.encoding.CorruptFileException;
import io.javelin.encoding.pb.ColumnMetadata;
import io.javelin.encoding.pb.file.FileDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Everything in a Lance file outside its data pages: footer, offset tables, column metadata and the
 * schema (global buffer 0). Immutable; parsed once per open.
 */
public record LanceFileMetadata(String resource, long fileSize, Footer footer, long[] gboPositions, long[] gboSizes,
                                long[] cmoPositions, List<ColumnMetadata> columns, FileDescriptor descriptor,
                                List<LanceField> fields, Schema arrowSchema) {

    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** The 2.x version; null for a legacy (0.1 / 0.2) file, which has no v2 footer. */
    public LanceFileVersion version() {
        return footer == null ? null : footer.version();
    }

    /** Number of rows (from the file descriptor). */
    public long numRows() {
        return descriptor.getLength();
    }

    /**
     * Where the metadata region starts once the footer is known: everything from there to EOF is needed
     * to parse the rest.
     */
    public static long metadataStart(Footer footer, long gbo0Position) {
        return Math.min(footer.columnMetaStart(), gbo0Position);
    }

    /**
     * Parses the tables, column metadata and schema from {@code region}, the bytes
     * {@code [regionStart, fileSize)} of the file.
     */
    public static LanceFileMetadata parse(String resource, long fileSize, Footer footer, MemorySegment region, long regionStart) {
        long[] gboPos = new long[footer.numGlobalBuffers()];
        long[] gboLen = new long[footer.numGlobalBuffers()];
        long limit = fileSize - Footer.LENGTH;
        for (int i = 0; i < gboPos.length; i++) {
            long at = footer.gboTableStart() + 16L * i;
            gboPos[i] = u64(resource, region, regionStart, at);
            gboLen[i] = u64(resource, region, regionStart, at + 8);
            if (gboPos[i] < 0 || gboLen[i] < 0 || gboPos[i] > limit || gboLen[i] > limit - gboPos[i]) {
                throw new CorruptFileException(resource, at, "Global buffer " + i + " [" + gboPos[i] + ", +" + gboLen[i]
                        + ") outside the file of " + fileSize + " bytes");
            }
        }
        if (gboPos[0] < regionStart) {
            throw new CorruptFileException(resource, footer.gboTableStart(), "Schema buffer before the metadata region");
        }
        FileDescriptor fd;
        try {
            fd = FileDescriptor.parseFrom(slice(region, gboPos[0] - regionStart, gboLen[0]));
        } catch (InvalidProtocolBufferException e) {
            throw new CorruptFileException(resource, gboPos[0], "Bad schema protobuf: " + e.getMessage(), e);
        }
        if (!fd.hasSchema()) {
            throw new CorruptFileException(resource, gboPos[0], "Schema expected in global buffer 0");
        }
        long[] cmoPos = new long[footer.numColumns()];
        List<ColumnMetadata> cols = new ArrayList<>(footer.numColumns());
        for (int i = 0; i < footer.numColumns(); i++) {
            long at = footer.cmoTableStart() + 16L * i;
            long pos = u64(resource, region, regionStart, at);
            long len = u64(resource, region, regionStart, at + 8);
            if (pos < regionStart || len < 0 || pos > limit || len > limit - pos) {
                throw new CorruptFileException(resource, at, "Column metadata " + i + " [" + pos + ", +" + len
                        + ") outside the metadata region");
            }
            cmoPos[i] = pos;
            try {
                cols.add(ColumnMetadata.parseFrom(slice(region, pos - regionStart, len)));
            } catch (InvalidProtocolBufferException e) {
                throw new CorruptFileException(resource, pos, "Bad column metadata protobuf " + i + ": " + e.getMessage(), e);
            }
            validateColumn(resource, fileSize, pos, i, cols.get(i));
        }
        List<LanceField> fields = LanceSchemas.fieldTree(resource, fd.getSchema().getFieldsList(), footer.version());
        int expectedCols = countColumns(fields);
        if (expectedCols != footer.numColumns()) {
            throw new CorruptFileException(resource, fileSize - 12, "Schema needs " + expectedCols
                    + " columns but the footer says " + footer.numColumns());
        }
        if (fd.getLength() < 0 || fd.getLength() > Integer.MAX_VALUE) {
            throw new CorruptFileException(resource, gboPos[0], "Impossible row count " + fd.getLength());
        }
        Map<String, String> md = new LinkedHashMap<>();
        fd.getSchema().getMetadataMap().forEach((k, v) -> md.put(k, v.toString(StandardCharsets.UTF_8)));
        Schema schema = LanceSchemas.arrowSchema(fields, md);
        return new LanceFileMetadata(resource, fileSize, footer, gboPos, gboLen, cmoPos, List.copyOf(cols), fd, fields, schema);
    }

    private static int countColumns(List<LanceField> fields) {
        int n = 0;
        for (LanceField f : fields) {
            if (f.column() >= 0) {
                n++;
            }
            n += countColumns(f.children());
        }
        return n;
    }

    private static void validateColumn(String resource, long fileSize, long at, int index, ColumnMetadata c) {
        for (int p = 0; p < c.getPagesCount(); p++) {
            var page = c.getPages(p);
            if (page.getBufferOffsetsCount() != page.getBufferSizesCount()) {
                throw new CorruptFileException(resource, at, "Column " + index + " page " + p + ": "
                        + page.getBufferOffsetsCount() + " buffer offsets vs " + page.getBufferSizesCount() + " sizes");
            }
            for (int b = 0; b < page.getBufferOffsetsCount(); b++) {
                long off = page.getBufferOffsets(b);
                long len = page.getBufferSizes(b);
                if (off < 0 || len < 0 || off > fileSize || len > fileSize - off) {
                    throw new CorruptFileException(resource, at, "Column " + index + " page " + p + " buffer " + b
                            + " [" + off + ", +" + len + ") outside the file of " + fileSize + " bytes");
                }
            }
            if (page.getLength() < 0) {
                throw new CorruptFileException(resource, at, "Column " + index + " page " + p + " has negative length");
            }
        }
        if (c.getBufferOffsetsCount() != c.getBufferSizesCount()) {
            throw new CorruptFileException(resource, at, "Column " + index + ": buffer offsets vs sizes mismatch");
        }
        for (int b = 0; b < c.getBufferOffsetsCount(); b++) {
            long off = c.getBufferOffsets(b);
            long len = c.getBufferSizes(b);
            if (off < 0 || len < 0 || off > fileSize || len > fileSize - off) {
                throw new CorruptFileException(resource, at, "Column " + index + " buffer " + b + " outside the file");
            }
        }
    }

    private static long u64(String resource, MemorySegment region, long regionStart, long fileOffset) {
        long rel = fileOffset - regionStart;
        if (rel < 0 || rel + 8 > region.byteSize()) {
            throw new CorruptFileException(resource, fileOffset, "Offset table entry outside the metadata region");
        }
        return region.get(U64, rel);
    }

    private static byte[] slice(MemorySegment region, long rel, long len) {
        return region.asSlice(rel, len).toArray(ValueLayout.JAVA_BYTE);
    }
}
