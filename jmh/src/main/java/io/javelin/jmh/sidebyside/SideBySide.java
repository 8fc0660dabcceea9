package io.javelin.jmh.sidebyside;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * Side-by-side runner (issue #10): Javelin and lance-core 7.0.0 in the same JVM, on the same dataset
 * (written by lance-core, format 2.1, default settings), alternating which engine goes first in each
 * repetition so that both see the same page-cache state. Reports medians and ratios as JSON, Markdown and
 * a PNG bar chart.
 *
 * <pre>
 *   ./bench side-by-side [--rows 10000000] [--reps 3] [--warmup 1] [--takes 10] [--dir /tmp/sbs] [--out docs/bench]
 *   ./bench side-by-side --store s3 [--latency-ms 20] [--rows N] ...   (S3Proxy behind a latency proxy; side-by-side-s3.*)
 * </pre>
 */
public final class SideBySide {

    static final List<String> ALL_COLUMNS = List.of("id", "f", "s", "vec");
    static final String FILTER = "f < 0.01";

    /**
     * Run settings. {@code store} is "local" (datasets in {@code dir}) or "s3" (S3Proxy behind a proxy adding
     * {@code latencyMs} per request; reports named {@code side-by-side-s3.*}).
     */
    public record Options(long rows, int batchRows, int reps, int warmup, int takes, int takeRows, int scanBatch, Path dir,
                          Path out, boolean write, String store, long latencyMs) {
        public Options {
            if (!store.equals("local") && !store.equals("s3")) {
                throw new IllegalArgumentException("--store must be local or s3, got " + store);
            }
            if (latencyMs < 0) {
                throw new IllegalArgumentException("--latency-ms must be >= 0, got " + latencyMs);
            }
        }

        public Options(long rows, int batchRows, int reps, int warmup, int takes, int takeRows, int scanBatch, Path dir, Path out,
                       boolean write) {
            this(rows, batchRows, reps, warmup, takes, takeRows, scanBatch, dir, out, write, "local", 20);
        }

        public static Options defaults() {
            return new Options(10_000_000, 65536, 3, 1, 10, 1000, 8192, null, Path.of("docs/bench"), true);
        }

        Options onStore(String s, long latency) {
            return new Options(rows, batchRows, reps, warmup, takes, takeRows, scanBatch, dir, out, write, s, latency);
        }

        /** File name of the reports without extension. */
        String reportName() {
            return store.equals("local") ? "side-by-side" : "side-by-side-" + store;
        }

        static Options parse(String[] args) {
            Options o = defaults();
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                String v = i + 1 < args.length ? args[i + 1] : null;
                switch (a) {
                    case "--rows" -> o = o.with(Long.parseLong(v), o.reps, o.warmup, o.takes, o.dir, o.out);
                    case "--reps" -> o = o.with(o.rows, Integer.parseInt(v), o.warmup, o.takes, o.dir, o.out);
                    case "--warmup" -> o = o.with(o.rows, o.reps, Integer.parseInt(v), o.takes, o.dir, o.out);
                    case "--takes" -> o = o.with(o.rows, o.reps, o.warmup, Integer.parseInt(v), o.dir, o.out);
                    case "--dir" -> o = o.with(o.rows, o.reps, o.warmup, o.takes, Path.of(v), o.out);
                    case "--out" -> o = o.with(o.rows, o.reps, o.warmup, o.takes, o.dir, Path.of(v));
                    case "--store" -> o = o.onStore(v, o.latencyMs);
                    case "--latency-ms" -> o = o.onStore(o.store, Long.parseLong(v));
                    case "--no-write" -> {
                        o = new Options(o.rows, o.batchRows, o.reps, o.warmup, o.takes, o.takeRows, o.scanBatch, o.dir, o.out, false,
                                o.store, o.latencyMs);
                        i--;
                    }
                    default -> throw new IllegalArgumentException("unknown option " + a
                            + " (use --rows N --reps N --warmup N --takes N --dir DIR --out DIR --no-write --store local|s3"
                            + " --latency-ms N)");
                }
                i++;
            }
            return o;
        }

        public Options with(long r, int rp, int w, int t, Path d, Path ou) {
            return new Options(r, Math.min(batchRows, (int) Math.max(1, r)), rp, w, t, (int) Math.min(takeRows, r), scanBatch, d, ou,
                    write, store, latencyMs);
        }
    }

    /**
     * One measured operation: per-engine wall times (ms), what it produced and, on a counted store, the traffic of
     * one run (measured runs averaged; for takes, one take).
     */
    public record Case(String name, String what, Map<String, List<Double>> millis, Map<String, Engine.Result> produced,
                       Map<String, LatencyProxy.Traffic> traffic) {
        double median(String engine) {
            return percentile(millis.get(engine), 50);
        }
    }

    /** Adds up one engine's traffic over its measured runs; {@link #perRun} averages it. */
    static final class TrafficTally {
        private final BenchStore store;
        private final Map<String, long[]> sums = new LinkedHashMap<>();

        TrafficTally(BenchStore store) {
            this.store = store;
        }

        LatencyProxy.Traffic mark() {
            return store.traffic();
        }

        void add(String engine, LatencyProxy.Traffic before) {
            LatencyProxy.Traffic now = store.traffic();
            if (before == null || now == null) {
                return;
            }
            LatencyProxy.Traffic d = now.minus(before);
            long[] s = sums.computeIfAbsent(engine, k -> new long[4]);
            s[0] += d.requests();
            s[1] += d.bytesUp();
            s[2] += d.bytesDown();
            s[3]++;
        }

        Map<String, LatencyProxy.Traffic> perRun() {
            Map<String, LatencyProxy.Traffic> out = new LinkedHashMap<>();
            sums.forEach((e, s) -> out.put(e, new LatencyProxy.Traffic(s[0] / s[3], s[1] / s[3], s[2] / s[3])));
            return out;
        }
    }

    public static void main(String[] args) throws Exception {
        Options o = Options.parse(args);
        List<Case> cases = run(o);
        System.out.println(Report.markdownTable(cases, o));
        if (Report.hasTraffic(cases)) {
            System.out.println(Report.trafficTable(cases));
        }
        System.out.println("written " + o.out().resolve(o.reportName() + ".{json,md,png}"));
    }

    /** Runs every case and writes the reports into {@code o.out()}; returns the cases. */
    public static List<Case> run(Options o) throws Exception {
        Path dir = o.dir() != null ? o.dir() : Files.createTempDirectory("side-by-side");
        Files.createDirectories(dir);
        List<Case> cases = new ArrayList<>();
        try (BenchStore store = o.store().equals("s3") ? BenchStore.s3(dir, o.latencyMs()) : BenchStore.local(dir);
             BufferAllocator alloc = new RootAllocator();
             BenchData data = new BenchData(alloc, o.rows(), o.batchRows(), 8, 42);
             JavelinEngine javelin = new JavelinEngine(alloc, store.options());
             LanceCoreEngine lance = new LanceCoreEngine(alloc, store.options())) {
            List<Engine> engines = List.of(javelin, lance);
            String readUri = store.uri("lance-written.lance");
            store.delete("lance-written.lance");
            log("writing %,d rows with lance-core into %s (%s)", o.rows(), readUri, store.describe());
            lance.write(readUri, data);
            TrafficTally opens = new TrafficTally(store);
            LatencyProxy.Traffic t0 = opens.mark();
            javelin.open(readUri);
            opens.add(javelin.name(), t0);
            t0 = opens.mark();
            lance.open(readUri);
            opens.add(lance.name(), t0);
            if (store.traffic() != null) {
                log("%-10s %s", "open", opens.perRun());
            }

            cases.add(measure("full_scan", "scan all columns", o, store, engines, e -> e.scan(null, null, o.scanBatch())));
            for (String c : ALL_COLUMNS) {
                cases.add(measure("scan_" + c, "projected scan of " + c, o, store, engines,
                        e -> e.scan(List.of(c), null, o.scanBatch())));
            }
            cases.add(measure("filter", "scan all columns WHERE " + FILTER, o, store, engines,
                    e -> e.scan(null, FILTER, o.scanBatch())));
            cases.add(takes(o, store, engines));
            javelin.close();
            lance.close();
            if (o.write()) {
                cases.add(writes(o, store, engines, data));
            }
            Report.write(cases, o, store.describe());
        } finally {
            if (o.dir() == null) {
                deleteTree(dir);
            }
        }
        return cases;
    }

    interface Op {
        Engine.Result run(Engine e) throws Exception;
    }

    static Case measure(String name, String what, Options o, BenchStore store, List<Engine> engines, Op op) throws Exception {
        TrafficTally traffic = new TrafficTally(store);
        Map<String, List<Double>> ms = new LinkedHashMap<>();
        Map<String, Engine.Result> produced = new LinkedHashMap<>();
        Map<String, List<Double>> cpu = new LinkedHashMap<>();
        engines.forEach(e -> ms.put(e.name(), new ArrayList<>()));
        engines.forEach(e -> cpu.put(e.name(), new ArrayList<>()));
        for (int rep = 0; rep < o.warmup() + o.reps(); rep++) {
            for (int k = 0; k < engines.size(); k++) {
                Engine e = engines.get((k + rep) % engines.size()); // alternate who goes first
                LatencyProxy.Traffic before = traffic.mark();
                long c0 = processCpuNanos();
                long t0 = System.nanoTime();
                Engine.Result r = op.run(e);
                double t = (System.nanoTime() - t0) / 1e6;
                double c = (processCpuNanos() - c0) / 1e6;
                if (rep >= o.warmup()) {
                    ms.get(e.name()).add(t);
                    cpu.get(e.name()).add(c);
                    traffic.add(e.name(), before);
                }
                Engine.Result prev = produced.put(e.name(), r);
                if (prev != null && prev.rows() != r.rows()) {
                    throw new IllegalStateException(name + ": " + e.name() + " returned " + r.rows() + " rows, before " + prev.rows());
                }
            }
        }
        checkSameRows(name, produced);
        log("%-10s %s", name, summary(ms));
        // process CPU (this JVM: Javelin's threads, lance-core's native threads, GC, JIT) is steadier than
        // wall time on a shared machine
        log("%-10s cpu %s", name, summary(cpu));
        if (store.traffic() != null) {
            log("%-10s traffic per run %s", name, traffic.perRun());
        }
        return new Case(name, what, ms, produced, traffic.perRun());
    }

    /** {@code takes} random takes of {@code takeRows} rows per repetition; each take is one sample. */
    static Case takes(Options o, BenchStore store, List<Engine> engines) throws Exception {
        TrafficTally traffic = new TrafficTally(store);
        SplittableRandom rnd = new SplittableRandom(7);
        int perRep = Math.max(1, o.takes());
        List<long[]> indexSets = new ArrayList<>();
        for (int i = 0; i < (o.warmup() + o.reps()) * perRep; i++) {
            long[] idx = new long[o.takeRows()];
            for (int k = 0; k < idx.length; k++) {
                idx[k] = rnd.nextLong(o.rows());
            }
            java.util.Arrays.sort(idx);
            indexSets.add(idx);
        }
        Map<String, List<Double>> ms = new LinkedHashMap<>();
        Map<String, Engine.Result> produced = new LinkedHashMap<>();
        engines.forEach(e -> ms.put(e.name(), new ArrayList<>()));
        for (int rep = 0; rep < o.warmup() + o.reps(); rep++) {
            for (int k = 0; k < engines.size(); k++) {
                Engine e = engines.get((k + rep) % engines.size());
                for (int t = 0; t < perRep; t++) {
                    long[] idx = indexSets.get(rep * perRep + t);
                    LatencyProxy.Traffic before = traffic.mark();
                    long t0 = System.nanoTime();
                    Engine.Result r = e.take(idx);
                    double d = (System.nanoTime() - t0) / 1e6;
                    if (r.rows() != idx.length) {
                        throw new IllegalStateException("take: " + e.name() + " returned " + r.rows() + " of " + idx.length + " rows");
                    }
                    if (rep >= o.warmup()) {
                        ms.get(e.name()).add(d);
                        traffic.add(e.name(), before);
                    }
                    produced.put(e.name(), r);
                }
            }
        }
        log("%-10s %s", "take", summary(ms));
        if (store.traffic() != null) {
            log("%-10s traffic per take %s", "take", traffic.perRun());
        }
        return new Case("take_" + o.takeRows(), "take of " + o.takeRows() + " random rows (sorted), all columns", ms, produced,
                traffic.perRun());
    }

    static Case writes(Options o, BenchStore store, List<Engine> engines, BenchData data) throws Exception {
        TrafficTally traffic = new TrafficTally(store);
        Map<String, List<Double>> ms = new LinkedHashMap<>();
        Map<String, Engine.Result> produced = new LinkedHashMap<>();
        engines.forEach(e -> ms.put(e.name(), new ArrayList<>()));
        long inputBytes = data.arrowBytes();
        for (int rep = 0; rep < o.warmup() + o.reps(); rep++) {
            for (int k = 0; k < engines.size(); k++) {
                Engine e = engines.get((k + rep) % engines.size());
                String name = "write-" + e.name() + "-" + rep + ".lance";
                store.delete(name);
                LatencyProxy.Traffic before = traffic.mark();
                long t0 = System.nanoTime();
                e.write(store.uri(name), data);
                double d = (System.nanoTime() - t0) / 1e6;
                if (rep >= o.warmup()) {
                    ms.get(e.name()).add(d);
                    traffic.add(e.name(), before);
                }
                produced.put(e.name(), new Engine.Result(o.rows(), inputBytes));
                if (rep == 0) {
                    verifyReadable(store, name, o.rows());
                }
                store.delete(name);
            }
        }
        log("%-10s %s", "write", summary(ms));
        if (store.traffic() != null) {
            log("%-10s traffic per run %s", "write", traffic.perRun());
        }
        return new Case("write", "write the whole dataset (format 2.1, default settings)", ms, produced, traffic.perRun());
    }

    /** Both engines' datasets must open in lance-core with the right row count. */
    private static void verifyReadable(BenchStore store, String name, long rows) {
        String uri = store.uri(name);
        try (BufferAllocator a = new RootAllocator();
             org.lance.Dataset ds = org.lance.Dataset.open(a, uri,
                     new org.lance.ReadOptions.Builder().setStorageOptions(store.options()).build())) {
            if (ds.countRows() != rows) {
                throw new IllegalStateException(uri + " has " + ds.countRows() + " rows, expected " + rows);
            }
        }
    }

    private static void checkSameRows(String name, Map<String, Engine.Result> produced) {
        long first = -1;
        for (var e : produced.entrySet()) {
            if (first >= 0 && e.getValue().rows() != first) {
                throw new IllegalStateException(name + ": engines disagree on the row count " + produced);
            }
            first = e.getValue().rows();
        }
    }

    /** CPU time of this process so far (all threads), or 0 where the JVM does not report it. */
    static long processCpuNanos() {
        return java.lang.management.ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os
                ? os.getProcessCpuTime() : 0;
    }

    static String summary(Map<String, List<Double>> ms) {
        StringBuilder sb = new StringBuilder();
        ms.forEach((k, v) -> sb.append(String.format("%s p50 %.1f ms  ", k, percentile(v, 50))));
        return sb.toString();
    }

    static double percentile(List<Double> v, double p) {
        if (v == null || v.isEmpty()) {
            return Double.NaN;
        }
        List<Double> s = new ArrayList<>(v);
        s.sort(Comparator.naturalOrder());
        double rank = p / 100.0 * (s.size() - 1);
        int lo = (int) Math.floor(rank);
        int hi = (int) Math.ceil(rank);
        return s.get(lo) + (s.get(hi) - s.get(lo)) * (rank - lo);
    }

    static void log(String fmt, Object... args) {
        System.err.printf("[side-by-side] " + fmt + "%n", args);
    }

    static void deleteTree(Path p) throws IOException {
        if (!Files.exists(p)) {
            return;
        }
        try (Stream<Path> s = Files.walk(p)) {
            for (Path q : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(q);
            }
        }
    }

    private SideBySide() {
    }
}
