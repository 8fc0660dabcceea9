package io.javelin.interop.namespace;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.channels.Channels;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.ipc.SeekableReadChannel;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.ByteArrayReadableSeekableByteChannel;

/** Rows {@code id, name, vec[4]} for the namespace tests, as batches and as Arrow IPC bytes, and readers of results. */
final class NamespaceFixtures {

    static final int DIM = 4;

    static final Schema SCHEMA = new Schema(List.of(
            new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
            new Field("name", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
            new Field("vec", FieldType.nullable(new ArrowType.FixedSizeList(DIM)),
                    List.of(new Field("item", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)), null)))));

    private NamespaceFixtures() {
    }

    /** The vector of row {@code id}: distinct per id, so a search for it finds it first. */
    static float[] vec(long id) {
        return new float[] {id, id % 7, (id * 3) % 11, 1f};
    }

    /** Rows {@code [from, from+n)} named {@code prefix + id}; owned by the caller. */
    static VectorSchemaRoot batch(BufferAllocator a, long from, int n, String prefix) {
        VectorSchemaRoot r = VectorSchemaRoot.create(SCHEMA, a);
        r.allocateNew();
        BigIntVector id = (BigIntVector) r.getVector("id");
        VarCharVector name = (VarCharVector) r.getVector("name");
        FixedSizeListVector v = (FixedSizeListVector) r.getVector("vec");
        Float4Vector f = (Float4Vector) v.getDataVector();
        for (int i = 0; i < n; i++) {
            long x = from + i;
            id.setSafe(i, x);
            name.setSafe(i, (prefix + x).getBytes());
            v.setNotNull(i);
            float[] e = vec(x);
            for (int d = 0; d < DIM; d++) {
                f.setSafe(i * DIM + d, e[d]);
            }
        }
        r.setRowCount(n);
        return r;
    }

    /** The same rows as an Arrow IPC stream (what lance-core's clients send). */
    static byte[] ipc(BufferAllocator a, long from, int n, String prefix) throws Exception {
        try (VectorSchemaRoot r = batch(a, from, n, prefix); ByteArrayOutputStream out = new ByteArrayOutputStream();
             ArrowStreamWriter w = new ArrowStreamWriter(r, null, Channels.newChannel(out))) {
            w.start();
            w.writeBatch();
            w.end();
            return out.toByteArray();
        }
    }

    /** The rows of an Arrow IPC body (file or stream form) as {@code column -> values} per row. */
    static List<List<Object>> rows(byte[] ipc, BufferAllocator a, String... columns) throws Exception {
        boolean file = ipc.length >= 6 && new String(ipc, 0, 6).equals("ARROW1");
        List<List<Object>> out = new ArrayList<>();
        try (ArrowReader r = file ? new ArrowFileReader(new SeekableReadChannel(new ByteArrayReadableSeekableByteChannel(ipc)), a)
                : new ArrowStreamReader(new ByteArrayInputStream(ipc), a)) {
            while (r.loadNextBatch()) {
                VectorSchemaRoot root = r.getVectorSchemaRoot();
                for (int i = 0; i < root.getRowCount(); i++) {
                    List<Object> row = new ArrayList<>();
                    for (String c : columns) {
                        FieldVector v = root.getVector(c);
                        Object o = v.getObject(i);
                        row.add(o == null ? null : o instanceof org.apache.arrow.vector.util.Text t ? t.toString() : o);
                    }
                    out.add(row);
                }
            }
        }
        return out;
    }

    /** The {@code id}s of an Arrow IPC body, in order. */
    static List<Long> ids(byte[] ipc, BufferAllocator a) throws Exception {
        List<Long> ids = new ArrayList<>();
        for (List<Object> row : rows(ipc, a, "id")) {
            ids.add((Long) row.getFirst());
        }
        return ids;
    }
}
