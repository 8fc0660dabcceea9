package io.javelin.encoding.writer;

import io.javelin.encoding.pb.v21.CompressiveEncoding;
import io.javelin.encoding.pb.v21.Flat;
import io.javelin.encoding.pb.v21.FullZipLayout;
import io.javelin.encoding.pb.v21.PageLayout;
import io.javelin.encoding.pb.v21.RepDefLayer;
import io.javelin.encoding.pb.v21.Variable;
import io.javelin.encoding.pb.v21.VariablePackedStruct;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.LargeVarBinaryVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Blob v2 columns (format 2.2+) as lance-core 7.0.0 writes them. The writer takes a blob v2 field in its
 * <em>prepared</em> shape, placement already decided by the caller (sidecars written):
 * {@code kind u8, data large_binary, position u64, size u64, blob_id u32, blob_uri utf8}. Inline rows
 * (kind 0) carry their bytes in {@code data}; they go out of line into the data file ahead of the batch's
 * pages, as legacy blobs do. The column is one packed struct of the stored descriptor
 * {@code (kind u8, position u64, size u64, blob_id u32, blob_uri utf8)}, one full-zip page per batch
 * whose values are {@code VariablePackedStruct} rows; the file schema names the field a packed blob
 * struct followed by the five descriptor children with ids -1 (what lance-core records and reads).
 */
public final class BlobV2Columns {

    public static final String EXTENSION_KEY = "ARROW:extension:name";
    public static final String EXTENSION_NAME = "lance.blob.v2";
    /** Child names of the prepared shape, in order. */
    public static final List<String> PREPARED = List.of("kind", "data", "position", "size", "blob_id", "blob_uri");

    private BlobV2Columns() {
    }

    public static boolean isBlobV2(Field f) {
        return f.getType() instanceof ArrowType.Struct && f.getMetadata() != null
                && EXTENSION_NAME.equals(f.getMetadata().get(EXTENSION_KEY));
    }

    /** The prepared field for {@code name} (what the writer accepts for a blob v2 column). */
    public static Field prepared(String name, boolean nullable, java.util.Map<String, String> metadata) {
        java.util.Map<String, String> md = new java.util.LinkedHashMap<>(metadata == null ? java.util.Map.of() : metadata);
        md.put(EXTENSION_KEY, EXTENSION_NAME);
        return new Field(name, new FieldType(nullable, ArrowType.Struct.INSTANCE, null, md), List.of(
                new Field("kind", FieldType.notNullable(new ArrowType.Int(8, false)), null),
                new Field("data", FieldType.nullable(ArrowType.LargeBinary.INSTANCE), null),
                new Field("position", FieldType.notNullable(new ArrowType.Int(64, false)), null),
                new Field("size", FieldType.notNullable(new ArrowType.Int(64, false)), null),
                new Field("blob_id", FieldType.notNullable(new ArrowType.Int(32, false)), null),
                new Field("blob_uri", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));
    }

    /** Indexes of the top-level blob v2 fields; nested ones and unprepared shapes are rejected. */
    static List<Integer> topLevel(Schema schema, LanceFileVersion version) {
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < schema.getFields().size(); i++) {
            Field f = schema.getFields().get(i);
            if (isBlobV2(f)) {
                if (version.ordinal() < LanceFileVersion.V2_2.ordinal()) {
                    throw new UnsupportedTypeException("Blob v2 field '" + f.getName() + "' needs file format 2.2 or later, not "
                            + version);
                }
                List<String> names = f.getChildren().stream().map(Field::getName).toList();
                if (!names.equals(PREPARED)) {
                    throw new UnsupportedTypeException("Blob v2 field '" + f.getName() + "' must be prepared " + PREPARED
                            + " for the file writer, got " + names);
                }
                out.add(i);
            } else {
                for (Field c : f.getChildren()) {
                    rejectNested(c, f.getName());
                }
            }
        }
        return out;
    }

    private static void rejectNested(Field f, String path) {
        if (isBlobV2(f)) {
            throw new UnsupportedTypeException("Blob v2 field '" + path + "." + f.getName()
                    + "' is nested; only top-level blob v2 columns are supported by this writer");
        }
        for (Field c : f.getChildren()) {
            rejectNested(c, path + "." + f.getName());
        }
    }

    /** Inline bytes to write ahead of the page, the page, and the file position after the inline bytes. */
    record Out(List<ByteBuffer> inline, EncodedPage page, long newPosition) {
    }

    /** Encodes {@code rows} rows of the prepared vector {@code v}; inline bytes start at file {@code position}. */
    static Out encode(StructVector v, int rows, long position, int align, byte pad, long firstRow) {
        UInt1Vector kind = (UInt1Vector) v.getChild("kind");
        LargeVarBinaryVector data = (LargeVarBinaryVector) v.getChild("data");
        UInt8Vector pos = (UInt8Vector) v.getChild("position");
        UInt8Vector size = (UInt8Vector) v.getChild("size");
        UInt4Vector id = (UInt4Vector) v.getChild("blob_id");
        VarCharVector uri = (VarCharVector) v.getChild("blob_uri");
        List<ByteBuffer> inline = new ArrayList<>();
        boolean anyNull = false;
        for (int i = 0; i < rows; i++) {
            anyNull |= v.isNull(i);
        }
        Bytes page = new Bytes(rows * 32 + 64);
        long[] starts = new long[rows + 1];
        long at = position;
        for (int i = 0; i < rows; i++) {
            starts[i] = page.size();
            if (anyNull) {
                page.u8(v.isNull(i) ? 1 : 0);
            }
            if (v.isNull(i)) {
                continue;
            }
            int k = kind.get(i) & 0xFF;
            long p;
            long n;
            byte[] u = uri.isNull(i) ? new byte[0] : uri.get(i);
            if (k == 0) {
                byte[] b = data.isNull(i) ? new byte[0] : data.get(i);
                p = at;
                n = b.length;
                if (b.length > 0) {
                    int padLen = (int) ((align - b.length % align) % align);
                    ByteBuffer bb = ByteBuffer.allocate(b.length + padLen);
                    bb.put(b);
                    while (bb.hasRemaining()) {
                        bb.put(pad);
                    }
                    bb.flip();
                    inline.add(bb);
                    at += b.length + padLen;
                }
                u = new byte[0];
            } else {
                p = pos.get(i);
                n = size.get(i);
            }
            int len = 1 + 8 + 8 + 4 + 4 + u.length;
            page.u32(len).u8(k).u64(p).u64(n).u32(k == 0 ? 0 : Integer.toUnsignedLong(id.get(i))).u32(u.length).put(u);
        }
        starts[rows] = page.size();
        long max = page.size();
        int w = max <= 0xFF ? 1 : max <= 0xFFFF ? 2 : max <= 0xFFFFFFFFL ? 4 : 8;
        Bytes idx = new Bytes((rows + 1) * w);
        for (long s : starts) {
            idx.uint(s, w);
        }
        FullZipLayout fz = FullZipLayout.newBuilder()
                .setBitsRep(0)
                .setBitsDef(anyNull ? 1 : 0)
                .setBitsPerOffset(32)
                .setNumItems(rows)
                .setNumVisibleItems(rows)
                .setValueCompression(CompressiveEncoding.newBuilder().setVariablePackedStruct(descriptorEncoding()))
                .addLayers(RepDefLayer.REPDEF_ALL_VALID_ITEM)
                .addLayers(anyNull ? RepDefLayer.REPDEF_NULLABLE_ITEM : RepDefLayer.REPDEF_ALL_VALID_ITEM)
                .build();
        EncodedPage ep = new EncodedPage(List.of(page, idx), PageLayout.newBuilder().setFullZipLayout(fz).build(), rows, firstRow);
        return new Out(inline, ep, at);
    }

    private static VariablePackedStruct descriptorEncoding() {
        VariablePackedStruct.Builder b = VariablePackedStruct.newBuilder();
        for (int bits : new int[] {8, 64, 64, 32}) {
            b.addFields(VariablePackedStruct.FieldEncoding.newBuilder()
                    .setValue(CompressiveEncoding.newBuilder().setFlat(Flat.newBuilder().setBitsPerValue(bits)))
                    .setBitsPerValue(bits));
        }
        b.addFields(VariablePackedStruct.FieldEncoding.newBuilder()
                .setValue(CompressiveEncoding.newBuilder().setVariable(Variable.newBuilder()
                        .setOffsets(CompressiveEncoding.newBuilder().setFlat(Flat.newBuilder().setBitsPerValue(32)))))
                .setBitsPerLength(32));
        return b.build();
    }

    /** The file-schema entries of a blob v2 field, as lance-core records them. */
    static void fileFields(io.javelin.encoding.pb.file.Schema.Builder sb, Field f, int id, int parent) {
        sb.addFields(io.javelin.encoding.pb.file.Field.newBuilder().setName(f.getName()).setId(id).setParentId(parent)
                .setLogicalType("struct").setNullable(f.isNullable())
                .putMetadata("lance-encoding:blob", com.google.protobuf.ByteString.copyFromUtf8("true"))
                .putMetadata("lance-encoding:packed", com.google.protobuf.ByteString.copyFromUtf8("true")));
        String[][] kids = {{"kind", "uint8"}, {"position", "uint64"}, {"size", "uint64"}, {"blob_id", "uint32"}, {"blob_uri", "string"}};
        for (String[] k : kids) {
            sb.addFields(io.javelin.encoding.pb.file.Field.newBuilder().setName(k[0]).setId(-1).setParentId(-1)
                    .setLogicalType(k[1]).setEncoding(k[1].equals("string") ? io.javelin.encoding.pb.file.Encoding.VAR_BINARY
                            : io.javelin.encoding.pb.file.Encoding.PLAIN));
        }
    }
}
