package io.javelin.engine.index;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import reactor.core.publisher.Flux;

/** Rows {@code id int64, cat utf8?, num int32?, vec fixed_size_list<float32>[DIM]} with clustered vectors (seeded). */
final class IndexTestData {

    static final int DIM = 16;

    private IndexTestData() {
    }

    static Schema schema() {
        return new Schema(List.of(
                new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
                new Field("cat", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
                new Field("num", FieldType.nullable(new ArrowType.Int(32, true)), null),
                new Field("vec", FieldType.nullable(new ArrowType.FixedSizeList(DIM)),
                        List.of(new Field("item", FieldType.notNullable(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)), null)))));
    }

    /** The vector of row {@code id}: one of 8 cluster centres plus noise. */
    static float[] vector(long id) {
        Random c = new Random(id % 8);
        Random r = new Random(id * 31 + 7);
        float[] v = new float[DIM];
        for (int i = 0; i < DIM; i++) {
            v[i] = (float) (c.nextGaussian() * 10 + r.nextGaussian());
        }
        return v;
    }

    static String cat(long id) {
        return id % 17 == 0 ? null : "c" + (id % 6);
    }

    static Integer num(long id) {
        return id % 13 == 0 ? null : (int) ((id * 7919) % 1000) - 500;
    }

    static Flux<VectorSchemaRoot> rows(BufferAllocator alloc, long from, int count, int batch) {
        return Flux.range(0, (count + batch - 1) / batch).map(b -> {
            int n = Math.min(batch, count - b * batch);
            VectorSchemaRoot root = VectorSchemaRoot.create(schema(), alloc);
            root.allocateNew();
            BigIntVector id = (BigIntVector) root.getVector("id");
            VarCharVector cat = (VarCharVector) root.getVector("cat");
            IntVector num = (IntVector) root.getVector("num");
            FixedSizeListVector vec = (FixedSizeListVector) root.getVector("vec");
            Float4Vector items = (Float4Vector) vec.getDataVector();
            for (int i = 0; i < n; i++) {
                long r = from + (long) b * batch + i;
                id.setSafe(i, r);
                String c = cat(r);
                if (c == null) {
                    cat.setNull(i);
                } else {
                    cat.setSafe(i, c.getBytes(StandardCharsets.UTF_8));
                }
                Integer x = num(r);
                if (x == null) {
                    num.setNull(i);
                } else {
                    num.setSafe(i, x);
                }
                vec.setNotNull(i);
                float[] v = vector(r);
                for (int j = 0; j < DIM; j++) {
                    items.setSafe(i * DIM + j, v[j]);
                }
            }
            items.setValueCount(n * DIM);
            root.setRowCount(n);
            return root;
        });
    }
}
