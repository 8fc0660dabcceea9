package io.javelin.jmh;

import io.javelin.engine.Dataset;
import io.javelin.engine.WriteMode;
import io.javelin.engine.WriteParams;
import io.javelin.engine.index.IndexKind;
import io.javelin.engine.index.IndexParams;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.lance.index.IndexType;
import org.lance.index.scalar.ScalarIndexParams;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import reactor.core.publisher.Flux;

/**
 * Filtered-scan latency with and without scalar indexes, Javelin vs lance-core 7.0.0 (issue #11): rows
 * {@code id int64} (a permutation of 0..n-1), {@code cat utf8} (1 000 values), {@code val float64}, in
 * fragments of 1 M rows. Three copies are written once under {@code -Djavelin.bench.dir} (default
 * {@code /tmp/javelin-scalar-index-bench/<rows>}) and reused: no index, BTree(id) + Bitmap(cat) built by
 * Javelin, and the same built by lance-core. Each engine queries its own copy; the result is the
 * matching {@code id}s. {@code -p rows=10000000} for the 10 M rows (the default 1 M keeps the
 * one-off build short on a loaded machine).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--add-opens=java.base/java.nio=ALL-UNNAMED", "-Xmx6g"})
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
public class ScalarIndexBenchmark {

    @Param({"1000000"})
    public int rows;

    @Param({"javelin", "lance-core"})
    public String engine;

    @Param({"true", "false"})
    public boolean indexed;

    @Param({"id = 123457", "id >= 500000 AND id < 500100", "cat = 'k17'"})
    public String filter;

    static final Schema SCHEMA = new Schema(List.of(
            new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
            new Field("cat", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
            new Field("val", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), null)));

    private BufferAllocator alloc;
    private Dataset javelin;
    private org.lance.Dataset lance;

    static Path base(int rows) {
        return Path.of(System.getProperty("javelin.bench.dir", "/tmp/javelin-scalar-index-bench"), Integer.toString(rows));
    }

    /** Row i: id = i·2654435761 mod n (a permutation when gcd = 1), cat = k(i·31 mod 1000), val = i / 7. */
    static Flux<VectorSchemaRoot> data(BufferAllocator alloc, int n) {
        int batch = 65_536;
        return Flux.range(0, (n + batch - 1) / batch).map(b -> {
            int m = Math.min(batch, n - b * batch);
            VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, alloc);
            root.allocateNew();
            BigIntVector id = (BigIntVector) root.getVector("id");
            VarCharVector cat = (VarCharVector) root.getVector("cat");
            Float8Vector val = (Float8Vector) root.getVector("val");
            for (int i = 0; i < m; i++) {
                long r = (long) b * batch + i;
                id.setSafe(i, Math.floorMod(r * 2654435761L, (long) n));
                cat.setSafe(i, ("k" + (r * 31 % 1000)).getBytes(StandardCharsets.UTF_8));
                val.setSafe(i, r / 7.0);
            }
            root.setRowCount(m);
            return root;
        });
    }

    static void prepare(int rows) throws Exception {
        Path dir = base(rows);
        if (Files.exists(dir.resolve("READY"))) {
            return;
        }
        Files.createDirectories(dir);
        try (BufferAllocator a = new RootAllocator()) {
            for (String copy : List.of("plain", "javelin", "lance")) {
                String uri = dir.resolve(copy + ".lance").toString();
                Dataset.write(uri, data(a, rows), SCHEMA, WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(1_000_000)).block().close();
            }
            long t0 = System.nanoTime();
            try (Dataset d = Dataset.open(dir.resolve("javelin.lance").toString()).block();
                 Dataset d2 = d.createIndex(List.of("id"), IndexKind.BTREE, IndexParams.defaults()).block();
                 Dataset d3 = d2.createIndex(List.of("cat"), IndexKind.BITMAP, IndexParams.defaults()).block()) {
                System.out.printf("[scalar-index-bench] javelin BTree+Bitmap build over %d rows: %.1f s%n", rows, (System.nanoTime() - t0) / 1e9);
            }
            t0 = System.nanoTime();
            try (org.lance.Dataset l = org.lance.Dataset.open(dir.resolve("lance.lance").toString(), a)) {
                l.createIndex(List.of("id"), IndexType.BTREE, Optional.of("id_idx"), org.lance.index.IndexParams.builder()
                        .setScalarIndexParams(ScalarIndexParams.create("btree")).build(), true);
                l.createIndex(List.of("cat"), IndexType.BITMAP, Optional.of("cat_idx"), org.lance.index.IndexParams.builder()
                        .setScalarIndexParams(ScalarIndexParams.create("bitmap")).build(), true);
            }
            System.out.printf("[scalar-index-bench] lance-core BTree+Bitmap build over %d rows: %.1f s%n", rows, (System.nanoTime() - t0) / 1e9);
        }
        Files.writeString(dir.resolve("READY"), "ok");
    }

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        prepare(rows);
        alloc = new RootAllocator();
        String copy = !indexed ? "plain" : engine.equals("javelin") ? "javelin" : "lance";
        String uri = base(rows).resolve(copy + ".lance").toString();
        if (engine.equals("javelin")) {
            javelin = Dataset.open(uri).block();
        } else {
            lance = org.lance.Dataset.open(uri, alloc);
        }
        long n = query();
        if (n == 0) {
            throw new IllegalStateException("filter matches nothing: " + filter);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (javelin != null) {
            javelin.close();
        }
        if (lance != null) {
            lance.close();
        }
        alloc.close();
    }

    @Benchmark
    public long query() throws Exception {
        long n = 0;
        if (javelin != null) {
            for (VectorSchemaRoot b : javelin.scanner().columns("id").filter(filter).scan(alloc).collectList().block()) {
                n += b.getRowCount();
                b.close();
            }
            return n;
        }
        try (LanceScanner s = lance.newScan(new ScanOptions.Builder().columns(List.of("id")).filter(filter).build());
             ArrowReader r = s.scanBatches()) {
            while (r.loadNextBatch()) {
                n += r.getVectorSchemaRoot().getRowCount();
            }
        }
        return n;
    }

    /** {@code java -cp ... io.javelin.jmh.ScalarIndexBenchmark [rows]}: builds the copies only (timed). */
    public static void main(String[] args) throws Exception {
        prepare(args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000);
    }
}
