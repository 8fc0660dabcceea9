package io.javelin.interop.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.javelin.engine.Dataset;
import io.javelin.engine.WriteMode;
import io.javelin.engine.WriteParams;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;

/**
 * JSON columns between the engines: a column of JSON text marked {@code arrow.json} is stored as JSONB
 * ({@code lance.json}) by both writers, and both readers hand it back as the same JSON text (Utf8,
 * {@code arrow.json}): keys sorted, numbers in Rust's forms, serde_json's escapes.
 */
class JsonColumnInteropTest {

    static final String[] DOCS = {
        "{\"n\":3,\"name\":\"a\",\"x\":1.5,\"ok\":true,\"arr\":[\"a\",\"b\"],\"o\":{\"k\":2}}",
        "{\"z\":1,\"a\":2,\"m\":{\"y\":[1,{\"q\":\"w\"}]}, \"A\": null, \"é\": 0, \"b\": -0}",
        "[10,\"s\",true,null,{\"a\":1},[]]", "42", "\"str\"", "null", "", "  {  }  ", "[ ]",
        "{\"big\":12345678901234567890,\"f\":1e300,\"i\":9007199254740993,\"neg\":-0.0,\"min\":-9223372036854775808}",
        "{\"d\":[0.1,1.5e-7,1e-5,1e-6,1e15,1e16,123456789012345678901,2.50,1E2,-3.25e-10,5e-324,1.7976931348623157e308]}",
        "{\"esc\":\"a\\\"b\\/c\\\\d\",\"ctl\":\"\\u0001\\u001f\\b\\f\\n\\r\\t\",\"u\":\"\\u00e4\\u4e2d\",\"del\":\"\\u007f\"}",
        "{\"n\":-1,\"m\":-128,\"p\":-129,\"q\":32767,\"r\":-32769,\"s\":65535,\"t\":4294967296,\"u\":-2147483649}",
    };

    @TempDir
    Path dir;

    static Schema schema(String extension) {
        return new Schema(List.of(
                new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
                new Field("j", new FieldType(true, ArrowType.Utf8.INSTANCE, null, Map.of("ARROW:extension:name", extension)), null)));
    }

    static VectorSchemaRoot batch(BufferAllocator alloc, Schema schema) {
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, alloc);
        root.allocateNew();
        for (int i = 0; i <= DOCS.length; i++) {
            ((BigIntVector) root.getVector("id")).setSafe(i, i);
            if (i < DOCS.length) {
                ((VarCharVector) root.getVector("j")).setSafe(i, DOCS[i].getBytes(StandardCharsets.UTF_8));
            } else {
                ((VarCharVector) root.getVector("j")).setNull(i);
            }
        }
        root.setRowCount(DOCS.length + 1);
        return root;
    }

    static void writeWithLance(BufferAllocator alloc, String uri, Schema schema) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (VectorSchemaRoot root = batch(alloc, schema); ArrowStreamWriter w = new ArrowStreamWriter(root, null, out)) {
            w.start();
            w.writeBatch();
            w.end();
        }
        try (ArrowReader reader = new ArrowStreamReader(new ByteArrayInputStream(out.toByteArray()), alloc);
             ArrowArrayStream stream = ArrowArrayStream.allocateNew(alloc)) {
            Data.exportArrayStream(alloc, reader, stream);
            org.lance.Dataset.create(alloc, stream, uri, new org.lance.WriteParams.Builder().withDataStorageVersion("2.1").build()).close();
        }
    }

    /** Every row of column j as lance-core scans it, with the field it reports. */
    static List<String> lanceText(BufferAllocator alloc, String uri, List<Field> field, String filter) throws Exception {
        List<String> rows = new ArrayList<>();
        try (org.lance.Dataset ds = org.lance.Dataset.open(uri, alloc)) {
            ScanOptions.Builder o = new ScanOptions.Builder();
            if (filter != null) {
                o.filter(filter);
            }
            try (LanceScanner s = ds.newScan(o.build()); ArrowReader r = s.scanBatches()) {
                while (r.loadNextBatch()) {
                    VectorSchemaRoot b = r.getVectorSchemaRoot();
                    field.add(b.getSchema().findField("j"));
                    for (int i = 0; i < b.getRowCount(); i++) {
                        Object v = b.getVector("j").getObject(i);
                        rows.add(v == null ? null : v.toString());
                    }
                }
            }
        }
        return rows;
    }

    static List<String> javelinText(BufferAllocator alloc, String uri, List<Field> field, String filter) {
        List<String> rows = new ArrayList<>();
        try (Dataset ds = Dataset.open(uri).block()) {
            var scanner = ds.scanner();
            if (filter != null) {
                scanner = scanner.filter(filter);
            }
            for (VectorSchemaRoot b : scanner.scan(alloc).publishOn(Schedulers.boundedElastic(), 1).toIterable(1)) {
                try (b) {
                    field.add(b.getSchema().findField("j"));
                    for (int i = 0; i < b.getRowCount(); i++) {
                        Object v = b.getVector("j").getObject(i);
                        rows.add(v == null ? null : v.toString());
                    }
                }
            }
        }
        return rows;
    }

    @Test
    void lanceWrittenJsonReadsAsTheSameTextInBothEngines() throws Exception {
        try (BufferAllocator alloc = new RootAllocator()) {
            String uri = dir.resolve("lance.lance").toString();
            writeWithLance(alloc, uri, schema("arrow.json"));
            List<Field> lf = new ArrayList<>();
            List<Field> jf = new ArrayList<>();
            List<String> lance = lanceText(alloc, uri, lf, null);
            List<String> javelin = javelinText(alloc, uri, jf, null);
            assertThat(javelin).containsExactlyElementsOf(lance);
            assertThat(lance.get(1)).isEqualTo("{\"A\":null,\"a\":2,\"b\":0,\"m\":{\"y\":[1,{\"q\":\"w\"}]},\"z\":1,\"é\":0}");
            assertThat(jf.getFirst().getType()).isEqualTo(lf.getFirst().getType()).isEqualTo(ArrowType.Utf8.INSTANCE);
            assertThat(jf.getFirst().getMetadata()).isEqualTo(lf.getFirst().getMetadata())
                    .containsEntry("ARROW:extension:name", "arrow.json");
            try (Dataset ds = Dataset.open(uri).block()) {
                assertThat(ds.schema().findField("j").getType()).isEqualTo(ArrowType.LargeBinary.INSTANCE);
                assertThat(ds.schema().findField("j").getMetadata()).containsEntry("ARROW:extension:name", "lance.json");
            }
        }
    }

    @Test
    void javelinWrittenJsonIsReadByLanceCoreAsLanceWroteIt() throws Exception {
        try (BufferAllocator alloc = new RootAllocator()) {
            for (String ext : List.of("arrow.json", "lance.json")) {
                String theirs = dir.resolve("theirs-" + ext + ".lance").toString();
                String ours = dir.resolve("ours-" + ext + ".lance").toString();
                writeWithLance(alloc, theirs, schema(ext));
                Dataset.write(ours, Flux.defer(() -> Flux.just(batch(alloc, schema(ext)))), schema(ext),
                        WriteParams.of(WriteMode.CREATE)).block().close();
                List<Field> tf = new ArrayList<>();
                List<Field> of = new ArrayList<>();
                assertThat(lanceText(alloc, ours, of, null)).as(ext).containsExactlyElementsOf(lanceText(alloc, theirs, tf, null));
                assertThat(of.getFirst()).isEqualTo(tf.getFirst());
                try (org.lance.Dataset a = org.lance.Dataset.open(ours, alloc); org.lance.Dataset b = org.lance.Dataset.open(theirs, alloc)) {
                    assertThat(a.getSchema()).isEqualTo(b.getSchema());
                }
                if (ext.equals("lance.json")) {
                    continue; // lance-core keeps a Utf8 column marked lance.json as text; so does Javelin
                }
                for (String f : List.of("json_get_int(j, 'n') = 3", "json_extract(j, '$.m.y[1].q') = '\"w\"'",
                        "json_get_string(j, 'u') = 'ä中'", "json_array_length(j, '$.d') = 12", "json_get_float(j, 'f') > 1e299")) {
                    List<String> l = lanceText(alloc, ours, new ArrayList<>(), f);
                    assertThat(l).as(f).isNotEmpty().containsExactlyElementsOf(javelinText(alloc, theirs, new ArrayList<>(), f));
                }
            }
        }
    }

    @Test
    void invalidJsonIsRefusedOnWriteNamingTheRow() {
        Schema s = schema("arrow.json");
        try (BufferAllocator alloc = new RootAllocator()) {
            String uri = dir.resolve("bad.lance").toString();
            assertThatThrownBy(() -> Dataset.write(uri, Flux.defer(() -> {
                VectorSchemaRoot b = batch(alloc, s);
                ((VarCharVector) b.getVector("j")).setSafe(2, "{\"a\":1,\"a\":2}".getBytes(StandardCharsets.UTF_8));
                return Flux.just(b);
            }), s, WriteParams.of(WriteMode.CREATE)).block())
                    .hasMessageContaining("JSON column j, row 2").hasMessageContaining("duplicate object attribute \"a\"");
        }
    }
}
