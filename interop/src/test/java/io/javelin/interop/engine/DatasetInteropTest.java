package io.javelin.interop.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.engine.Dataset;
import io.javelin.engine.WriteMode;
import io.javelin.engine.WriteParams;
import io.javelin.encoding.writer.LanceFileVersion;
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
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
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
import reactor.core.publisher.Flux;

/** Datasets written by Javelin read by lance-core 7.0.0 and vice versa; scans with filters agree. */
class DatasetInteropTest {

    static final Schema SCHEMA = new Schema(List.of(
            new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
            new Field("name", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
            new Field("score", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), null)));

    static final List<String> FILTERS = List.of("id < 100", "score > 0.5 AND name LIKE 'r1%'", "name IS NULL OR id % 5 = 2",
            "id >= 2500 AND score <= 0.25");

    @TempDir
    Path dir;

    final BufferAllocator alloc = new RootAllocator();

    @AfterEach
    void closeAllocator() {
        alloc.close();
    }

    static void fill(VectorSchemaRoot root, long from, int n) {
        root.allocateNew();
        BigIntVector id = (BigIntVector) root.getVector("id");
        VarCharVector name = (VarCharVector) root.getVector("name");
        Float8Vector score = (Float8Vector) root.getVector("score");
        for (int i = 0; i < n; i++) {
            long v = from + i;
            id.setSafe(i, v);
            if (v % 7 == 0) {
                name.setNull(i);
            } else {
                name.setSafe(i, ("r" + v).getBytes(StandardCharsets.UTF_8));
            }
            score.setSafe(i, ((v * 31) % 100) / 100.0);
        }
        root.setRowCount(n);
    }

    Flux<VectorSchemaRoot> ours(long from, int n, int batch) {
        return Flux.range(0, (n + batch - 1) / batch).map(b -> {
            VectorSchemaRoot r = VectorSchemaRoot.create(SCHEMA, alloc);
            fill(r, from + (long) b * batch, Math.min(batch, n - b * batch));
            return r;
        });
    }

    void lanceWrite(String uri, long from, int n, org.lance.WriteParams.WriteMode mode) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, alloc);
             ArrowStreamWriter w = new ArrowStreamWriter(root, null, out)) {
            w.start();
            fill(root, from, n);
            w.writeBatch();
            w.end();
        }
        try (ArrowReader reader = new ArrowStreamReader(new ByteArrayInputStream(out.toByteArray()), alloc);
             ArrowArrayStream stream = ArrowArrayStream.allocateNew(alloc)) {
            Data.exportArrayStream(alloc, reader, stream);
            org.lance.WriteParams p = new org.lance.WriteParams.Builder().withMode(mode).withDataStorageVersion("2.1").build();
            org.lance.Dataset.create(alloc, stream, uri, p).close();
        }
    }

    static List<String> rows(VectorSchemaRoot r) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < r.getRowCount(); i++) {
            StringBuilder sb = new StringBuilder();
            for (FieldVector v : r.getFieldVectors()) {
                sb.append(v.getObject(i)).append('|');
            }
            out.add(sb.toString());
        }
        return out;
    }

    List<String> lanceScan(String uri, String filter) throws Exception {
        List<String> out = new ArrayList<>();
        try (org.lance.Dataset ds = org.lance.Dataset.open(uri, alloc)) {
            ScanOptions.Builder b = new ScanOptions.Builder().columns(List.of("id", "name", "score")).batchSize(1000);
            if (filter != null) {
                b.filter(filter);
            }
            try (LanceScanner s = ds.newScan(b.build()); ArrowReader r = s.scanBatches()) {
                while (r.loadNextBatch()) {
                    out.addAll(rows(r.getVectorSchemaRoot()));
                }
            }
        }
        return out;
    }

    List<String> javelinScan(String uri, String filter) {
        List<String> out = new ArrayList<>();
        try (Dataset ds = Dataset.open(uri).block()) {
            for (VectorSchemaRoot b : ds.scanner().columns("id", "name", "score").filter(filter).scan(alloc).publishOn(reactor.core.scheduler.Schedulers.boundedElastic(), 1).toIterable(1)) {
                try (b) {
                    out.addAll(rows(b));
                }
            }
        }
        return out;
    }

    @ParameterizedTest
    @ValueSource(strings = {"2.0", "2.1", "2.2"})
    void lanceCoreReadsDatasetsWeCreateAppendAndDelete(String storage) throws Exception {
        String uri = dir.resolve("ours.lance").toString();
        try (Dataset v1 = Dataset.write(uri, ours(0, 2000, 700), SCHEMA, WriteParams.of(WriteMode.CREATE)
                .withDataStorageVersion(LanceFileVersion.parse(storage))).block();
             Dataset v2 = v1.append(ours(2000, 1500, 500), SCHEMA).block();
             Dataset v3 = v2.delete("id % 3 = 0 OR (id >= 2100 AND id < 2200)").block()) {
            assertThat(v3.version()).isEqualTo(3);
        }
        try (org.lance.Dataset ds = org.lance.Dataset.open(uri, alloc)) {
            assertThat(ds.version()).isEqualTo(3);
            assertThat(ds.countRows()).isEqualTo(java.util.stream.LongStream.range(0, 3500)
                    .filter(i -> !(i % 3 == 0 || (i >= 2100 && i < 2200))).count());
        }
        assertThat(lanceScan(uri, null)).isEqualTo(javelinScan(uri, null));
        for (String f : FILTERS) {
            assertThat(javelinScan(uri, f)).as(f).isEqualTo(lanceScan(uri, f));
        }        BatchSchemaInteropTest.check(dir, uri);
    }

    @Test
    void weReadDatasetsLanceCoreWritesAndDeletesFrom() throws Exception {
        String uri = dir.resolve("theirs.lance").toString();
        lanceWrite(uri, 0, 3000, org.lance.WriteParams.WriteMode.CREATE);
        lanceWrite(uri, 3000, 1000, org.lance.WriteParams.WriteMode.APPEND);
        try (org.lance.Dataset ds = org.lance.Dataset.open(uri, alloc)) {
            ds.delete("id % 4 = 1");
        }
        try (Dataset ds = Dataset.open(uri).block()) {
            assertThat(ds.version()).isEqualTo(3);
            assertThat(ds.count().block()).isEqualTo(3000);
            try (Dataset v1 = ds.checkout(1).block()) {
                assertThat(v1.count().block()).isEqualTo(3000);
            }
        }
        assertThat(javelinScan(uri, null)).isEqualTo(lanceScan(uri, null));
        for (String f : FILTERS) {
            assertThat(javelinScan(uri, f)).as(f).isEqualTo(lanceScan(uri, f));
        }
        BatchSchemaInteropTest.check(dir, uri);
        // and lance-core keeps reading after we append and delete on its dataset
        try (Dataset ds = Dataset.open(uri, Map.of()).block();
             Dataset v4 = ds.append(ours(4000, 100, 100), SCHEMA).block();
             Dataset v5 = v4.delete("id >= 4050").block()) {
            assertThat(v5.count().block()).isEqualTo(3050);
        }
        try (org.lance.Dataset ds = org.lance.Dataset.open(uri, alloc)) {
            assertThat(ds.countRows()).isEqualTo(3050);
            assertThat(ds.countRows("id >= 4000")).isEqualTo(50);
        }
    }
}
