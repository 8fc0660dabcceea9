package io.javelin.encoding.writer;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.LargeVarBinaryVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Blob fields ({@code lance-encoding:blob} on a large_binary field), written as Lance 7.0.0 writes
 * them: every non-empty value goes out of line (its own 64-byte-aligned buffer in the file, ahead of
 * the pages of its batch) and the column stores a packed struct {@code (position u64, size u64)} per
 * row. Empty values are {@code (0, 0)}; a null is {@code (1, 0)} in 2.0 and
 * {@code (def << 16 | rep, 0)} in 2.1+ (a top-level nullable blob: {@code 1 << 16}), whose page is
 * wrapped in a {@code BlobLayout} carrying the blob's own def meaning. In 2.0 the column encoding is
 * {@code ColumnEncoding.blob}.
 */
public final class BlobFields {
    public static final String KEY = "lance-encoding:blob";
    static final String PACKED = "lance-encoding:packed";

    private BlobFields() {
    }

    /** Lance's test: the metadata key is present (any value). */
    public static boolean isBlob(Field f) {
        return f.getMetadata() != null && f.getMetadata().containsKey(KEY)
                && (f.getType() instanceof ArrowType.LargeBinary || f.getType() instanceof ArrowType.Binary);
    }

    /** Indexes of the top-level blob fields; rejects blob fields Lance's blob encoders cannot take. */
    static List<Integer> topLevel(Schema schema) {
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < schema.getFields().size(); i++) {
            Field f = schema.getFields().get(i);
            if (isBlob(f)) {
                if (!(f.getType() instanceof ArrowType.LargeBinary)) {
                    throw new UnsupportedTypeException("Blob field '" + f.getName() + "' must be large_binary, got "
                            + f.getType());
                }
                out.add(i);
            }
            for (Field c : f.getChildren()) {
                rejectNested(c, f.getName());
            }
        }
        return out;
    }

    private static void rejectNested(Field f, String path) {
        if (isBlob(f)) {
            throw new UnsupportedTypeException("Blob field '" + path + "." + f.getName()
                    + "' is nested; only top-level blob columns are supported");
        }
        for (Field c : f.getChildren()) {
            rejectNested(c, path + "." + f.getName());
        }
    }

    /** The descriptor field that replaces a blob field for the column writers. */
    static Field descriptor(Field blob) {
        return new Field(blob.getName(), new FieldType(blob.isNullable(), ArrowType.Struct.INSTANCE, null,
                Map.of(PACKED, "true")), List.of(
                        new Field("position", FieldType.notNullable(new ArrowType.Int(64, false)), List.of()),
                        new Field("size", FieldType.notNullable(new ArrowType.Int(64, false)), List.of())));
    }

    /** The schema the column writers see: blob fields replaced by their descriptors. */
    static Schema physical(Schema schema, List<Integer> blobs) {
        if (blobs.isEmpty()) {
            return schema;
        }
        List<Field> fs = new ArrayList<>(schema.getFields());
        for (int i : blobs) {
            fs.set(i, descriptor(fs.get(i)));
        }
        return new Schema(fs, schema.getCustomMetadata());
    }

    /** What {@link #externalize} produced for one batch of one blob column. */
    record Out(StructVector descriptors, List<ByteBuffer> bytes, long newPosition, long[] nullRows, int nulls) {
    }

    /**
     * Lays the non-empty values of {@code v} out at file position {@code position} onward (each padded
     * to {@code align}) and builds the descriptor vector (caller closes it). {@code nullPosition} is the
     * position a null gets; {@code firstRow} numbers the rows for {@code nullRows}.
     */
    static Out externalize(LargeVarBinaryVector v, int rows, long position, int align, long nullPosition,
                           long firstRow, BufferAllocator alloc) {
        StructVector desc = (StructVector) descriptor(v.getField()).createVector(alloc);
        try {
            desc.allocateNew();
            UInt8Vector pos = (UInt8Vector) desc.getChildByOrdinal(0);
            UInt8Vector size = (UInt8Vector) desc.getChildByOrdinal(1);
            pos.allocateNew(rows);
            size.allocateNew(rows);
            ArrowBuf offs = v.getOffsetBuffer();
            ArrowBuf data = v.getDataBuffer();
            long total = 0;
            for (int i = 0; i < rows; i++) {
                if (!v.isNull(i)) {
                    long len = offs.getLong((long) (i + 1) * 8) - offs.getLong((long) i * 8);
                    if (len > 0) {
                        total += len + (align - len % align) % align;
                    }
                }
            }
            List<ByteBuffer> bytes = new ArrayList<>();
            ByteBuffer chunk = total == 0 ? null : ByteBuffer.allocate(Math.toIntExact(Math.min(total, 64L << 20)));
            long at = position;
            long[] nullRows = new long[0];
            int nulls = 0;
            for (int i = 0; i < rows; i++) {
                desc.setIndexDefined(i);
                if (v.isNull(i)) {
                    pos.set(i, nullPosition);
                    size.set(i, 0);
                    if (nulls == nullRows.length) {
                        nullRows = java.util.Arrays.copyOf(nullRows, Math.max(16, 2 * nulls));
                    }
                    nullRows[nulls++] = firstRow + i;
                    continue;
                }
                long s = offs.getLong((long) i * 8);
                long len = offs.getLong((long) (i + 1) * 8) - s;
                if (len == 0) {
                    pos.set(i, 0);
                    size.set(i, 0);
                    continue;
                }
                pos.set(i, at);
                size.set(i, len);
                int pad = (int) ((align - len % align) % align);
                long done = 0;
                while (done < len + pad) {
                    if (chunk.remaining() == 0) {
                        chunk.flip();
                        bytes.add(chunk);
                        chunk = ByteBuffer.allocate((int) Math.min(total, 64L << 20));
                    }
                    int step = (int) Math.min(chunk.remaining(), len + pad - done);
                    int fromData = (int) Math.max(0, Math.min(step, len - done));
                    if (fromData > 0) {
                        data.getBytes(s + done, chunk.array(), chunk.position(), fromData);
                        chunk.position(chunk.position() + fromData);
                    }
                    for (int k = fromData; k < step; k++) {
                        chunk.put((byte) 'H');
                    }
                    done += step;
                }
                at += len + pad;
                total -= len + pad;
            }
            if (chunk != null && chunk.position() > 0) {
                chunk.flip();
                bytes.add(chunk);
            }
            pos.setValueCount(rows);
            size.setValueCount(rows);
            desc.setValueCount(rows);
            return new Out(desc, bytes, at, nullRows, nulls);
        } catch (RuntimeException e) {
            desc.close();
            throw e;
        }
    }
}
