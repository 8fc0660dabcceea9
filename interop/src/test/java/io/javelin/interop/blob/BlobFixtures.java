package io.javelin.interop.blob;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.LargeVarBinaryVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/** Blob v2 rows in the logical (complete) shape, and writing them with lance-core 7.0.0. */
final class BlobFixtures {

    /** An external object or a slice of one ({@code size < 0}: the whole object). */
    record Ext(String uri, long position, long size) {
    }

    private BlobFixtures() {
    }

    static Field blobField(String name) {
        return new Field(name, new FieldType(true, ArrowType.Struct.INSTANCE, null,
                Map.of("ARROW:extension:name", "lance.blob.v2")), List.of(
                new Field("data", FieldType.nullable(ArrowType.LargeBinary.INSTANCE), null),
                new Field("uri", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
                new Field("position", FieldType.nullable(new ArrowType.Int(64, false)), null),
                new Field("size", FieldType.nullable(new ArrowType.Int(64, false)), null)));
    }

    static Schema schema() {
        return new Schema(List.of(new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null), blobField("blob")));
    }

    static byte[] bytes(int n, int seed) {
        byte[] b = new byte[n];
        long x = seed * 0x9E3779B97F4A7C15L + 1;
        for (int i = 0; i < n; i++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            b[i] = (byte) x;
        }
        return b;
    }

    /** Fills {@code root} with one row per value: byte[] (inline data), {@link Ext}, or null. */
    static void fill(VectorSchemaRoot root, List<Object> values) {
        root.allocateNew();
        BigIntVector id = (BigIntVector) root.getVector("id");
        StructVector s = (StructVector) root.getVector("blob");
        LargeVarBinaryVector data = (LargeVarBinaryVector) s.getChild("data");
        VarCharVector uri = (VarCharVector) s.getChild("uri");
        UInt8Vector pos = (UInt8Vector) s.getChild("position");
        UInt8Vector size = (UInt8Vector) s.getChild("size");
        for (int i = 0; i < values.size(); i++) {
            id.setSafe(i, i);
            Object v = values.get(i);
            data.setNull(i);
            uri.setNull(i);
            pos.setNull(i);
            size.setNull(i);
            if (v == null) {
                s.setNull(i);
                continue;
            }
            s.setIndexDefined(i);
            if (v instanceof byte[] b) {
                data.setSafe(i, b);
            } else {
                Ext e = (Ext) v;
                uri.setSafe(i, e.uri().getBytes(StandardCharsets.UTF_8));
                if (e.size() >= 0) {
                    pos.setSafe(i, e.position());
                    size.setSafe(i, e.size());
                }
            }
        }
        root.setRowCount(values.size());
    }

    static void lanceWrite(BufferAllocator alloc, String uri, List<Object> values, long packFileThreshold) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (VectorSchemaRoot root = VectorSchemaRoot.create(schema(), alloc);
             ArrowStreamWriter w = new ArrowStreamWriter(root, null, out)) {
            w.start();
            fill(root, values);
            w.writeBatch();
            w.end();
        }
        try (ArrowReader reader = new ArrowStreamReader(new ByteArrayInputStream(out.toByteArray()), alloc);
             ArrowArrayStream stream = ArrowArrayStream.allocateNew(alloc)) {
            Data.exportArrayStream(alloc, reader, stream);
            var b = new org.lance.WriteParams.Builder().withDataStorageVersion("2.2").withAllowExternalBlobOutsideBases(true);
            if (packFileThreshold > 0) {
                b.withBlobPackFileSizeThreshold(packFileThreshold);
            }
            org.lance.Dataset.create(alloc, stream, uri, b.build()).close();
        }
    }

    static String sha256(byte[] b) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    static byte[] array(ByteBuffer b) {
        byte[] a = new byte[b.remaining()];
        b.duplicate().get(a);
        return a;
    }
}
