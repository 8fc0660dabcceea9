package io.javelin.jmh;

import io.javelin.encoding.pb.file.Field;
import io.javelin.objectstore.inmemory.InMemoryObjectStore;
import io.javelin.tx.FragmentInfo;
import io.javelin.tx.Snapshot;
import io.javelin.tx.Table;
import io.javelin.tx.commit.CommitEngine;
import io.javelin.tx.commit.CommitOptions;
import io.javelin.tx.pb.DataFile;
import io.javelin.tx.pb.DataFragment;
import io.javelin.tx.pb.DeletionFile;
import io.javelin.tx.store.ManifestStore;
import io.javelin.tx.store.ObjectStoreManifestStore;
import io.javelin.tx.store.StoreEntry;
import io.javelin.tx.transaction.Transactions;
import io.javelin.tx.tree.TreeTables;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
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
import org.openjdk.jmh.annotations.Warmup;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Flat manifest vs fragment metadata tree (spec 000) at 10^3..10^5 fragments (narrow: one data file
 * of two fields with a 56-character name), on an in-memory object store, optionally with an
 * injected per-request latency: open (lazy), full listing, point resolve, append one fragment and
 * delete one row (a deletion file on one fragment) through the real commit engine.
 *
 * <p>Time: {@code ./bench FragmentTreeBenchmark -p fragments=1000,10000,100000}. Bytes and request
 * counts (deterministic) with times, p50/p99 and sampled peak heap: {@code java -cp ...
 * io.javelin.jmh.FragmentTreeBenchmark [fragments...] [--wide N,N] [--latency-ms N] [--chart PNG]}
 * prints the Markdown tables of docs/bench/history.md (also replace data in 10 fragments, backfill
 * in commits of 10, and the wide shape of 100 columns in 6 files); {@code --backfill
 * N[:commits[:flat|tree|both[:wide]]],...} runs a whole-column backfill and reports amortized bytes
 * per commit; {@code --store local} puts every table on a local-FS store in a temporary directory
 * ({@code -Djavelin.bench.dir}); {@code -Djavelin.bench.layouts=tree}, {@code
 * -Djavelin.bench.skipOps=Merge,listing} and {@code -Djavelin.bench.noWarmup=true} trim a large run;
 * {@code --chart-from REPORT,... --chart PNG} redraws the chart from saved reports (Markdown tables
 * of this generator, docs/bench/history.md included).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--add-modules=jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED",
    "--sun-misc-unsafe-memory-access=allow", "--add-opens=java.base/java.nio=ALL-UNNAMED", "-Xms4g", "-Xmx4g"})
public class FragmentTreeBenchmark {

    static final List<Field> SCHEMA = List.of(
            Field.newBuilder().setName("id").setId(0).setParentId(-1).setLogicalType("int64").build(),
            Field.newBuilder().setName("v").setId(1).setParentId(-1).setLogicalType("float").build());

    static final int WIDE_COLUMNS = 100;
    static final int WIDE_FILES = 6;
    static final List<Field> WIDE_SCHEMA = wideSchema();

    static List<Field> wideSchema() {
        List<Field> out = new ArrayList<>();
        for (int i = 0; i < WIDE_COLUMNS; i++) {
            out.add(Field.newBuilder().setName("c" + i).setId(i).setParentId(-1).setLogicalType("int64").build());
        }
        return List.copyOf(out);
    }

    @Param({"1000"})
    public int fragments;

    @Param({"flat", "tree"})
    public String layout;

    @Param({"0"})
    public int latencyMs;

    Fixture fx;

    @Setup(Level.Trial)
    public void setup() {
        fx = new Fixture(fragments, layout.equals("tree"), latencyMs);
    }

    @Benchmark
    public long open() {
        return fx.open().countRows();
    }

    @Benchmark
    public int listAll() {
        return fx.open().loadFragments().block().size();
    }

    @Benchmark
    public long pointResolve() {
        return fx.resolve(ThreadLocalRandom.current().nextLong(fragments)).physicalRows();
    }

    @Benchmark
    public long appendOne() {
        return fx.appendOne();
    }

    @Benchmark
    public long deleteOneRow() {
        return fx.deleteOneRow(ThreadLocalRandom.current().nextLong(fragments));
    }

    @Benchmark
    public long replaceTenFragments() {
        return fx.replaceTenByUpdate();
    }

    // ------------------------------------------------------------------ fixture

    /** A ManifestStore over an in-memory object store counting requests and bytes, with optional latency. */
    static final class CountingStore implements ManifestStore {
        final io.javelin.objectstore.ObjectStore objects;
        final ObjectStoreManifestStore inner;
        /** The local-FS store's directory (deleted by {@link #close()}), or null in memory. */
        final java.nio.file.Path dir;
        final Duration latency;
        final AtomicLong gets = new AtomicLong();
        final AtomicLong getBytes = new AtomicLong();
        final AtomicLong puts = new AtomicLong();
        final AtomicLong putBytes = new AtomicLong();
        final AtomicLong lists = new AtomicLong();
        /** PUT bytes by object kind (txn, manifest, root, node, leaf, other): where a commit's bytes go. */
        final Map<String, AtomicLong> putBytesByKind = new java.util.concurrent.ConcurrentSkipListMap<>();

        CountingStore(int latencyMs) {
            this(latencyMs, false);
        }

        /** In memory, or (local) files under a fresh temporary directory ({@code -Djavelin.bench.dir} to place it). */
        CountingStore(int latencyMs, boolean local) {
            this.latency = Duration.ofMillis(latencyMs);
            try {
                dir = local ? java.nio.file.Files.createTempDirectory(java.nio.file.Path.of(
                        System.getProperty("javelin.bench.dir", System.getProperty("java.io.tmpdir"))), "fragment-tree-") : null;
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            objects = local ? new io.javelin.objectstore.local.LocalObjectStore(dir, 4) : InMemoryObjectStore.createIsolated();
            inner = new ObjectStoreManifestStore(objects, "");
        }

        /** Releases the store; a local store's files are deleted. */
        void close() {
            try {
                objects.close();
                if (dir != null) {
                    try (var walk = java.nio.file.Files.walk(dir)) {
                        walk.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
                    }
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }

        <T> Mono<T> delayed(Mono<T> m) {
            return latency.isZero() ? m : Mono.delay(latency, Schedulers.parallel()).then(m);
        }

        long[] counts() {
            return new long[] {gets.get(), getBytes.get(), puts.get(), putBytes.get(), lists.get()};
        }

        @Override
        public Mono<byte[]> read(String path) {
            return delayed(inner.read(path).doOnNext(b -> {
                gets.incrementAndGet();
                getBytes.addAndGet(b.length);
            }));
        }

        @Override
        public Mono<byte[]> readRange(String path, long offset, int length) {
            return delayed(inner.readRange(path, offset, length).doOnNext(b -> {
                gets.incrementAndGet();
                getBytes.addAndGet(b.length);
            }));
        }

        @Override
        public Mono<Void> put(String path, byte[] bytes) {
            return delayed(inner.put(path, bytes).doOnSuccess(v -> counted(path, bytes.length)));
        }

        @Override
        public Mono<Void> putIfAbsent(String path, byte[] bytes) {
            return delayed(inner.putIfAbsent(path, bytes).doOnSuccess(v -> counted(path, bytes.length)));
        }

        private void counted(String path, int length) {
            puts.incrementAndGet();
            putBytes.addAndGet(length);
            putBytesByKind.computeIfAbsent(kind(path), k -> new AtomicLong()).addAndGet(length);
        }

        static String kind(String path) {
            if (path.contains("_transactions/")) {
                return "txn";
            }
            if (path.contains("_versions/")) {
                return "manifest";
            }
            for (String k : new String[] {"root", "node", "leaf"}) {
                if (path.contains("_bt/" + k + "/")) {
                    return k;
                }
            }
            return "other";
        }

        Map<String, Long> putBytesByKind() {
            Map<String, Long> out = new java.util.TreeMap<>();
            putBytesByKind.forEach((k, v) -> out.put(k, v.get()));
            return out;
        }

        @Override
        public Flux<StoreEntry> list(String prefix) {
            return delayed(Mono.fromRunnable(lists::incrementAndGet)).thenMany(inner.list(prefix));
        }

        @Override
        public Mono<Void> delete(String path) {
            return inner.delete(path);
        }

        @Override
        public boolean listsInLexicalOrder() {
            return inner.listsInLexicalOrder();
        }
    }

    /** One table of {@code n} fragments, generated with a single create commit (no n commits). */
    static final class Fixture {
        final CountingStore store;
        final Table table;
        final CommitEngine engine;
        long version;

        final boolean wide;
        final List<Field> schema;
        /** Seeded: two fixtures given the same operations touch the same fragments (differential test). */
        final java.util.Random picks = new java.util.Random(42);
        long initial;

        Fixture(int n, boolean tree, int latencyMs) {
            this(n, tree, latencyMs, false);
        }

        Fixture(int n, boolean tree, int latencyMs, boolean wide) {
            this(n, tree, latencyMs, wide, false);
        }

        Fixture(int n, boolean tree, int latencyMs, boolean wide, boolean local) {
            this.wide = wide;
            this.initial = n;
            this.schema = wide ? WIDE_SCHEMA : SCHEMA;
            store = new CountingStore(latencyMs, local);
            table = new Table(store);
            engine = new CommitEngine(store, CommitOptions.defaults());
            List<DataFragment> frags = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                frags.add(fragment(i, wide));
            }
            Map<String, String> config = tree ? treeConfig() : Map.of();
            version = engine.commit(Transactions.overwrite(0, frags, schema, config)).block().version();
        }

        /**
         * The tree layout plus writer-policy overrides from {@code -Djavelin.bench.treeConfig=k=v,k=v}
         * (e.g. {@code lance.fragment_metadata.publication_suffix_budget=8192}) for policy experiments.
         */
        static Map<String, String> treeConfig() {
            Map<String, String> config = new java.util.LinkedHashMap<>();
            config.put(TreeTables.LAYOUT_KEY, TreeTables.LAYOUT_TREE);
            String extra = System.getProperty("javelin.bench.treeConfig", "");
            for (String kv : extra.split(",")) {
                if (!kv.isBlank()) {
                    String[] p = kv.split("=", 2);
                    config.put(p[0].trim(), p[1].trim());
                }
            }
            return config;
        }

        static DataFragment fragment(long i) {
            return fragment(i, false);
        }

        /** Narrow: one file of 2 fields; wide: 6 files covering 100 fields (17+17+17+17+16+16). */
        static DataFragment fragment(long i, boolean wide) {
            if (!wide) {
                return narrow(i);
            }
            DataFragment.Builder b = DataFragment.newBuilder().setPhysicalRows(1_000_000);
            int field = 0;
            for (int k = 0; k < WIDE_FILES; k++) {
                int width = WIDE_COLUMNS / WIDE_FILES + (k < WIDE_COLUMNS % WIDE_FILES ? 1 : 0);
                DataFile.Builder f = DataFile.newBuilder().setPath(String.format(Locale.ROOT, "%024d%026x-%d.lance",
                        i * 7919 % 1_000_003, i * 0x9E3779B97F4AL, k)).setFileMajorVersion(2).setFileMinorVersion(1)
                        .setFileSizeBytes(40_000_000L + i);
                for (int c = 0; c < width; c++, field++) {
                    f.addFields(field).addColumnIndices(c);
                }
                b.addFiles(f);
            }
            return b.build();
        }

        static DataFragment narrow(long i) {
            String name = String.format(Locale.ROOT, "%024d%026x.lance", i * 7919 % 1_000_003, i * 0x9E3779B97F4AL);
            return DataFragment.newBuilder().setPhysicalRows(1_000_000).addFiles(DataFile.newBuilder().setPath(name)
                    .addFields(0).addFields(1).addColumnIndices(0).addColumnIndices(1).setFileMajorVersion(2)
                    .setFileMinorVersion(1).setFileSizeBytes(40_000_000L + i)).build();
        }

        /** Opens the named version: lazy for a tree (manifest + at most the external root). */
        Snapshot open() {
            return table.checkout(version).block();
        }

        FragmentInfo resolve(long id) {
            return open().catalog().resolve(List.of(id)).block().get(id);
        }

        long appendOne() {
            version = engine.commit(Transactions.append(version, List.of(fragment(version + 10_000_000L, wide)))).block().version();
            return version;
        }

        long deleteOneRow(long id) {
            FragmentInfo f = resolve(id);
            DataFragment updated = f.fragment().toBuilder().setDeletionFile(DeletionFile.newBuilder()
                    .setFileType(DeletionFile.DeletionFileType.ARROW_ARRAY).setReadVersion(version)
                    .setId(ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE))
                    .setNumDeletedRows(f.deletedRows() + 1)).build();
            version = engine.commit(Transactions.delete(version, List.of(updated), List.of(), "x")).block().version();
            return version;
        }

        /** Fresh ids {@code count} apart-from-each-other picks, spread over the table (several leaves). */
        List<Long> pick(int count) {
            List<Long> ids = new ArrayList<>();
            long n = initial;
            long start = (long) (picks.nextDouble() * n);
            for (int i = 0; i < count; i++) {
                ids.add((start + i * (n / count)) % n);
            }
            return ids;
        }

        /** DataReplacement of the first data file in 10 fragments (same fields, new path). */
        long replaceTenByDataReplacement() {
            Map<Long, DataFile> byFragment = new java.util.LinkedHashMap<>();
            for (long id : pick(10)) {
                DataFile first = fragment(id, wide).getFiles(0);
                byFragment.put(id, first.toBuilder().setPath("r" + version + "-" + id + ".lance").build());
            }
            version = engine.commit(Transactions.dataReplacement(version, byFragment)).block().version();
            return version;
        }

        /** Update (rewrite-columns style): 10 resolved fragments with their first data file replaced. */
        long replaceTenByUpdate() {
            Map<Long, FragmentInfo> resolved = open().catalog().resolve(pick(10)).block();
            List<DataFragment> updated = new ArrayList<>();
            for (FragmentInfo f : resolved.values()) {
                DataFragment d = f.fragment();
                updated.add(d.toBuilder().setFiles(0, d.getFiles(0).toBuilder()
                        .setPath("u" + version + "-" + d.getId() + ".lance")).build());
            }
            List<Integer> fields = updated.get(0).getFiles(0).getFieldsList();
            version = engine.commit(Transactions.update(version, List.of(), updated, List.of(), fields)).block().version();
            return version;
        }

        int backfillField = -1;
        long backfillNext;

        /** Adds an all-null column (Project: schema only), to be filled 10 fragments per commit. */
        void startBackfill() {
            backfillField = schema.size() + 1;
            List<Field> s = new ArrayList<>(schema);
            s.add(Field.newBuilder().setName("backfill").setId(backfillField).setParentId(-1).setLogicalType("int64").build());
            version = engine.commit(Transactions.project(version, s)).block().version();
        }

        DataFile backfillFile(long id, int field) {
            return DataFile.newBuilder().setPath("b" + version + "-" + id + ".lance").addFields(field).addColumnIndices(0)
                    .setFileMajorVersion(2).setFileMinorVersion(1).setFileSizeBytes(8_000_000L).build();
        }

        /** Backfill step: a DataReplacement giving the next 10 fragments a data file for the new column. */
        long backfillByDataReplacement() {
            Map<Long, DataFile> byFragment = new java.util.LinkedHashMap<>();
            for (int i = 0; i < 10; i++) {
                long id = backfillNext++ % initial;
                byFragment.put(id, backfillFile(id, backfillField));
            }
            version = engine.commit(Transactions.dataReplacement(version, byFragment)).block().version();
            return version;
        }

        int mergeField = -1;
        long mergeNext;

        /** Backfill step as a Merge: the complete fragment list with a new data file on the next 10. */
        long backfillByMerge() {
            if (mergeField < 0) {
                mergeField = schema.size() + 2;
            }
            Snapshot snap = open();
            List<Field> s = new ArrayList<>();
            snap.manifestFile().manifest().getFieldsList().forEach(s::add);
            if (s.stream().noneMatch(f -> f.getId() == mergeField)) {
                s.add(Field.newBuilder().setName("merged").setId(mergeField).setParentId(-1).setLogicalType("int64").build());
            }
            java.util.Set<Long> ids = new java.util.HashSet<>();
            for (int i = 0; i < 10; i++) {
                ids.add(mergeNext++ % initial);
            }
            List<DataFragment> all = new ArrayList<>();
            for (FragmentInfo f : snap.loadFragments().block()) {
                DataFragment d = f.fragment();
                if (ids.contains(d.getId())) {
                    DataFragment.Builder b = d.toBuilder().clearFiles();
                    d.getFilesList().stream().filter(df -> !df.getFieldsList().contains(mergeField)).forEach(b::addFiles);
                    d = b.addFiles(backfillFile(d.getId(), mergeField)).build();
                }
                all.add(d);
            }
            version = engine.commit(Transactions.merge(version, all, s, Map.of())).block().version();
            return version;
        }
    }

    // ------------------------------------------------------------------ I/O report

    /**
     * Per-operation averages of the store counters, per-run times (p50/p99, nearest rank: with 10-20
     * runs p99 is the slowest run) and the peak heap: used heap (MemoryMXBean, includes garbage not yet
     * collected) sampled every millisecond during the runs, minus the used heap after a System.gc()
     * taken just before them.
     */
    record Measured(long[] io, double mean, double p50, double p99, long peakHeapDelta) {
    }

    static Measured measure(CountingStore store, int reps, Supplier<Object> op) {
        if (!Boolean.getBoolean("javelin.bench.noWarmup")) {
            op.get(); // warm
        }
        java.lang.management.MemoryMXBean mem = java.lang.management.ManagementFactory.getMemoryMXBean();
        System.gc();
        long base = mem.getHeapMemoryUsage().getUsed();
        AtomicLong peak = new AtomicLong(base);
        java.util.concurrent.atomic.AtomicBoolean running = new java.util.concurrent.atomic.AtomicBoolean(true);
        Thread sampler = Thread.ofPlatform().daemon().start(() -> {
            while (running.get()) {
                peak.accumulateAndGet(mem.getHeapMemoryUsage().getUsed(), Math::max);
                java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
            }
        });
        long[] before = store.counts();
        double[] samples = new double[reps];
        for (int i = 0; i < reps; i++) {
            long start = System.nanoTime();
            op.get();
            samples[i] = (System.nanoTime() - start) / 1e6;
        }
        running.set(false);
        try {
            sampler.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        peak.accumulateAndGet(mem.getHeapMemoryUsage().getUsed(), Math::max);
        long[] after = store.counts();
        long[] per = new long[before.length];
        for (int i = 0; i < per.length; i++) {
            per[i] = (after[i] - before[i]) / reps;
        }
        double mean = java.util.Arrays.stream(samples).average().orElse(0);
        java.util.Arrays.sort(samples);
        return new Measured(per, mean, rank(samples, 0.50), rank(samples, 0.99), peak.get() - base);
    }

    static double rank(double[] sorted, double q) {
        return sorted[Math.max(0, (int) Math.ceil(q * sorted.length) - 1)];
    }

    /**
     * Prints one Markdown row per (shape, fragments, layout, operation) and writes the chart.
     * Arguments: narrow fragment counts, {@code --wide N,N}, {@code --latency-ms N},
     * {@code --chart docs/bench/fragment-tree.png}.
     */
    /** {@code --store local}: every fixture on a local-FS store in a temporary directory. */
    static boolean localStore;

    public static void main(String[] args) throws Exception {
        List<Integer> sizes = new ArrayList<>();
        List<Integer> wideSizes = new ArrayList<>();
        int latency = 0;
        String chart = null;
        List<String> backfill = new ArrayList<>();
        String chartFrom = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--store" -> localStore = switch (args[++i]) {
                    case "local" -> true;
                    case "memory" -> false;
                    default -> throw new IllegalArgumentException("--store local|memory, not " + args[i]);
                };
                case "--latency-ms" -> latency = Integer.parseInt(args[++i]);
                case "--wide" -> {
                    for (String w : args[++i].split(",")) {
                        wideSizes.add(Integer.parseInt(w));
                    }
                }
                case "--chart" -> chart = args[++i];
                case "--chart-from" -> chartFrom = args[++i];
                case "--backfill" -> {
                    for (String w : args[++i].split(",")) {
                        backfill.add(w);
                    }
                }
                default -> sizes.add(Integer.parseInt(args[i]));
            }
        }
        if (chartFrom != null) {
            // redraw from saved reports of this generator (e.g. separate runs for 10^3-10^5 and 10^6)
            FragmentTreeChart.Data saved = new FragmentTreeChart.Data();
            for (String file : chartFrom.split(",")) {
                for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of(file))) {
                    String[] c = line.split("\\|");
                    if (c.length >= 10 && (c[1].trim().equals("narrow") || c[1].trim().equals("wide"))
                            && FragmentTreeChart.PLOTTED.contains(c[4].trim()) && !c[8].isBlank()) {
                        saved.add(c[1].trim() + " " + c[4].trim(), c[3].trim().equals("tree"),
                                Integer.parseInt(c[2].trim()), Long.parseLong(c[8].trim()));
                    }
                }
            }
            FragmentTreeChart.write(saved, java.nio.file.Path.of(chart));
            return;
        }
        if (!backfill.isEmpty()) {
            System.out.println("| fragments | layout | commits | column filled | GETs/commit | GET bytes/commit"
                    + " | PUT bytes total | PUT bytes/commit (amortized) | max PUT bytes/commit | p50 ms | p99 ms |");
            System.out.println("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
            for (String b : backfill) {
                String[] nk = b.split(":");
                int n = Integer.parseInt(nk[0]);
                int commits = nk.length > 1 ? Integer.parseInt(nk[1]) : n / 10;
                boolean wideShape = nk.length > 3 && nk[3].equals("wide"); // N:commits:layout:wide
                for (boolean tree : new boolean[] {false, true}) {
                    if (nk.length < 3 || nk[2].equals("both") || nk[2].equals(tree ? "tree" : "flat")) {
                        backfillRun(n, tree, commits, wideShape);
                    }
                }
            }
            if (sizes.isEmpty() && wideSizes.isEmpty()) {
                return;
            }
        }
        if (sizes.isEmpty() && wideSizes.isEmpty()) {
            sizes = List.of(1_000, 10_000);
            wideSizes = List.of(1_000, 10_000);
        }
        FragmentTreeChart.Data data = new FragmentTreeChart.Data();
        System.out.println("| shape | fragments | layout | operation | GETs | GET bytes | PUTs | PUT bytes | LISTs"
                + " | mean ms | p50 ms | p99 ms | peak heap MiB |");
        System.out.println("|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        for (boolean wide : new boolean[] {false, true}) {
            for (int n : wide ? wideSizes : sizes) {
                for (boolean tree : new boolean[] {false, true}) {
                    // -Djavelin.bench.layouts=tree (or flat) runs one layout (flat at 10^6 needs ~12 GiB)
                    if (System.getProperty("javelin.bench.layouts", "flat,tree").contains(tree ? "tree" : "flat")) {
                        report(n, tree, wide, latency, data);
                    }
                }
            }
        }
        if (chart != null) {
            FragmentTreeChart.write(data, java.nio.file.Path.of(chart));
            System.out.println("chart: " + chart);
        }
    }

    /**
     * Backfills one column over the first {@code commits * 10} fragments, one DataReplacement of 10
     * fragments per commit (after a Project adding the all-null column): totals and per-commit
     * amortized bytes over the whole run, so buffer drains and leaf rewrites are included.
     */
    private static void backfillRun(int n, boolean tree, int commits, boolean wide) {
        Fixture fx = new Fixture(n, tree, 0, wide, localStore);
        fx.startBackfill();
        long[] before = fx.store.counts();
        Map<String, Long> kindsBefore = fx.store.putBytesByKind();
        long maxPut = 0;
        double[] ms = new double[commits];
        for (int i = 0; i < commits; i++) {
            long put0 = fx.store.putBytes.get();
            long t = System.nanoTime();
            fx.backfillByDataReplacement();
            ms[i] = (System.nanoTime() - t) / 1e6;
            maxPut = Math.max(maxPut, fx.store.putBytes.get() - put0);
        }
        long[] after = fx.store.counts();
        java.util.Arrays.sort(ms);
        long putTotal = after[3] - before[3];
        System.out.printf(Locale.ROOT, "| %d | %s | %d | %.0f%% | %.2f | %d | %d | %d | %d | %.2f | %.2f |%n", n,
                (wide ? "wide " : "") + (tree ? "tree" : "flat"), commits, 100.0 * Math.min(n, commits * 10L) / n,
                (after[0] - before[0]) / (double) commits, (after[1] - before[1]) / commits, putTotal,
                putTotal / commits, maxPut, rank(ms, 0.5), rank(ms, 0.99));
        StringBuilder kinds = new StringBuilder();
        fx.store.putBytesByKind().forEach((k, v) -> kinds.append(' ').append(k).append('=')
                .append((v - kindsBefore.getOrDefault(k, 0L)) / commits));
        System.err.println("  PUT bytes/commit by kind (" + n + " " + (tree ? "tree" : "flat") + "):" + kinds);
        fx.store.close();
    }

    private static void report(int n, boolean tree, boolean wide, int latency, FragmentTreeChart.Data data) {
        String shape = wide ? "wide" : "narrow";
        String l = tree ? "tree" : "flat";
        long t0 = System.nanoTime();
        Fixture fx = new Fixture(n, tree, latency, wide, localStore);
        double setupMs = (System.nanoTime() - t0) / 1e6;
        int reps = n >= 1_000_000 ? 1 : n >= 100_000 ? 3 : n > 1_000 ? 10 : 20;
        Map<String, Supplier<Object>> ops = new java.util.LinkedHashMap<>();
        ops.put("open (lazy)", fx::open);
        ops.put("full listing (cold)", () -> {
            TreeTables.LEAVES.clear();
            return fx.open().loadFragments().block();
        });
        ops.put("point resolve (cold)", () -> {
            TreeTables.LEAVES.clear();
            return fx.resolve(ThreadLocalRandom.current().nextLong(n));
        });
        ops.put("append 1 fragment", fx::appendOne);
        ops.put("delete 1 row (cold)", () -> {
            TreeTables.LEAVES.clear();
            return fx.deleteOneRow(ThreadLocalRandom.current().nextLong(n));
        });
        ops.put("replace data in 10 fragments (Update)", fx::replaceTenByUpdate);
        ops.put("replace data in 10 fragments (DataReplacement)", fx::replaceTenByDataReplacement);
        ops.put("backfill 10 fragments (DataReplacement)", () -> {
            if (fx.backfillField < 0) {
                fx.startBackfill();
            }
            return fx.backfillByDataReplacement();
        });
        ops.put("backfill 10 fragments (Merge)", fx::backfillByMerge);
        // -Djavelin.bench.skipOps=Merge,listing: operations whose name contains one of these are not run
        for (String skip : System.getProperty("javelin.bench.skipOps", "").split(",")) {
            if (!skip.isBlank()) {
                ops.keySet().removeIf(k -> k.contains(skip.trim()));
            }
        }
        System.out.printf(Locale.ROOT, "| %s | %d | %s | create (generate) | | | | | | %.0f | | | |%n", shape, n, l, setupMs);
        for (var e : ops.entrySet()) {
            Measured m = measure(fx.store, reps, e.getValue());
            System.out.printf(Locale.ROOT, "| %s | %d | %s | %s | %d | %d | %d | %d | %d | %.2f | %.2f | %.2f | %.0f |%n",
                    shape, n, l, e.getKey(), m.io()[0], m.io()[1], m.io()[2], m.io()[3], m.io()[4], m.mean(), m.p50(),
                    m.p99(), m.peakHeapDelta() / 1048576.0);
            if (FragmentTreeChart.PLOTTED.contains(e.getKey())) {
                data.add(shape + " " + e.getKey(), tree, n, m.io()[3]);
            }
        }
        fx.store.close();
    }
}
