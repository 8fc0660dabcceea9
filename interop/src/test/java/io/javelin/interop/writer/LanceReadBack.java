package io.javelin.interop.writer;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.encoding.writer.LanceFileVersion;
import io.javelin.encoding.writer.LanceFileWriter;
import io.javelin.encoding.writer.TestBatches;
import io.javelin.encoding.writer.WriteOptions;
import io.javelin.objectstore.local.LocalObjectStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.lance.file.LanceFileReader;
import reactor.core.publisher.Flux;

/** Writes seeded batches with our writer and checks what lance-core's LanceFileReader reads back. */
final class LanceReadBack {
    private LanceReadBack() {
    }

    /** Per column, the normalized row values. */
    static List<List<Object>> expected(Schema schema, BufferAllocator alloc, long seed, int batches, int rowsPerBatch) {
        return expected(schema, alloc, seed, batches, rowsPerBatch, false);
    }

    static List<List<Object>> expected(Schema schema, BufferAllocator alloc, long seed, int batches, int rowsPerBatch,
                                       boolean v20) {
        List<List<Object>> cols = new ArrayList<>();
        for (int c = 0; c < schema.getFields().size(); c++) {
            cols.add(new ArrayList<>());
        }
        for (int b = 0; b < batches; b++) {
            try (VectorSchemaRoot root = TestBatches.batch(schema, alloc, seed, (long) b * rowsPerBatch, rowsPerBatch)) {
                collect(root, cols, v20);
            }
        }
        return cols;
    }

    static void collect(VectorSchemaRoot root, List<List<Object>> cols) {
        collect(root, cols, false);
    }

    /** With {@code v20}, struct validity is ignored (2.0 does not store it): a struct is the map of its children. */
    static void collect(VectorSchemaRoot root, List<List<Object>> cols, boolean v20) {
        for (int c = 0; c < root.getFieldVectors().size(); c++) {
            FieldVector v = root.getVector(c);
            for (int i = 0; i < root.getRowCount(); i++) {
                cols.get(c).add(v20 ? obj20(v, i) : TestBatches.normalize(v.getObject(i)));
            }
        }
    }

    static Object obj20(org.apache.arrow.vector.ValueVector v, int i) {
        if (v instanceof org.apache.arrow.vector.complex.StructVector s) {
            java.util.TreeMap<String, Object> m = new java.util.TreeMap<>();
            for (FieldVector c : s.getChildrenFromFields()) {
                Object o = obj20(c, i);
                if (o != null) {
                    m.put(c.getName(), o);
                }
            }
            return m;
        }
        if (v.isNull(i)) {
            return null;
        }
        if (v instanceof org.apache.arrow.vector.complex.ListVector l) {
            List<Object> out = new ArrayList<>();
            int s = l.getOffsetBuffer().getInt((long) i * 4);
            int e = l.getOffsetBuffer().getInt((long) (i + 1) * 4);
            for (int j = s; j < e; j++) {
                out.add(obj20(l.getDataVector(), j));
            }
            return out;
        }
        if (v instanceof org.apache.arrow.vector.complex.LargeListVector l) {
            List<Object> out = new ArrayList<>();
            long s = l.getOffsetBuffer().getLong((long) i * 8);
            long e = l.getOffsetBuffer().getLong((long) (i + 1) * 8);
            for (long j = s; j < e; j++) {
                out.add(obj20(l.getDataVector(), (int) j));
            }
            return out;
        }
        return TestBatches.normalize(v.getObject(i));
    }

    static Path write(Path dir, String name, Schema schema, BufferAllocator alloc, long seed, int batches,
                      int rowsPerBatch, WriteOptions options) {
        try (LocalObjectStore store = new LocalObjectStore(dir, 2)) {
            Flux<VectorSchemaRoot> in = Flux.range(0, batches)
                    .map(b -> TestBatches.batch(schema, alloc, seed, (long) b * rowsPerBatch, rowsPerBatch));
            // Each batch is consumed during onNext; close it right after.
            Flux<VectorSchemaRoot> closing = in.concatMap(r -> Flux.just(r).doAfterTerminate(r::close), 1);
            LanceFileWriter.Result res = LanceFileWriter.write(closing, schema, store, name, options)
                    .block(Duration.ofMinutes(5));
            assertThat(res.rows()).isEqualTo((long) batches * rowsPerBatch);
        }
        return dir.resolve(name);
    }

    static List<List<Object>> readWithLance(Path file, BufferAllocator alloc, Schema schema) throws Exception {
        return readWithLance(file, alloc, schema, false);
    }

    static List<List<Object>> readWithLance(Path file, BufferAllocator alloc, Schema schema, boolean v20) throws Exception {
        List<List<Object>> cols = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (Field f : schema.getFields()) {
            cols.add(new ArrayList<>());
            names.add(f.getName());
        }
        try (LanceFileReader reader = LanceFileReader.open(file.toString(), alloc);
             ArrowReader r = reader.readAll(names, null, 1000)) {
            while (r.loadNextBatch()) {
                collect(r.getVectorSchemaRoot(), cols, v20);
            }
        }
        return cols;
    }

    static void assertSame(Schema schema, List<List<Object>> expected, List<List<Object>> actual, String what) {
        for (int c = 0; c < schema.getFields().size(); c++) {
            String col = schema.getFields().get(c).getName();
            List<Object> e = expected.get(c);
            List<Object> a = actual.get(c);
            assertThat(a.size()).as("%s: rows of column %s", what, col).isEqualTo(e.size());
            for (int i = 0; i < e.size(); i++) {
                if (!java.util.Objects.equals(e.get(i), a.get(i))) {
                    throw new AssertionError(what + ": column " + col + " row " + i + ": expected " + e.get(i)
                            + " but lance read " + a.get(i));
                }
            }
        }
    }

    /** Lance 2.0 does not store struct validity: a null struct reads back as a struct of nulls. */
    static List<List<Object>> as20(Schema schema, List<List<Object>> cols) {
        List<List<Object>> out = new ArrayList<>();
        for (int c = 0; c < cols.size(); c++) {
            Field f = schema.getFields().get(c);
            List<Object> col = new ArrayList<>();
            for (Object o : cols.get(c)) {
                col.add(struct20(f, o));
            }
            out.add(col);
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private static Object struct20(Field f, Object o) {
        if (f.getType() instanceof org.apache.arrow.vector.types.pojo.ArrowType.Struct) {
            java.util.TreeMap<String, Object> m = new java.util.TreeMap<>();
            if (o != null) {
                java.util.Map<String, Object> src = (java.util.Map<String, Object>) o;
                for (Field c : f.getChildren()) {
                    Object v = struct20(c, src.get(c.getName()));
                    if (v != null) {
                        m.put(c.getName(), v);
                    }
                }
            } else {
                for (Field c : f.getChildren()) {
                    Object v = struct20(c, null);
                    if (v != null) {
                        m.put(c.getName(), v);
                    }
                }
            }
            return m;
        }
        if (o instanceof List<?> l && !f.getChildren().isEmpty()) {
            List<Object> out = new ArrayList<>();
            for (Object e : l) {
                out.add(struct20(f.getChildren().get(0), e));
            }
            return out;
        }
        return o;
    }

    static WriteOptions opts(String v) {
        return WriteOptions.of(LanceFileVersion.parse(v));
    }
}
