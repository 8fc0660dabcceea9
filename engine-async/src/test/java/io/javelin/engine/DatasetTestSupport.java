package io.javelin.engine;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import reactor.core.publisher.Flux;

/** Generated test tables: id int64, name utf8, score float64 (nullable), s struct{a int32, b utf8}. */
final class DatasetTestSupport {

    private DatasetTestSupport() {
    }

    static Schema schema() {
        return new Schema(List.of(
                new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
                new Field("name", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
                new Field("score", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), null),
                new Field("s", FieldType.nullable(ArrowType.Struct.INSTANCE), List.of(
                        new Field("a", FieldType.nullable(new ArrowType.Int(32, true)), null),
                        new Field("b", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)))));
    }

    static double score(long r) {
        return r % 11 == 0 ? Double.NaN : ((r * 37) % 100) / 100.0;
    }

    static Flux<VectorSchemaRoot> rows(BufferAllocator alloc, long from, int count, int batch) {
        return Flux.range(0, (count + batch - 1) / batch).map(b -> {
            int n = Math.min(batch, count - b * batch);
            VectorSchemaRoot root = VectorSchemaRoot.create(schema(), alloc);
            root.allocateNew();
            BigIntVector id = (BigIntVector) root.getVector("id");
            VarCharVector name = (VarCharVector) root.getVector("name");
            Float8Vector score = (Float8Vector) root.getVector("score");
            StructVector s = (StructVector) root.getVector("s");
            IntVector a = (IntVector) s.getChild("a");
            VarCharVector sb = (VarCharVector) s.getChild("b");
            for (int i = 0; i < n; i++) {
                long r = from + (long) b * batch + i;
                id.setSafe(i, r);
                name.setSafe(i, ("n" + r).getBytes(StandardCharsets.UTF_8));
                if (r % 11 == 0) {
                    score.setNull(i);
                } else {
                    score.setSafe(i, score(r));
                }
                if (r % 13 == 0) {
                    s.setNull(i);
                } else {
                    s.setIndexDefined(i);
                    a.setSafe(i, (int) (r % 7));
                    sb.setSafe(i, ("b" + (r % 5)).getBytes(StandardCharsets.UTF_8));
                }
            }
            a.setValueCount(n);
            sb.setValueCount(n);
            root.setRowCount(n);
            return root;
        });
    }

    /** Rows as lists of getObject() strings, consuming (closing) the batches. */
    static List<List<String>> collect(Flux<VectorSchemaRoot> batches) {
        List<List<String>> out = new ArrayList<>();
        for (VectorSchemaRoot b : batches.publishOn(reactor.core.scheduler.Schedulers.boundedElastic(), 1).toIterable(1)) {
            try (b) {
                out.addAll(rowsOf(b));
            }
        }
        return out;
    }

    static List<List<String>> rowsOf(VectorSchemaRoot b) {
        List<List<String>> out = new ArrayList<>();
        for (int i = 0; i < b.getRowCount(); i++) {
            List<String> r = new ArrayList<>();
            for (FieldVector v : b.getFieldVectors()) {
                r.add(String.valueOf(v.getObject(i)));
            }
            out.add(r);
        }
        return out;
    }
}
