package io.javelin.tx.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.tx.CommitStateUnknownException;
import io.javelin.tx.FragmentInfo;
import io.javelin.tx.RetryableCommitConflictException;
import io.javelin.tx.Snapshot;
import io.javelin.tx.Table;
import io.javelin.tx.commit.CommitEngine;
import io.javelin.tx.commit.CommitOptions;
import io.javelin.tx.deletion.DeletionFiles;
import io.javelin.tx.manifest.ManifestFile;
import io.javelin.tx.pb.DataFile;
import io.javelin.tx.pb.DataFragment;
import io.javelin.tx.pb.Transaction;
import io.javelin.tx.store.ManifestStore;
import io.javelin.tx.transaction.Transactions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;
import org.roaringbitmap.IntIterator;
import org.roaringbitmap.RoaringBitmap;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.util.retry.Retry;

/**
 * Concurrent writers committing a mix of operations (append, delete, update, compaction) through one
 * {@link ManifestStore} (usually one whose object store injects faults), with a ledger of what each
 * commit was acknowledged to do.
 *
 * <p>The data files are metadata only, but every row has an identity: each planned data file gets the
 * <em>logical row ids</em> of its rows ({@link #rowsOf}), fresh for appended and updated rows, carried
 * over for compacted ones. A commit's {@link Effect} is the set of logical rows it makes visible and the
 * set it removes. So the table every version must hold is exact: the logical rows added by the commits
 * that are in, minus those they removed, each exactly once — whatever the order of commits, rebases of
 * concurrent deletes/updates, and conflicts between compactions and deletes were. Deletes, updates and
 * compactions pick fragments of any writer, so they race for the same fragments.
 */
public final class CommitTorture {

    /** What a commit does to the set of live logical rows once it is in. */
    public record Effect(String op, long[] added, long[] removed) {
        @Override
        public String toString() {
            return op + "(+" + added.length + " -" + removed.length + ")";
        }
    }

    public record Planned(Transaction txn, Effect effect) {
    }

    /** Builds the next transaction of a writer from the snapshot it read (may write side files first). */
    public interface Op {
        /** Empty when not applicable to this snapshot (the writer then picks another op). */
        Mono<Optional<Planned>> plan(CommitTorture t, int writer, int seq, Snapshot read, SplittableRandom rnd);
    }

    private static final long[] NONE = new long[0];

    private static String newFile(int w, int seq, String kind) {
        return "w" + w + "-c" + seq + "-" + kind + "-" + Transactions.newUuid().substring(0, 8) + ".lance";
    }

    private static DataFragment fragment(String file, long rows) {
        return DataFragment.newBuilder().setPhysicalRows(rows).addFiles(DataFile.newBuilder().setPath(file)
                .addFields(0).addColumnIndices(0).setFileMajorVersion(2).setFileMinorVersion(1).setFileSizeBytes(1000)).build();
    }

    /** A data file of {@code n} fresh logical rows, registered in the ledger before it is committed. */
    private String freshFile(int w, int seq, String kind, int n) {
        String file = newFile(w, seq, kind);
        long first = nextRow.getAndAdd(n);
        rowsOf.put(file, LongStream.range(first, first + n).toArray());
        return file;
    }

    static String fileOf(FragmentInfo f) {
        return f.fragment().getFiles(0).getPath();
    }

    /** Logical rows at the given offsets of a fragment. */
    private long[] rowsAt(FragmentInfo f, RoaringBitmap offsets) {
        long[] all = rowsOf.get(fileOf(f));
        long[] out = new long[offsets.getCardinality()];
        int i = 0;
        for (IntIterator it = offsets.getIntIterator(); it.hasNext(); ) {
            out[i++] = all[it.next()];
        }
        return out;
    }

    /** A random fragment with at least 2 live rows, and up to 10 of its live rows (leaving one). */
    private static Optional<FragmentInfo> victim(Snapshot read, SplittableRandom rnd) {
        List<FragmentInfo> candidates = read.fragments().stream().filter(f -> f.liveRows() > 1).toList();
        return candidates.isEmpty() ? Optional.empty() : Optional.of(candidates.get(rnd.nextInt(candidates.size())));
    }

    private static RoaringBitmap more(RoaringBitmap existing, FragmentInfo target, SplittableRandom rnd) {
        RoaringBitmap next = existing.clone();
        int extra = 1 + rnd.nextInt((int) Math.min(10, target.liveRows() - 1));
        while (next.getLongCardinality() < existing.getLongCardinality() + extra) {
            next.add(rnd.nextInt((int) target.physicalRows()));
        }
        return next;
    }

    public static final Op APPEND = (t, w, seq, read, rnd) -> Mono.fromSupplier(() -> {
        int rows = 1 + rnd.nextInt(200);
        String file = t.freshFile(w, seq, "append", rows);
        return Optional.of(new Planned(Transactions.append(read.version(), List.of(fragment(file, rows))),
                new Effect("append", t.rowsOf.get(file), NONE)));
    });

    /** Deletes a few more rows of any writer's fragment (a new cumulative deletion vector). */
    public static final Op DELETE = (t, w, seq, read, rnd) -> Mono.defer(() -> victim(read, rnd).map(target ->
            read.deletions(target).flatMap(existing -> {
                RoaringBitmap next = more(existing, target, rnd);
                long[] removed = t.rowsAt(target, RoaringBitmap.andNot(next, existing));
                return DeletionFiles.write(t.store, target.id(), read.version(), next).map(df -> {
                    DataFragment updated = target.fragment().toBuilder().setDeletionFile(df).build();
                    Transaction txn = Transactions.delete(read.version(), List.of(updated), List.of(), "torture");
                    return Optional.of(new Planned(txn, new Effect("delete", NONE, removed)));
                });
            })).orElseGet(() -> Mono.just(Optional.empty())));

    /**
     * Updates a few rows of any writer's fragment the way Lance's REWRITE_ROWS update does: they are
     * deleted there and written again (new values: new logical rows) in a new fragment.
     */
    public static final Op UPDATE = (t, w, seq, read, rnd) -> Mono.defer(() -> victim(read, rnd).map(target ->
            read.deletions(target).flatMap(existing -> {
                RoaringBitmap next = more(existing, target, rnd);
                long[] removed = t.rowsAt(target, RoaringBitmap.andNot(next, existing));
                String file = t.freshFile(w, seq, "update", removed.length);
                return DeletionFiles.write(t.store, target.id(), read.version(), next).map(df -> {
                    DataFragment updated = target.fragment().toBuilder().setDeletionFile(df).build();
                    Transaction txn = Transactions.updateRows(read.version(), List.of(), List.of(updated),
                            List.of(fragment(file, removed.length)), List.of());
                    return Optional.of(new Planned(txn, new Effect("update", t.rowsOf.get(file), removed)));
                });
            })).orElseGet(() -> Mono.just(Optional.empty())));

    /**
     * Compacts 2-3 adjacent fragments (any writers') into one without deletions: its logical rows are
     * the sources' live rows, in order. Races with deletes and updates of the same fragments (Lance's
     * conflict matrix: retryable conflict).
     */
    public static final Op COMPACT = (t, w, seq, read, rnd) -> Mono.defer(() -> {
        List<FragmentInfo> all = read.fragments();
        if (all.size() < 2) {
            return Mono.just(Optional.<Planned>empty());
        }
        int n = Math.min(all.size(), 2 + rnd.nextInt(2));
        int start = rnd.nextInt(all.size() - n + 1);
        List<FragmentInfo> group = all.subList(start, start + n);
        return Flux.fromIterable(group).concatMap(read::deletions).collectList().map(dels -> {
            List<Long> live = new ArrayList<>();
            for (int i = 0; i < group.size(); i++) {
                long[] rows = t.rowsOf.get(fileOf(group.get(i)));
                for (int r = 0; r < rows.length; r++) {
                    if (!dels.get(i).contains(r)) {
                        live.add(rows[r]);
                    }
                }
            }
            String file = newFile(w, seq, "compact");
            t.rowsOf.put(file, live.stream().mapToLong(Long::longValue).toArray());
            Transaction txn = Transactions.rewrite(read.version(), List.of(Transaction.Rewrite.RewriteGroup.newBuilder()
                    .addAllOldFragments(group.stream().map(FragmentInfo::fragment).toList())
                    .addNewFragments(fragment(file, live.size())).build()));
            return Optional.of(new Planned(txn, new Effect("compact", NONE, NONE)));
        });
    });

    public record Outcome(String txnUuid, Effect effect, Kind kind) {
        /** CONFLICT: a definite, retryable conflict (the writer re-plans); FAILED: any other definite error. */
        public enum Kind { ACKED, CONFLICT, FAILED, UNKNOWN_RESOLVED_IN, UNKNOWN_RESOLVED_OUT }
    }

    /**
     * How long a lost create's path stays unreadable (see {@code ChaosObjectStore.withDarkAfterLostCreate}):
     * the writer's read-back gets a 404 at once; short, because every writer reading the latest version waits it out.
     */
    public static final Duration DARK = Duration.ofMillis(300);

    /** Re-plans after a retryable conflict at most this often per commit, as an application would. */
    static final int CONFLICT_RETRIES = 8;

    final ManifestStore store;
    final CommitEngine engine;
    public final Table table;
    /** The mix the torture runs: 2 appends to 1 delete, 1 update and 1 compaction. */
    public static final List<Op> MIX = List.of(APPEND, APPEND, DELETE, UPDATE, COMPACT);
    final List<Op> ops;
    final Map<String, Outcome> ledger = new ConcurrentHashMap<>();
    /** Logical row ids of every data file a writer planned (committed or not), by path. */
    final Map<String, long[]> rowsOf = new ConcurrentHashMap<>();
    final AtomicLong nextRow = new AtomicLong();
    final AtomicLong commitErrors = new AtomicLong();
    /** Definite failures other than retryable conflicts, by exception and message. */
    final Map<String, Long> failures = new ConcurrentHashMap<>();
    final Map<String, AtomicLong> ackedByOp = new ConcurrentHashMap<>();

    public CommitTorture(ManifestStore store, List<Op> ops) {
        this.store = store;
        this.engine = new CommitEngine(store, CommitOptions.defaults().withBackoff(Duration.ofMillis(2), Duration.ofMillis(100))
                .withMaxRetries(200));
        this.table = new Table(store);
        this.ops = ops;
    }

    /** Transient store errors on reads are retried by the caller, as an application would. */
    private static <T> Mono<T> patiently(Mono<T> m) {
        return m.retryWhen(Retry.backoff(50, Duration.ofMillis(5)).maxBackoff(Duration.ofMillis(200))
                .filter(e -> !(e instanceof CommitStateUnknownException)));
    }

    public Mono<Void> create() {
        return create(Map.of());
    }

    /** {@code config}: table config of the new table, e.g. {@code lance.manifest.layout=tree}. */
    public Mono<Void> create(Map<String, String> config) {
        return patiently(engine.commit(Transactions.overwrite(0, List.of(), List.of(
                io.javelin.encoding.pb.file.Field.newBuilder().setName("id").setId(0).setParentId(-1)
                        .setLogicalType("int64").setType(io.javelin.encoding.pb.file.Field.Type.LEAF).build()), config)))
                .then();
    }

    public Mono<Void> run(int writers, int commitsEach, long seed) {
        return Flux.range(0, writers)
                .flatMap(w -> writer(w, commitsEach, new SplittableRandom(seed * 1_000 + w)).subscribeOn(Schedulers.parallel()),
                        writers)
                .then();
    }

    private Mono<Void> writer(int w, int commits, SplittableRandom rnd) {
        return Flux.range(0, commits).concatMap(seq -> one(w, seq, rnd, 0)).then();
    }

    private Mono<Void> one(int w, int seq, SplittableRandom rnd, int conflicts) {
        return patiently(table.open().flatMap(read -> read.loadFragments().thenReturn(read)))
                .flatMap(read -> pick(w, seq, read, rnd, 0)).flatMap(p -> engine.commit(p.txn())
                .map(r -> new Outcome(p.txn().getUuid(), p.effect(), Outcome.Kind.ACKED))
                .onErrorResume(CommitStateUnknownException.class, e -> resolve(p))
                .onErrorResume(e -> !(e instanceof CommitStateUnknownException), e -> {
                    commitErrors.incrementAndGet();
                    if (!(e instanceof RetryableCommitConflictException)) {
                        String m = String.valueOf(e.getMessage());
                        String key = e.getClass().getSimpleName() + ": " + m.substring(0, Math.min(120, m.length()));
                        if (failures.merge(key, 1L, Long::sum) == 1L && !(e instanceof io.javelin.tx.TxException)
                                && !(e instanceof io.javelin.objectstore.ObjectStoreException)) {
                            e.printStackTrace(); // unexpected kind of failure: keep where it came from
                        }
                    }
                    return Mono.just(new Outcome(p.txn().getUuid(), p.effect(), e instanceof RetryableCommitConflictException
                            ? Outcome.Kind.CONFLICT : Outcome.Kind.FAILED));
                })
                .doOnNext(o -> {
                    ledger.put(o.txnUuid(), o);
                    if (o.kind() == Outcome.Kind.ACKED) {
                        ackedByOp.computeIfAbsent(o.effect().op(), k -> new AtomicLong()).incrementAndGet();
                    }
                }))
                .flatMap(o -> o.kind() == Outcome.Kind.CONFLICT && conflicts < CONFLICT_RETRIES
                        ? one(w, seq, rnd, conflicts + 1) : Mono.empty());
    }

    private Mono<Planned> pick(int w, int seq, Snapshot read, SplittableRandom rnd, int tried) {
        Op op = tried >= ops.size() ? APPEND : ops.get(rnd.nextInt(ops.size()));
        return patiently(op.plan(this, w, seq, read, rnd))
                .flatMap(p -> p.map(Mono::just).orElseGet(() -> pick(w, seq, read, rnd, tried + 1)));
    }

    /** "Unknown" outcome: look at the history until it can be told whether our transaction is in. */
    private Mono<Outcome> resolve(Planned p) {
        return patiently(history()).map(h -> new Outcome(p.txn().getUuid(), p.effect(),
                h.contains(p.txn().getUuid()) ? Outcome.Kind.UNKNOWN_RESOLVED_IN : Outcome.Kind.UNKNOWN_RESOLVED_OUT));
    }

    /** Transaction uuids of versions 2..latest, in version order. */
    Mono<List<String>> history() {
        return table.open().flatMapMany(latest -> Flux.range(2, (int) latest.version() - 1))
                .concatMap(v -> table.checkout(v).map(s -> txnUuid(s.manifestFile())))
                .collectList();
    }

    static String txnUuid(ManifestFile mf) {
        String name = mf.manifest().getTransactionFile(); // {read_version}-{uuid}.txn
        return name.substring(name.indexOf('-') + 1, name.length() - ".txn".length());
    }

    /**
     * The live logical rows predicted by the ledger for the versions holding exactly the transactions
     * {@code in}: everything they added minus everything they removed.
     */
    Set<Long> expectedRows(Set<String> in) {
        Set<Long> rows = new HashSet<>();
        Set<Long> removed = new HashSet<>();
        for (String uuid : in) {
            Effect e = ledger.get(uuid).effect();
            for (long r : e.added()) {
                rows.add(r);
            }
            for (long r : e.removed()) {
                removed.add(r);
            }
        }
        rows.removeAll(removed);
        return rows;
    }

    /**
     * The live logical rows of a snapshot, in fragment order (a row listed twice appears twice).
     * {@code deletionCache}: deletion vectors by fragment and deletion file, shared across versions.
     */
    Mono<List<Long>> actualRows(Snapshot s, Map<String, RoaringBitmap> deletionCache) {
        return s.loadFragments().flatMap(fragments -> actualRows(s, fragments, deletionCache));
    }

    private Mono<List<Long>> actualRows(Snapshot s, List<FragmentInfo> fragments, Map<String, RoaringBitmap> deletionCache) {
        return Flux.fromIterable(fragments).concatMap(f -> {
            if (!f.fragment().hasDeletionFile()) {
                return Mono.just(new RoaringBitmap());
            }
            String key = f.id() + "/" + f.fragment().getDeletionFile().toString();
            RoaringBitmap cached = deletionCache.get(key);
            return cached != null ? Mono.just(cached) : s.deletions(f).doOnNext(b -> deletionCache.put(key, b));
        }, 1).zipWithIterable(fragments, (del, f) -> {
            long[] rows = rowsOf.get(fileOf(f));
            if (rows == null || rows.length != f.physicalRows()) {
                throw new AssertionError("fragment " + f.id() + " (" + fileOf(f) + ") has " + f.physicalRows()
                        + " rows; the ledger planned " + (rows == null ? "no such file" : rows.length + " rows"));
            }
            List<Long> live = new ArrayList<>();
            for (int r = 0; r < rows.length; r++) {
                if (!del.contains(r)) {
                    live.add(rows[r]);
                }
            }
            return live;
        }).collectList().map(parts -> {
            List<Long> out = new ArrayList<>();
            parts.forEach(out::addAll);
            return out;
        });
    }

    public long count(Outcome.Kind k) {
        return ledger.values().stream().filter(o -> o.kind() == k).count();
    }

    /** Outcomes, the final table and the faults injected, for the logs and docs/reliability.md. */
    public String summary(io.javelin.testing.ChaosObjectStore chaos) {
        Snapshot last = table.open().block();
        int fragments = last.loadFragments().block().size();
        return String.format("acked %d %s, retryable conflicts %d, failed %d, unknown->in %d, unknown->out %d; final version %d,"
                        + " %d fragments, %d rows; %d requests, faults injected: throttle %d, 500 %d, timeout %d, lost-ack %d"
                + " (%d of them creates then read as 404 for %d ms: %d reads)%s",
                count(Outcome.Kind.ACKED), new java.util.TreeMap<>(ackedByOp()), count(Outcome.Kind.CONFLICT),
                count(Outcome.Kind.FAILED), count(Outcome.Kind.UNKNOWN_RESOLVED_IN), count(Outcome.Kind.UNKNOWN_RESOLVED_OUT),
                last.version(), fragments, last.countRows(), chaos.requests.get(),
                chaos.injected[0].get(), chaos.injected[1].get(), chaos.injected[2].get(), chaos.injected[3].get(),
                chaos.darkened.get(), DARK.toMillis(), chaos.darkReads.get(), failures.isEmpty() ? "" : "; failures: " + failures);
    }

    public Map<String, Long> ackedByOp() {
        Map<String, Long> out = new HashMap<>();
        ackedByOp.forEach((k, v) -> out.put(k, v.get()));
        return out;
    }

    static <T> List<T> duplicates(List<T> xs) {
        List<T> d = new ArrayList<>();
        Map<T, Integer> seen = new HashMap<>();
        for (T x : xs) {
            if (seen.merge(x, 1, Integer::sum) == 2) {
                d.add(x);
            }
        }
        if (!d.isEmpty() && d.get(0) instanceof Comparable<?>) {
            Collections.sort((List) d);
        }
        return d;
    }

    /**
     * With the faults off: every acknowledged commit is in the history exactly once, nothing else is
     * visible unless it was reported unknown and resolved as in, and every version holds exactly the
     * logical rows its prefix of the history predicts, each once (so the row counts are exact).
     */
    public void verify() {
        CommitTorture t = this;
        List<String> history = t.history().block(Duration.ofMinutes(5));
        assertThat(CommitTorture.duplicates(history)).as("transactions committed twice").isEmpty();
        for (CommitTorture.Outcome o : t.ledger.values()) {
            boolean in = history.contains(o.txnUuid());
            switch (o.kind()) {
                case ACKED, UNKNOWN_RESOLVED_IN -> assertThat(in).as("acknowledged %s %s is in the history", o.txnUuid(),
                        o.effect()).isTrue();
                case FAILED, CONFLICT, UNKNOWN_RESOLVED_OUT -> assertThat(in).as("failed %s %s is not visible", o.txnUuid(),
                        o.effect()).isFalse();
            }
        }
        assertThat(history).as("every visible transaction was issued by a writer").allMatch(t.ledger::containsKey);
        assertThat(t.count(CommitTorture.Outcome.Kind.ACKED)).isPositive();

        // Every version holds exactly the logical rows its prefix of the history predicts, each once.
        Snapshot latest = t.table.open().block();
        assertThat(latest.version()).isEqualTo(history.size() + 1L);
        Map<String, RoaringBitmap> deletionCache = new HashMap<>();
        Set<Long> live = new HashSet<>();
        for (long v = 1; v <= latest.version(); v++) {
            if (v >= 2) {
                CommitTorture.Effect e = t.ledger.get(history.get((int) v - 2)).effect();
                for (long r : e.added()) {
                    assertThat(live.add(r)).as("v%d: %s adds row %d once", v, e, r).isTrue();
                }
                for (long r : e.removed()) {
                    assertThat(live.remove(r)).as("v%d: %s removes live row %d", v, e, r).isTrue();
                }
            }
            Snapshot s = v == latest.version() ? latest : t.table.checkout(v).block();
            List<Long> actual = t.actualRows(s, deletionCache).block();
            assertThat(CommitTorture.duplicates(actual)).as("v%d: rows listed twice", v).isEmpty();
            assertThat(actual).as("v%d: live rows", v).hasSameSizeAs(live);
            assertThat(new HashSet<>(actual)).as("v%d: live rows", v).isEqualTo(live);
            assertThat(s.countRows()).as("v%d: row count", v).isEqualTo(live.size());
        }
        // the same by the order-free formula, over everything acknowledged or resolved as in
        Set<String> in = new HashSet<>();
        t.ledger.values().stream().filter(o -> o.kind() == CommitTorture.Outcome.Kind.ACKED
                || o.kind() == CommitTorture.Outcome.Kind.UNKNOWN_RESOLVED_IN).forEach(o -> in.add(o.txnUuid()));
        assertThat(in).isEqualTo(new HashSet<>(history));
        assertThat(live).isEqualTo(t.expectedRows(in));
        // the deletion files of the latest version decode to their manifest counts
        Map<Long, Long> counts = latest.verifyDeletions().block();
        for (FragmentInfo f : latest.loadFragments().block()) {
            assertThat(counts.get(f.id())).isEqualTo(f.deletedRows());
        }
    }
}
