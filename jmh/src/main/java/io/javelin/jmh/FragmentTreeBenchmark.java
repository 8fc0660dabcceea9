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
 * counts (deterministic) with times: {@code java -cp ... io.javelin.jmh.FragmentTreeBenchmark
 * [fragments...] [--latency-ms N]} prints the Markdown table of docs/benchmarks.md.
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

    // ------------------------------------------------------------------ fixture

    /** A ManifestStore over an in-memory object store counting requests and bytes, with optional latency. */
    static final class CountingStore implements ManifestStore {
        final ObjectStoreManifestStore inner = new ObjectStoreManifestStore(InMemoryObjectStore.createIsolated(), "");
        final Duration latency;
        final AtomicLong gets = new AtomicLong();
        final AtomicLong getBytes = new AtomicLong();
        final AtomicLong puts = new AtomicLong();
        final AtomicLong putBytes = new AtomicLong();
        final AtomicLong lists = new AtomicLong();

        CountingStore(int latencyMs) {
            this.latency = Duration.ofMillis(latencyMs);
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
        public Mono<Void> put(String path, byte[] bytes) {
            return delayed(inner.put(path, bytes).doOnSuccess(v -> {
                puts.incrementAndGet();
                putBytes.addAndGet(bytes.length);
            }));
        }

        @Override
        public Mono<Void> putIfAbsent(String path, byte[] bytes) {
            return delayed(inner.putIfAbsent(path, bytes).doOnSuccess(v -> {
                puts.incrementAndGet();
                putBytes.addAndGet(bytes.length);
            }));
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

        Fixture(int n, boolean tree, int latencyMs) {
            store = new CountingStore(latencyMs);
            table = new Table(store);
            engine = new CommitEngine(store, CommitOptions.defaults());
            List<DataFragment> frags = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                frags.add(fragment(i));
            }
            Map<String, String> config = tree ? Map.of(TreeTables.LAYOUT_KEY, TreeTables.LAYOUT_TREE) : Map.of();
            version = engine.commit(Transactions.overwrite(0, frags, SCHEMA, config)).block().version();
        }

        static DataFragment fragment(long i) {
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
            version = engine.commit(Transactions.append(version, List.of(fragment(version + 10_000_000L)))).block().version();
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
    }

    // ------------------------------------------------------------------ I/O report

    record Measured(long[] io, double ms) {
    }

    static Measured measure(CountingStore store, int reps, Supplier<Object> op) {
        op.get(); // warm
        long[] before = store.counts();
        long start = System.nanoTime();
        for (int i = 0; i < reps; i++) {
            op.get();
        }
        double ms = (System.nanoTime() - start) / 1e6 / reps;
        long[] after = store.counts();
        long[] per = new long[before.length];
        for (int i = 0; i < per.length; i++) {
            per[i] = (after[i] - before[i]) / reps;
        }
        return new Measured(per, ms);
    }

    /** Prints one Markdown row per (fragments, layout, operation). */
    public static void main(String[] args) {
        List<Integer> sizes = new ArrayList<>();
        int latency = 0;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--latency-ms")) {
                latency = Integer.parseInt(args[++i]);
            } else {
                sizes.add(Integer.parseInt(args[i]));
            }
        }
        if (sizes.isEmpty()) {
            sizes = List.of(1_000, 10_000, 100_000);
        }
        System.out.println("| fragments | layout | operation | GETs | GET bytes | PUTs | PUT bytes | LISTs | ms/op |");
        System.out.println("|---:|---|---|---:|---:|---:|---:|---:|---:|");
        for (int n : sizes) {
            for (boolean tree : new boolean[] {false, true}) {
                long t0 = System.nanoTime();
                Fixture fx = new Fixture(n, tree, latency);
                double setupMs = (System.nanoTime() - t0) / 1e6;
                String l = tree ? "tree" : "flat";
                int reps = n >= 1_000_000 ? 1 : n >= 100_000 ? 3 : 10;
                Map<String, Supplier<Object>> ops = new java.util.LinkedHashMap<>();
                ops.put("create (generate)", null);
                ops.put("open (lazy)", fx::open);
                ops.put("full listing (cold)", () -> {
                    TreeTables.LEAVES.clear();
                    return fx.open().loadFragments().block();
                });
                ops.put("full listing (warm leaf cache)", () -> fx.open().loadFragments().block());
                ops.put("point resolve (cold)", () -> {
                    TreeTables.LEAVES.clear();
                    return fx.resolve(ThreadLocalRandom.current().nextLong(n));
                });
                ops.put("append 1 fragment", fx::appendOne);
                ops.put("delete 1 row (cold)", () -> {
                    TreeTables.LEAVES.clear();
                    return fx.deleteOneRow(ThreadLocalRandom.current().nextLong(n));
                });
                for (var e : ops.entrySet()) {
                    if (e.getValue() == null) {
                        System.out.printf(Locale.ROOT, "| %d | %s | %s | | | | | | %.0f |%n", n, l, e.getKey(), setupMs);
                        continue;
                    }
                    Measured m = measure(fx.store, reps, e.getValue());
                    System.out.printf(Locale.ROOT, "| %d | %s | %s | %d | %d | %d | %d | %d | %.2f |%n", n, l, e.getKey(),
                            m.io()[0], m.io()[1], m.io()[2], m.io()[3], m.io()[4], m.ms());
                }
            }
        }
    }
}
