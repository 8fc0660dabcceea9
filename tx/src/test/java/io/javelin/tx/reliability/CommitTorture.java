package io.javelin.tx.reliability;

import io.javelin.tx.CommitStateUnknownException;
import io.javelin.tx.FragmentInfo;
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
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.roaringbitmap.RoaringBitmap;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.util.retry.Retry;

/**
 * Concurrent writers committing a mix of operations through one {@link ManifestStore} (usually one
 * whose object store injects faults), with a ledger of what each commit was acknowledged to do.
 * Operations are pluggable {@link Op}s (append and delete today; compaction and update plug in the
 * same way). Every data file path and transaction uuid is unique, so the final table can be
 * checked against the ledger exactly.
 */
final class CommitTorture {

    /** The intended effect of one commit on the table (what the ledger expects once acknowledged). */
    sealed interface Effect {
        record Appended(String file, long rows) implements Effect {
        }

        /** {@code cumulative}: all rows of {@code file} deleted once this commit is in. */
        record Deleted(String file, RoaringBitmap cumulative) implements Effect {
        }
    }

    record Planned(Transaction txn, Effect effect) {
    }

    /** Builds the next transaction of a writer from the snapshot it read (may write side files first). */
    interface Op {
        /** Empty when not applicable to this snapshot (the writer then picks another op). */
        Mono<Optional<Planned>> plan(int writer, int seq, Snapshot read, ManifestStore store, SplittableRandom rnd);
    }

    static final Op APPEND = (w, seq, read, store, rnd) -> {
        long rows = 1 + rnd.nextInt(200);
        String file = "w" + w + "-c" + seq + "-" + Transactions.newUuid().substring(0, 8) + ".lance";
        DataFragment f = DataFragment.newBuilder().setPhysicalRows(rows).addFiles(DataFile.newBuilder().setPath(file)
                .addFields(0).addColumnIndices(0).setFileMajorVersion(2).setFileMinorVersion(1).setFileSizeBytes(1000)).build();
        return Mono.just(Optional.of(new Planned(Transactions.append(read.version(), List.of(f)),
                new Effect.Appended(file, rows))));
    };

    /** Deletes a few more rows of one of the writer's own fragments (cumulative deletion vector). */
    static final Op DELETE = (w, seq, read, store, rnd) -> Mono.defer(() -> {
        List<FragmentInfo> own = read.fragments().stream()
                .filter(f -> f.fragment().getFiles(0).getPath().startsWith("w" + w + "-") && f.liveRows() > 1)
                .toList();
        if (own.isEmpty()) {
            return Mono.just(Optional.<Planned>empty());
        }
        FragmentInfo target = own.get(rnd.nextInt(own.size()));
        return read.deletions(target).flatMap(existing -> {
            RoaringBitmap next = existing.clone();
            int extra = 1 + rnd.nextInt((int) Math.min(10, target.liveRows() - 1));
            while (next.getLongCardinality() < existing.getLongCardinality() + extra) {
                next.add(rnd.nextInt((int) target.physicalRows()));
            }
            return DeletionFiles.write(store, target.id(), read.version(), next).map(df -> {
                DataFragment updated = target.fragment().toBuilder().setDeletionFile(df).build();
                Transaction t = Transactions.delete(read.version(), List.of(updated), List.of(), "torture");
                return Optional.of(new Planned(t, new Effect.Deleted(target.fragment().getFiles(0).getPath(), next)));
            });
        });
    });

    record Outcome(String txnUuid, Effect effect, Kind kind) {
        enum Kind { ACKED, FAILED, UNKNOWN_RESOLVED_IN, UNKNOWN_RESOLVED_OUT }
    }

    final ManifestStore store;
    final CommitEngine engine;
    final Table table;
    final List<Op> ops;
    final Map<String, Outcome> ledger = new ConcurrentHashMap<>();
    final AtomicLong commitErrors = new AtomicLong();

    CommitTorture(ManifestStore store, List<Op> ops) {
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

    Mono<Void> create() {
        return patiently(engine.commit(Transactions.overwrite(0, List.of(), List.of(
                io.javelin.encoding.pb.file.Field.newBuilder().setName("id").setId(0).setParentId(-1)
                        .setLogicalType("int64").setType(io.javelin.encoding.pb.file.Field.Type.LEAF).build()), Map.of())))
                .then();
    }

    Mono<Void> run(int writers, int commitsEach, long seed) {
        return Flux.range(0, writers)
                .flatMap(w -> writer(w, commitsEach, new SplittableRandom(seed * 1_000 + w)).subscribeOn(Schedulers.parallel()),
                        writers)
                .then();
    }

    private Mono<Void> writer(int w, int commits, SplittableRandom rnd) {
        return Flux.range(0, commits).concatMap(seq -> one(w, seq, rnd)).then();
    }

    private Mono<Void> one(int w, int seq, SplittableRandom rnd) {
        return patiently(table.open()).flatMap(read -> pick(w, seq, read, rnd, 0)).flatMap(p -> engine.commit(p.txn())
                .map(r -> new Outcome(p.txn().getUuid(), p.effect(), Outcome.Kind.ACKED))
                .onErrorResume(CommitStateUnknownException.class, e -> resolve(p))
                .onErrorResume(e -> !(e instanceof CommitStateUnknownException), e -> {
                    commitErrors.incrementAndGet();
                    return Mono.just(new Outcome(p.txn().getUuid(), p.effect(), Outcome.Kind.FAILED));
                })
                .doOnNext(o -> ledger.put(o.txnUuid(), o))).then();
    }

    private Mono<Planned> pick(int w, int seq, Snapshot read, SplittableRandom rnd, int tried) {
        Op op = tried >= ops.size() ? APPEND : ops.get(rnd.nextInt(ops.size()));
        return patiently(op.plan(w, seq, read, store, rnd))
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

    /** The live table predicted by the ledger: file → (rows, deleted rows). */
    Map<String, long[]> expected() {
        Map<String, long[]> out = new HashMap<>();
        List<Outcome> in = new ArrayList<>();
        for (Outcome o : ledger.values()) {
            if (o.kind() == Outcome.Kind.ACKED || o.kind() == Outcome.Kind.UNKNOWN_RESOLVED_IN) {
                in.add(o);
            }
        }
        for (Outcome o : in) {
            if (o.effect() instanceof Effect.Appended a) {
                out.put(a.file(), new long[] {a.rows(), 0});
            }
        }
        for (Outcome o : in) {
            if (o.effect() instanceof Effect.Deleted d) {
                long[] e = out.get(d.file());
                e[1] = Math.max(e[1], d.cumulative().getLongCardinality()); // cumulative: the largest is the last
            }
        }
        return out;
    }

    long count(Outcome.Kind k) {
        return ledger.values().stream().filter(o -> o.kind() == k).count();
    }

    static List<String> duplicates(List<String> xs) {
        List<String> d = new ArrayList<>();
        Map<String, Integer> seen = new HashMap<>();
        for (String x : xs) {
            if (seen.merge(x, 1, Integer::sum) == 2) {
                d.add(x);
            }
        }
        Collections.sort(d);
        return d;
    }
}
