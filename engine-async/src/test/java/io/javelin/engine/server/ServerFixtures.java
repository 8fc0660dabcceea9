package io.javelin.engine.server;

import java.io.ByteArrayOutputStream;
import java.nio.channels.Channels;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import reactor.core.publisher.Flux;

/** Rows {@code id, name, vec[2]} for the server tests. */
final class ServerFixtures {

    static final Schema SCHEMA = new Schema(List.of(
            new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
            new Field("name", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
            new Field("vec", FieldType.nullable(new ArrowType.FixedSizeList(2)),
                    List.of(new Field("item", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)), null)))));

    private ServerFixtures() {
    }

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
            f.setSafe(2 * i, x);
            f.setSafe(2 * i + 1, -x);
        }
        r.setRowCount(n);
        return r;
    }

    /** Batches of {@code per} rows covering {@code [from, from+n)}, made lazily (owned by the consumer). */
    static Flux<VectorSchemaRoot> rows(BufferAllocator a, long from, int n, int per, String prefix) {
        return Flux.range(0, (n + per - 1) / per).map(i -> batch(a, from + (long) i * per, Math.min(per, n - i * per), prefix));
    }

    static byte[] ipc(BufferAllocator a, long from, int n) throws Exception {
        try (VectorSchemaRoot r = batch(a, from, n, "n"); ByteArrayOutputStream out = new ByteArrayOutputStream();
             ArrowStreamWriter w = new ArrowStreamWriter(r, null, Channels.newChannel(out))) {
            w.start();
            w.writeBatch();
            w.end();
            return out.toByteArray();
        }
    }

    /** The ids of batches (each closed). */
    static List<Long> ids(List<VectorSchemaRoot> batches) {
        List<Long> out = new ArrayList<>();
        for (VectorSchemaRoot b : batches) {
            try (b) {
                BigIntVector id = (BigIntVector) b.getVector("id");
                for (int i = 0; i < b.getRowCount(); i++) {
                    out.add(id.get(i));
                }
            }
        }
        return out;
    }
}
