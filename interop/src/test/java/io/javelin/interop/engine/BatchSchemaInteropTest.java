package io.javelin.interop.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.cli.JavelinCli;
import io.javelin.engine.Dataset;
import io.javelin.engine.WriteMode;
import io.javelin.engine.WriteParams;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;
import reactor.core.scheduler.Schedulers;

/**
 * The Arrow schema of every batch Javelin emits (scan, take, export) equals lance-core's for the same
 * dataset: names (list children included), nullability, child order and field metadata; values too.
 */
public class BatchSchemaInteropTest {

    @TempDir
    Path dir;

    final BufferAllocator alloc = new RootAllocator();

    @AfterEach
    void closeAllocator() {
        alloc.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"types_v2_0", "types_v2_1", "types_v2_2", "encodings_v2_0", "encodings_v2_1", "encodings_v2_2", "versions_deletes",
            "indexed"})
    void goldenBatchesHaveLanceCoresSchemaAndValues(String name) throws Exception {
        assertSameAsLanceCore(GoldenExportInteropTest.copy(name, dir).toString());
    }

    static final Schema NESTED = new Schema(List.of(
            new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
            new Field("tags", FieldType.nullable(ArrowType.List.INSTANCE),
                    List.of(new Field("item", FieldType.nullable(ArrowType.Utf8.INSTANCE), null))),
            new Field("big", FieldType.nullable(ArrowType.LargeList.INSTANCE),
                    List.of(new Field("item", FieldType.nullable(new ArrowType.Int(32, true)), null))),
            new Field("vec", FieldType.nullable(new ArrowType.FixedSizeList(3)),
                    List.of(new Field("item", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)), null))),
            new Field("st", new FieldType(true, ArrowType.Struct.INSTANCE, null, Map.of("note", "a struct")), List.of(
                    new Field("z", new FieldType(true, new ArrowType.Int(32, true), null, Map.of("unit", "mm")), null),
                    new Field("a", FieldType.nullable(ArrowType.Utf8.INSTANCE), null))),
            new Field("pts", FieldType.nullable(ArrowType.List.INSTANCE), List.of(
                    new Field("item", FieldType.nullable(ArrowType.Struct.INSTANCE), List.of(
                            new Field("x", FieldType.nullable(new ArrowType.Int(32, true)), null),
                            new Field("y", FieldType.nullable(new ArrowType.Int(32, true)), null))))),
            new Field("m", FieldType.nullable(new ArrowType.Map(false)), List.of(
                    new Field("entries", FieldType.notNullable(ArrowType.Struct.INSTANCE), List.of(
                            new Field("key", FieldType.notNullable(ArrowType.Utf8.INSTANCE), null),
                            new Field("value", FieldType.nullable(new ArrowType.Int(32, true)), null)))))));

    static void fillNested(VectorSchemaRoot root, int n) {
        ((BigIntVector) root.getVector("id")).allocateNew(n);
        var tags = ((ListVector) root.getVector("tags")).getWriter();
        var big = ((LargeListVector) root.getVector("big")).getWriter();
        FixedSizeListVector vec = (FixedSizeListVector) root.getVector("vec");
        vec.allocateNew();
        Float4Vector vecItems = (Float4Vector) vec.getDataVector();
        vecItems.allocateNew(n * 3);
        StructVector st = (StructVector) root.getVector("st");
        st.allocateNew();
        var pts = ((ListVector) root.getVector("pts")).getWriter();
        var m = root.getVector("m") == null ? null : ((MapVector) root.getVector("m")).getWriter();
        for (int i = 0; i < n; i++) {
            ((BigIntVector) root.getVector("id")).setSafe(i, i);
            tags.setPosition(i);
            tags.startList();
            for (int k = 0; k < i % 3; k++) {
                byte[] b = ("t" + i + "-" + k).getBytes(java.nio.charset.StandardCharsets.UTF_8);
                try (var buf = root.getVector("id").getAllocator().buffer(b.length)) {
                    buf.setBytes(0, b);
                    tags.varChar().writeVarChar(0, b.length, buf);
                }
            }
            tags.endList();
            big.setPosition(i);
            big.startList();
            big.integer().writeInt(i);
            big.endList();
            vec.setNotNull(i);
            for (int k = 0; k < 3; k++) {
                vecItems.setSafe(i * 3 + k, i + k / 10f);
            }
            if (i % 4 == 0) {
                st.setNull(i);
            } else {
                st.setIndexDefined(i);
                ((IntVector) st.getChild("z")).setSafe(i, i * 2);
                ((VarCharVector) st.getChild("a")).setSafe(i, ("a" + i).getBytes(java.nio.charset.StandardCharsets.UTF_8));
            }
            pts.setPosition(i);
            pts.startList();
            pts.struct().start();
            pts.struct().integer("x").writeInt(i);
            pts.struct().integer("y").writeInt(-i);
            pts.struct().end();
            pts.endList();
            if (m == null) {
                continue;
            }
            m.setPosition(i);
            m.startMap();
            m.startEntry();
            byte[] key = ("k" + i).getBytes(java.nio.charset.StandardCharsets.UTF_8);
            try (var buf = root.getVector("id").getAllocator().buffer(key.length)) {
                buf.setBytes(0, key);
                m.key().varChar().writeVarChar(0, key.length, buf);
            }
            m.value().integer().writeInt(i);
            m.endEntry();
            m.endMap();
        }
        for (FieldVector v : root.getFieldVectors()) {
            v.setValueCount(n);
        }
        root.setRowCount(n);
    }

    @ParameterizedTest
    @ValueSource(strings = {"2.0", "2.1", "2.2"})
    void nestedTypesWrittenByLanceCore(String storage) throws Exception {
        String uri = dir.resolve("nested.lance").toString();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        // maps need 2.2 (lance-core 7.0.0 panics on a map in 2.0 and 2.1 files)
        Schema schema = storage.equals("2.2") ? NESTED
                : new Schema(NESTED.getFields().stream().filter(f -> !f.getName().equals("m")).toList());
        try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, alloc);
             ArrowStreamWriter w = new ArrowStreamWriter(root, null, out)) {
            w.start();
            fillNested(root, 50);
            w.writeBatch();
            w.end();
        }
        try (ArrowReader reader = new ArrowStreamReader(new ByteArrayInputStream(out.toByteArray()), alloc);
             ArrowArrayStream stream = ArrowArrayStream.allocateNew(alloc)) {
            Data.exportArrayStream(alloc, reader, stream);
            var p = new org.lance.WriteParams.Builder().withDataStorageVersion(storage).withMaxRowsPerFile(20).build();
            org.lance.Dataset.create(alloc, stream, uri, p).close();
        }
        assertSameAsLanceCore(uri);
    }

    /** A batch built from vectors is labelled $data$ by Arrow Java; the dataset written from it says item. */
    @Test
    void datasetWrittenFromArrowJavaVectorsRecordsItem() throws Exception {
        String uri = dir.resolve("ours.lance").toString();
        VectorSchemaRoot made = VectorSchemaRoot.create(NESTED, alloc);
        fillNested(made, 30);
        VectorSchemaRoot fromVectors = new VectorSchemaRoot(made.getFieldVectors());
        fromVectors.setRowCount(30);
        assertThat(fromVectors.getSchema().findField("tags").getChildren().get(0).getName()).isEqualTo("$data$");
        Dataset.write(uri, reactor.core.publisher.Flux.just(fromVectors), fromVectors.getSchema(),
                        WriteParams.of(WriteMode.CREATE).withDataStorageVersion(io.javelin.encoding.writer.LanceFileVersion.V2_2))
                .block().close();
        try (org.lance.Dataset lance = org.lance.Dataset.open(uri, alloc)) {
            assertThat(lance.getSchema().findField("tags").getChildren().get(0).getName()).isEqualTo("item");
            assertThat(lance.getSchema().findField("big").getChildren().get(0).getName()).isEqualTo("item");
        }
        assertSameAsLanceCore(uri);
    }

    /** {@link #assertSameAsLanceCore} for another test's dataset, with an allocator of its own. */
    public static void check(Path dir, String uri) throws Exception {
        BatchSchemaInteropTest t = new BatchSchemaInteropTest();
        t.dir = dir;
        try {
            t.assertSameAsLanceCore(uri);
        } finally {
            t.closeAllocator();
        }
    }

    void assertSameAsLanceCore(String uri) throws Exception {
        Schema theirs = null;
        java.util.Set<String> blobs = new java.util.HashSet<>();
        List<String> theirRows = new ArrayList<>();
        try (org.lance.Dataset lance = org.lance.Dataset.open(uri, alloc);
             LanceScanner s = lance.newScan(new ScanOptions.Builder().batchSize(1024).build());
             ArrowReader r = s.scanBatches()) {
            for (Field f : lance.getSchema().getFields()) {
                if (f.getMetadata() != null && f.getMetadata().containsKey("lance-encoding:blob")) {
                    blobs.add(f.getName());
                }
            }
            while (r.loadNextBatch()) {
                theirs = r.getVectorSchemaRoot().getSchema();
                theirRows.addAll(GoldenExportInteropTest.rows(r.getVectorSchemaRoot(), blobs));
            }
        }
        assertThat(theirs).isNotNull();
        // blob columns are the one deliberate difference: lance-core returns descriptors, Javelin the bytes
        List<Field> expected = withoutBlobs(theirs, blobs);
        List<String> columns = expected.stream().map(Field::getName).toList();
        List<String> ourRows = new ArrayList<>();
        try (Dataset ds = Dataset.open(uri).block()) {
            assertThat(withoutBlobs(ds.schema(), blobs)).as("dataset schema").isEqualTo(expected);
            assertThat(withoutBlobs(ds.scanner().outputSchema(), blobs)).as("scanner output schema").isEqualTo(expected);
            for (VectorSchemaRoot b : ds.scanner().batchSize(1024).scan(alloc).publishOn(Schedulers.boundedElastic(), 1).toIterable(1)) {
                try (b) {
                    assertThat(withoutBlobs(b.getSchema(), blobs)).as("scan batch schema").isEqualTo(expected);
                    ourRows.addAll(GoldenExportInteropTest.rows(b, blobs));
                }
            }
            try (VectorSchemaRoot t = ds.take(new long[] {0, theirRows.size() - 1}, columns, alloc).block()) {
                assertThat(t.getSchema().getFields()).as("take batch schema").isEqualTo(expected);
            }
        }
        assertThat(ourRows).as("scan values").isEqualTo(theirRows);
        Path export = dir.resolve("export-" + System.nanoTime() + ".arrow");
        assertThat(JavelinCli.run("export", uri, export.toString())).isZero();
        List<String> exported = new ArrayList<>();
        try (var ch = Files.newByteChannel(export); ArrowFileReader r = new ArrowFileReader(ch, alloc)) {
            assertThat(withoutBlobs(r.getVectorSchemaRoot().getSchema(), blobs)).as("export schema").isEqualTo(expected);
            while (r.loadNextBatch()) {
                exported.addAll(GoldenExportInteropTest.rows(r.getVectorSchemaRoot(), blobs));
            }
        }
        assertThat(exported).as("export values").isEqualTo(theirRows);
    }

    static List<Field> withoutBlobs(Schema s, java.util.Set<String> blobs) {
        return s.getFields().stream().filter(f -> !blobs.contains(f.getName())).toList();
    }
}
