package io.javelin.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;

/** Official Lance (lance-core 7.0.0) and Spark-through-Javelin read each other's datasets with the same values. */
class LanceCoreInteropTest {

    @TempDir
    Path dir;

    private final SparkSession spark = SparkSessions.get();

    /** One canonical text per row, built the same way from Spark rows and from lance-core's Arrow vectors. */
    private static final String SPARK_ROW = "concat_ws('|', id, k, name, score, flag, datediff(day, DATE '1970-01-01'), "
            + "unix_micros(ts), s.a, s.b, array_join(arr, ','))";

    @Test
    void lanceCoreReadsWhatSparkWrote() throws Exception {
        String uri = dir.resolve("from-spark.lance").toString();
        String source = "SELECT id, CAST(id % 7 AS INT) AS k, CASE WHEN id % 5 = 0 THEN NULL ELSE concat('n', id) END AS name, "
                + "id / 4.0D AS score, id % 2 = 0 AS flag, date_add(DATE '2023-05-01', CAST(id % 40 AS INT)) AS day, "
                + "timestamp_micros(1700000000000000 + id * 1000001) AS ts, named_struct('a', id * 3, 'b', concat('b', id)) AS s, "
                + "array(CAST(id AS INT), CAST(id + 1 AS INT)) AS arr FROM range(0, 3000, 1, 3)";
        spark.sql(source).write().format("javelin").mode("overwrite").save(uri);
        List<String> want = spark.sql("SELECT " + SPARK_ROW + " FROM (" + source + ") ORDER BY id").collectAsList().stream()
                .map(r -> r.getString(0)).toList();

        List<String> got = new ArrayList<>();
        try (BufferAllocator alloc = new RootAllocator(); org.lance.Dataset ds = org.lance.Dataset.open(uri, alloc)) {
            assertThat(ds.countRows()).isEqualTo(3000);
            assertThat(ds.getSchema().getFields().stream().map(Field::getName).toList())
                    .containsExactly("id", "k", "name", "score", "flag", "day", "ts", "s", "arr");
            assertThat(ds.getSchema().findField("ts").getType()).isEqualTo(
                    new ArrowType.Timestamp(org.apache.arrow.vector.types.TimeUnit.MICROSECOND, "UTC"));
            assertThat(ds.countRows("k = 3 AND flag")).isEqualTo(spark.sql(source).where("k = 3 AND flag").count());
            try (LanceScanner s = ds.newScan(new ScanOptions.Builder().batchSize(700).build()); ArrowReader r = s.scanBatches()) {
                while (r.loadNextBatch()) {
                    VectorSchemaRoot root = r.getVectorSchemaRoot();
                    for (int i = 0; i < root.getRowCount(); i++) {
                        got.add(canonical(root, i));
                    }
                }
            }
        }
        got.sort(java.util.Comparator.comparingLong(t -> Long.parseLong(t.substring(0, t.indexOf('|')))));
        assertThat(got).isEqualTo(want);
    }

    private static String canonical(VectorSchemaRoot root, int i) {
        List<String> parts = new ArrayList<>();
        for (String c : List.of("id", "k", "name", "score", "flag", "day", "ts")) {
            Object v = root.getVector(c).getObject(i);
            if (v == null) {
                continue; // concat_ws skips NULLs
            }
            parts.add(v.toString()); // days since the epoch, microseconds since the epoch: as the Spark side prints them
        }
        StructVector s = (StructVector) root.getVector("s");
        parts.add(s.getChild("a").getObject(i).toString());
        parts.add(s.getChild("b").getObject(i).toString());
        ListVector arr = (ListVector) root.getVector("arr");
        parts.add(((List<?>) arr.getObject(i)).stream().map(Object::toString).collect(Collectors.joining(",")));
        return String.join("|", parts);
    }

    @Test
    void sparkReadsWhatLanceCoreWrote() throws Exception {
        String uri = dir.resolve("from-lance.lance").toString();
        Schema schema = new Schema(List.of(
                Field.nullable("id", new ArrowType.Int(64, true)),
                Field.nullable("name", ArrowType.Utf8.INSTANCE),
                Field.nullable("score", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE))));
        try (BufferAllocator alloc = new RootAllocator()) {
            for (int chunk = 0; chunk < 2; chunk++) {
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, alloc);
                     ArrowStreamWriter w = new ArrowStreamWriter(root, null, out)) {
                    w.start();
                    int n = 1500;
                    root.allocateNew();
                    for (int i = 0; i < n; i++) {
                        long id = chunk * n + i;
                        ((BigIntVector) root.getVector("id")).setSafe(i, id);
                        if (id % 9 == 0) {
                            ((VarCharVector) root.getVector("name")).setNull(i);
                        } else {
                            ((VarCharVector) root.getVector("name")).setSafe(i, ("L" + id).getBytes(StandardCharsets.UTF_8));
                        }
                        ((Float8Vector) root.getVector("score")).setSafe(i, id * 0.5);
                    }
                    root.setRowCount(n);
                    w.writeBatch();
                    w.end();
                }
                try (ArrowReader reader = new ArrowStreamReader(new ByteArrayInputStream(out.toByteArray()), alloc);
                     ArrowArrayStream stream = ArrowArrayStream.allocateNew(alloc)) {
                    Data.exportArrayStream(alloc, reader, stream);
                    org.lance.WriteParams p = new org.lance.WriteParams.Builder()
                            .withMode(chunk == 0 ? org.lance.WriteParams.WriteMode.CREATE : org.lance.WriteParams.WriteMode.APPEND)
                            .withDataStorageVersion("2.1").build();
                    org.lance.Dataset.create(alloc, stream, uri, p).close();
                }
            }
        }
        var df = spark.read().format("javelin").load(uri);
        assertThat(df.count()).isEqualTo(3000);
        List<Row> rows = df.where("id % 100 = 0 OR name IS NULL AND id < 40").orderBy("id").collectAsList();
        List<String> want = new ArrayList<>();
        for (long id = 0; id < 3000; id++) {
            if (id % 100 == 0 || (id % 9 == 0 && id < 40)) {
                want.add("[" + id + "," + (id % 9 == 0 ? "null" : "L" + id) + "," + (id * 0.5) + "]");
            }
        }
        assertThat(rows.stream().map(Row::toString).toList()).isEqualTo(want);
        assertThat(spark.read().format("javelin").option("version", "1").load(uri).count()).isEqualTo(1500);
    }
}
