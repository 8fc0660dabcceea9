package io.javelin.jmh.sidebyside;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
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

/**
 * Dataset operations as JMH benchmarks, Javelin vs lance-core 7.0.0 on the side-by-side shape (issue #10):
 * full scan, projected scans, the filtered scan, takes of 1/10/100/1000 random rows (all columns or one), and
 * the latency of one append commit. Sample-time mode, so JMH reports p50/p90/p99. The dataset is written
 * once by lance-core (format 2.1, defaults) under {@code -Djavelin.bench.dir} (default
 * {@code /tmp/javelin-dataset-bench/<rows>}) and reused; {@code -p rows=10000000} for the size (the
 * default keeps CI's one-shot smoke run short). The side-by-side runner ({@link SideBySide}) measures the
 * same cases with alternating engines; this class is for JMH's statistics and profilers.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--add-opens=java.base/java.nio=ALL-UNNAMED", "-Xmx6g"})
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
public class DatasetBenchmark {

    @Param({"100000"})
    public long rows;

    @Param({"javelin", "lance-core"})
    public String engine;

    private BufferAllocator alloc;
    private Engine e;

    static Path base(long rows) {
        return Path.of(System.getProperty("javelin.bench.dir", "/tmp/javelin-dataset-bench"), Long.toString(rows));
    }

    static synchronized String prepare(long rows, BufferAllocator alloc) throws Exception {
        Path dir = base(rows);
        Path ds = dir.resolve("data.lance");
        if (!Files.exists(dir.resolve("READY"))) {
            SideBySide.deleteTree(dir);
            Files.createDirectories(dir);
            try (BenchData data = new BenchData(alloc, rows, 65_536, 8, 42); LanceCoreEngine lc = new LanceCoreEngine(alloc)) {
                lc.write(ds.toString(), data);
            }
            Files.writeString(dir.resolve("READY"), "ok");
        }
        return ds.toString();
    }

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        alloc = new RootAllocator();
        String uri = prepare(rows, alloc);
        e = engine.equals("javelin") ? new JavelinEngine(alloc) : new LanceCoreEngine(alloc);
        e.open(uri);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        e.close();
        alloc.close();
    }

    /** The column of a projected scan or single-column take. */
    @State(Scope.Benchmark)
    public static class Column {
        @Param({"id", "f", "s", "vec"})
        public String column;
    }

    /** Rows taken and whether all columns or only {@code vec}. */
    @State(Scope.Thread)
    public static class TakeSpec {
        @Param({"1", "10", "100", "1000"})
        public int n;

        @Param({"all", "vec"})
        public String columns;

        private SplittableRandom rnd;

        @Setup(Level.Trial)
        public void setUp() {
            rnd = new SplittableRandom(7);
        }

        long[] indices(long rows) {
            long[] idx = new long[n];
            for (int i = 0; i < n; i++) {
                idx[i] = rnd.nextLong(rows);
            }
            Arrays.sort(idx);
            return idx;
        }

        List<String> columnList() {
            return columns.equals("all") ? SideBySide.ALL_COLUMNS : List.of(columns);
        }
    }

    /** A dataset of its own for appends (each benchmark invocation adds a commit of 1 000 rows). */
    @State(Scope.Thread)
    public static class AppendTarget {
        String uri;
        BenchData small;
        private BufferAllocator alloc;

        @Setup(Level.Trial)
        public void setUp(DatasetBenchmark b) throws Exception {
            // the engines hand batches across allocators of one root (Arrow's C stream export needs that)
            alloc = b.alloc.newChildAllocator("append", 0, Long.MAX_VALUE);
            small = new BenchData(alloc, 1000, 1000, 1, 3);
            uri = base(b.rows).resolve("append-" + b.engine + "-" + UUID.randomUUID() + ".lance").toString();
            b.e.write(uri, small);
        }

        @TearDown(Level.Trial)
        public void tearDown() throws Exception {
            small.close();
            alloc.close();
            SideBySide.deleteTree(Path.of(uri));
        }
    }

    @Benchmark
    public long fullScan() throws Exception {
        return e.scan(null, null, 8192).rows();
    }

    @Benchmark
    public long projectedScan(Column c) throws Exception {
        return e.scan(List.of(c.column), null, 8192).rows();
    }

    @Benchmark
    public long filteredScan() throws Exception {
        return e.scan(null, "f < 0.01", 8192).rows();
    }

    @Benchmark
    public long take(TakeSpec t) throws Exception {
        return e.take(t.indices(rows), t.columnList()).rows();
    }

    @Benchmark
    public long appendCommit(AppendTarget a) throws Exception {
        e.append(a.uri, a.small);
        return a.small.rows;
    }
}
