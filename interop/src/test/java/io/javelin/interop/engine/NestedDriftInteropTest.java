package io.javelin.interop.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.util.List;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.complex.impl.UnionListWriter;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Fragments whose files store a struct (also inside a list) with its children in another order, as lance-core
 * writes an append whose struct children are ordered differently: scans project every fragment to the table
 * schema, as lance-core does.
 */
class NestedDriftInteropTest {

    @TempDir
    Path dir;

    final BufferAllocator alloc = new RootAllocator();

    @AfterEach
    void closeAllocator() {
        alloc.close();
    }

    static Field i32(String n) {
        return new Field(n, FieldType.nullable(new ArrowType.Int(32, true)), null);
    }

    /** The table's struct children with only the first of each kept (a fragment written before the others existed). */
    static Schema missing() {
        Schema full = schema(false);
        Field st = full.findField("st");
        Field pts = full.findField("pts");
        Field item = pts.getChildren().get(0);
        return new Schema(List.of(full.findField("id"),
                new Field("st", st.getFieldType(), List.of(st.getChildren().get(0))),
                new Field("pts", pts.getFieldType(), List.of(new Field("item", item.getFieldType(), List.of(item.getChildren().get(0)))))));
    }

    static Schema schema(boolean swapped) {
        List<Field> st = swapped ? List.of(new Field("b", FieldType.nullable(ArrowType.Utf8.INSTANCE), null), i32("a"))
                : List.of(i32("a"), new Field("b", FieldType.nullable(ArrowType.Utf8.INSTANCE), null));
        List<Field> pt = swapped ? List.of(i32("y"), i32("x")) : List.of(i32("x"), i32("y"));
        return new Schema(List.of(
                new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
                new Field("st", FieldType.nullable(ArrowType.Struct.INSTANCE), st),
                new Field("pts", FieldType.nullable(ArrowType.List.INSTANCE),
                        List.of(new Field("item", FieldType.nullable(ArrowType.Struct.INSTANCE), pt)))));
    }

    void lanceWrite(String uri, Schema schema, long from, int n, org.lance.WriteParams.WriteMode mode, String storage) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, alloc);
             ArrowStreamWriter w = new ArrowStreamWriter(root, null, out)) {
            w.start();
            root.allocateNew();
            StructVector st = (StructVector) root.getVector("st");
            UnionListWriter pts = ((ListVector) root.getVector("pts")).getWriter();
            for (int i = 0; i < n; i++) {
                long r = from + i;
                ((BigIntVector) root.getVector("id")).setSafe(i, r);
                st.setIndexDefined(i);
                ((IntVector) st.getChild("a")).setSafe(i, (int) r);
                if (st.getChild("b") != null) {
                    ((VarCharVector) st.getChild("b")).setSafe(i, ("b" + r).getBytes(java.nio.charset.StandardCharsets.UTF_8));
                }
                pts.setPosition(i);
                pts.startList();
                for (int k = 0; k < 2; k++) {
                    pts.struct().start();
                    pts.struct().integer("x").writeInt((int) r * 10 + k);
                    if (schema.findField("pts").getChildren().get(0).getChildren().size() > 1) {
                        pts.struct().integer("y").writeInt(-(int) r);
                    }
                    pts.struct().end();
                }
                pts.endList();
            }
            root.getFieldVectors().forEach(v -> v.setValueCount(n));
            root.setRowCount(n);
            w.writeBatch();
            w.end();
        }
        try (ArrowReader reader = new ArrowStreamReader(new ByteArrayInputStream(out.toByteArray()), alloc);
             ArrowArrayStream stream = ArrowArrayStream.allocateNew(alloc)) {
            Data.exportArrayStream(alloc, reader, stream);
            var p = new org.lance.WriteParams.Builder().withMode(mode).withDataStorageVersion(storage).build();
            org.lance.Dataset.create(alloc, stream, uri, p).close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"2.0", "2.1", "2.2"})
    void reorderedStructChildrenInALaterFragment(String storage) throws Exception {
        String uri = dir.resolve("drift.lance").toString();
        lanceWrite(uri, schema(false), 0, 40, org.lance.WriteParams.WriteMode.CREATE, storage);
        lanceWrite(uri, schema(true), 40, 30, org.lance.WriteParams.WriteMode.APPEND, storage);
        try (org.lance.Dataset lance = org.lance.Dataset.open(uri, alloc)) {
            assertThat(lance.getSchema()).isEqualTo(schema(false));
            assertThat(lance.getFragments()).hasSize(2);
        }
        BatchSchemaInteropTest t = new BatchSchemaInteropTest();
        t.dir = dir;
        try {
            t.assertSameAsLanceCore(uri);
        } finally {
            t.closeAllocator();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"2.0", "2.1", "2.2"})
    void structChildrenMissingInALaterFragment(String storage) throws Exception {
        String uri = dir.resolve("missing.lance").toString();
        lanceWrite(uri, schema(false), 0, 40, org.lance.WriteParams.WriteMode.CREATE, storage);
        lanceWrite(uri, missing(), 40, 30, org.lance.WriteParams.WriteMode.APPEND, storage);
        try (org.lance.Dataset lance = org.lance.Dataset.open(uri, alloc)) {
            assertThat(lance.getSchema()).isEqualTo(schema(false));
            assertThat(lance.getFragments()).hasSize(2);
        }
        BatchSchemaInteropTest t = new BatchSchemaInteropTest();
        t.dir = dir;
        try {
            t.assertSameAsLanceCore(uri);
        } finally {
            t.closeAllocator();
        }
    }
}
