package io.javelin.tx.commit;

import io.javelin.tx.CommitConflictException;
import io.javelin.tx.CommitStateUnknownException;
import io.javelin.tx.DatasetAlreadyExistsException;
import io.javelin.tx.RetryableCommitConflictException;
import io.javelin.tx.VersionNotFoundException;
import io.javelin.tx.manifest.ManifestCodec;
import io.javelin.tx.manifest.ManifestFile;
import io.javelin.tx.pb.Transaction;
import io.javelin.tx.store.ManifestStore;
import io.javelin.tx.store.StoreAlreadyExistsException;
import io.javelin.tx.store.StoreNotFoundException;
import io.javelin.tx.transaction.ConflictResolver;
import io.javelin.tx.transaction.ManifestBuilder;
import io.javelin.tx.transaction.OperationKind;
import io.javelin.tx.transaction.Resolution;
import io.javelin.tx.transaction.TransactionFiles;
import io.javelin.tx.tree.TreeCommits;
import io.javelin.tx.version.ManifestNaming;
import io.javelin.tx.version.VersionHint;
import io.javelin.tx.version.VersionResolver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.util.retry.Retry;

/**
 * Optimistic commit of one transaction (Lance {@code commit_transaction}), without blocking or sleeping:
 *
 * <ol>
 *   <li>Load the manifest at the transaction's read version (one GET on a V2 dataset).</li>
 *   <li>Build the next manifest, PUT {@code _transactions/{read_version}-{uuid}.txn}, then create-if-absent
 *       the next {@code _versions/} name. A conflict-free commit costs exactly these 1 read + 2 writes.</li>
 *   <li>Lost the race: read the versions committed since (probing version+1, +2, ... until not found) and
 *       their transactions, apply the conflict matrix, rebase (Delete over Delete) or fail, back off with
 *       jitter on a Reactor timer and try again, at most {@code maxRetries} times.</li>
 *   <li>Lost acknowledgement: if a create-if-absent that was retried after a transport error reports
 *       "already exists", the manifest there may be our own: read it back and compare transaction uuids.</li>
 * </ol>
 *
 * The naming scheme of the read manifest is continued; a new dataset uses V2.
 */
public final class CommitEngine {

    /** Largest transaction a tree manifest carries inline. */
    static final int INLINE_TXN_BYTES = 16 * 1024;

    private final ManifestStore store;
    private final VersionResolver versions;
    private final CommitOptions options;

    public CommitEngine(ManifestStore store, CommitOptions options) {
        this.store = store;
        this.versions = new VersionResolver(store);
        this.options = options;
    }

    public Mono<CommitResult> commit(Transaction txn) {
        return commit(txn, false);
    }

    /** {@code enableStableRowIds}: when this commit creates the dataset, turn on stable row ids (flag 2). */
    public Mono<CommitResult> commit(Transaction txn, boolean enableStableRowIds) {
        return Mono.defer(() -> {
            TransactionFiles.checkUuid(txn.getUuid());
            if (txn.getReadVersion() == 0) {
                if (!txn.hasOverwrite()) {
                    return Mono.error(new VersionNotFoundException(OperationKind.of(txn)
                            + " needs an existing dataset; only an Overwrite can create one"));
                }
                Attempt create = new Attempt(txn, null, null, ManifestNaming.V2);
                create.enableStableRowIds = enableStableRowIds;
                return create.create();
            }
            return load(txn.getReadVersion()).flatMap(located -> {
                Attempt a = new Attempt(txn, located.file, located.file, located.naming);
                if (!txn.hasRestore()) {
                    return a.run();
                }
                return versions.read(txn.getRestore().getVersion(), located.naming).flatMap(src -> {
                    a.restoreSource = src;
                    return a.run();
                });
            });
        });
    }

    private record Located(ManifestFile file, ManifestNaming naming) {
    }

    /** The manifest of {@code version}: the V2 name first, the V1 name on a miss. */
    private Mono<Located> load(long version) {
        return versions.read(version, ManifestNaming.V2).map(f -> new Located(f, ManifestNaming.V2))
                .onErrorResume(VersionNotFoundException.class,
                        e -> versions.read(version, ManifestNaming.V1).map(f -> new Located(f, ManifestNaming.V1)));
    }

    /** Per-commit state, used by one reactive chain at a time (each step runs after the previous one). */
    private final class Attempt {
        private Transaction txn;
        /** The manifest the transaction's deletion vectors were computed against (moves on each rebase). */
        private ManifestFile rebaseBaseline;
        private ManifestFile base;
        private final ManifestNaming naming;
        private ManifestFile restoreSource;
        private int attempts;
        private boolean enableStableRowIds;

        Attempt(Transaction txn, ManifestFile readBase, ManifestFile base, ManifestNaming naming) {
            this.txn = txn;
            this.rebaseBaseline = readBase;
            this.base = base;
            this.naming = naming;
        }

        /** Creating a dataset is a single attempt: losing means someone else created it. */
        Mono<CommitResult> create() {
            return publishOnce().flatMap(won -> won
                    ? Mono.just(result())
                    : Mono.error(new DatasetAlreadyExistsException("Dataset already exists (version 1 was committed by"
                            + " another writer)")));
        }

        Mono<CommitResult> run() {
            return publishOnce().flatMap(won -> {
                if (won) {
                    return Mono.just(result());
                }
                if (attempts >= options.maxRetries()) {
                    return Mono.error(new CommitConflictException("Failed to commit the transaction after "
                            + options.maxRetries() + " retries"));
                }
                return catchUp().then(Mono.defer(() -> alreadyCommitted
                        ? Mono.just(result())
                        : Mono.delay(backoff(attempts), Schedulers.parallel()).then(Mono.defer(this::run))));
            });
        }

        private ManifestFile built;
        private String path;
        private boolean alreadyCommitted;

        /**
         * One publication: txn file, then create-if-absent. True if our manifest is now at the path, false
         * if another writer's is. When the create-if-absent failed in a way that may still have applied
         * it (transport errors until the retries ran out), the path is read back; if even that cannot
         * decide, the outcome is {@link CommitStateUnknownException} and nothing may be cleaned up.
         */
        private Mono<Boolean> publishOnce() {
            return Mono.defer(() -> {
                attempts++;
                // Tree tables write their tree objects here, before the manifest (spec 000).
                return TreeCommits.build(store, base, txn, restoreSource, options.clock().instant(), enableStableRowIds)
                        .flatMap(this::publish);
            });
        }

        private Mono<Boolean> publish(ManifestBuilder.Built b) {
            return Mono.defer(() -> {
                byte[] bytes = ManifestCodec.encode(b.manifest(), b.indexSection(), inline(b, txn) ? txn : null);
                built = ManifestCodec.decode("(new manifest)", bytes);
                path = naming.path(built.version());
                boolean[] ambiguous = {false};
                return withTransientRetries(TransactionFiles.write(store, txn), null)
                        .then(withTransientRetries(store.putIfAbsent(path, bytes), ambiguous))
                        .thenReturn(true)
                        .onErrorResume(StoreAlreadyExistsException.class,
                                e -> ambiguous[0] || e.ambiguous() ? isOurs(path) : Mono.just(false))
                        .onErrorResume(e -> !(e instanceof StoreAlreadyExistsException) && ambiguous[0]
                                        && !(e instanceof CommitStateUnknownException),
                                e -> isOurs(path).onErrorMap(x -> !(x instanceof CommitStateUnknownException),
                                        x -> new CommitStateUnknownException("Cannot tell whether version " + built.version()
                                                + " was committed", e)))
                        .flatMap(won -> won ? hint().thenReturn(true) : Mono.just(false));
            });
        }

        /**
         * A tree manifest does not inline a large transaction (it is always in {@code _transactions/}):
         * an Overwrite of 10^5 fragments would otherwise put the whole fragment list back into the
         * manifest the tree exists to keep small (upstream spills large inline transactions too).
         */
        private static boolean inline(ManifestBuilder.Built b, Transaction t) {
            return !b.manifest().hasFragmentTree() || t.getSerializedSize() <= INLINE_TXN_BYTES;
        }

        /** Retries transport errors (not "already exists" or "not found"), marking the request ambiguous. */
        private Mono<Void> withTransientRetries(Mono<Void> request, boolean[] ambiguous) {
            return request.doOnError(e -> {
                if (ambiguous != null && isTransient(e)) {
                    ambiguous[0] = true;
                }
            }).retryWhen(transientRetry());
        }

        /** Transport errors only, jittered exponential backoff; the last failure surfaces unwrapped. */
        private Retry transientRetry() {
            return Retry.backoff(options.maxTransientRetries(), options.backoffBase())
                    .maxBackoff(options.backoffMax()).jitter(0.5).filter(CommitEngine::isTransient)
                    .onRetryExhaustedThrow((spec, signal) -> signal.failure());
        }

        /** Reads the manifest at {@code path} back: is it the one carrying our transaction? */
        private Mono<Boolean> isOurs(String p) {
            return store.read(p)
                    .retryWhen(Retry.backoff(options.maxTransientRetries(), options.backoffBase()).filter(CommitEngine::isTransient))
                    .map(bytes -> {
                        ManifestFile there = ManifestCodec.decode(p, bytes);
                        String uuid = there.transaction() != null ? there.transaction().getUuid() : null;
                        return txn.getUuid().equals(uuid) || there.manifest().getTransactionFile().equals(TransactionFiles.fileName(txn));
                    })
                    .onErrorResume(StoreNotFoundException.class, e -> Mono.error(new CommitStateUnknownException(
                            "Cannot tell whether version " + built.version() + " was committed: " + p
                                    + " is not readable after a create whose outcome is unknown", e)));
        }

        private Mono<Void> hint() {
            if (!options.writeVersionHint() || store.listsInLexicalOrder()) {
                return Mono.empty();
            }
            return store.put(VersionHint.PATH, VersionHint.encode(built.version())).onErrorResume(e -> Mono.empty());
        }

        private CommitResult result() {
            return new CommitResult(built, path, attempts);
        }

        /** Loads what was committed since {@code base}, checks each against us, rebases if needed. */
        private Mono<Void> catchUp() {
            return newer(base.version() + 1, new ArrayList<>()).flatMap(list -> {
                boolean rebase = false;
                for (Committed c : list) {
                    if (c.txn.getUuid().equals(txn.getUuid())) {
                        // our own commit, whose success was reported as a conflict: never commit twice
                        built = c.file;
                        path = naming.path(c.file.version());
                        alreadyCommitted = true;
                        return Mono.empty();
                    }
                    Resolution r = ConflictResolver.check(txn, c.txn);
                    switch (r.outcome()) {
                        case INCOMPATIBLE -> {
                            return Mono.error(new CommitConflictException("Version " + c.file.version() + ": " + r.reason()));
                        }
                        case RETRYABLE -> {
                            return Mono.error(new RetryableCommitConflictException("Version " + c.file.version() + ": " + r.reason()));
                        }
                        case REBASE -> rebase = true;
                        case COMPATIBLE -> { }
                    }
                }
                if (list.isEmpty()) {
                    return Mono.empty(); // the winner's manifest is not visible yet: just retry
                }
                ManifestFile latest = list.get(list.size() - 1).file;
                Mono<Transaction> next = Mono.just(txn);
                if (rebase) {
                    next = txn.hasDelete() || txn.hasUpdate()
                            ? (txn.hasDelete() ? DeleteRebase.rebase(store, txn, rebaseBaseline, latest)
                                    : UpdateRebase.rebase(store, txn, rebaseBaseline, latest)).doOnNext(t -> rebaseBaseline = latest)
                            : Mono.error(new RetryableCommitConflictException(OperationKind.of(txn)
                                    + " overlaps a concurrent change and cannot be rebased here: re-run it"));
                }
                return next.doOnNext(t -> {
                    txn = t;
                    base = latest;
                }).then();
            });
        }

        private record Committed(ManifestFile file, Transaction txn) {
        }

        private Mono<List<Committed>> newer(long version, List<Committed> acc) {
            // a transport error while reading a winner's manifest is retried like the publish itself:
            // failing here would turn a commit that only needed a rebase into a failure
            return versions.read(version, naming)
                    .flatMap(f -> transactionOf(f).map(t -> new Committed(f, t)))
                    .retryWhen(transientRetry())
                    .flatMap(c -> {
                        acc.add(c);
                        return newer(version + 1, acc);
                    })
                    .onErrorResume(VersionNotFoundException.class, e -> Mono.just(acc));
        }

        private Mono<Transaction> transactionOf(ManifestFile f) {
            if (f.transaction() != null) {
                return Mono.just(f.transaction());
            }
            if (f.manifest().getTransactionFile().isEmpty()) {
                return Mono.error(new CommitConflictException("Dataset version " + f.version()
                        + " does not have a transaction file"));
            }
            return TransactionFiles.read(store, f.manifest().getTransactionFile())
                    .onErrorMap(StoreNotFoundException.class, e -> new CommitConflictException("Dataset version "
                            + f.version() + " does not have a transaction file"));
        }
    }

    /** Full jitter over an exponential window (1, 2, 4 ... × base, capped). */
    Duration backoff(int attempt) {
        long base = options.backoffBase().toNanos();
        long cap = options.backoffMax().toNanos();
        long window = Math.min(cap, base << Math.min(attempt - 1, 20));
        return Duration.ofNanos(window / 2 + ThreadLocalRandom.current().nextLong(Math.max(1, window / 2 + 1)));
    }

    static boolean isTransient(Throwable e) {
        return !(e instanceof StoreAlreadyExistsException) && !(e instanceof StoreNotFoundException)
                && !(e instanceof io.javelin.tx.TxException);
    }
}
