package io.javelin.tx.commit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.javelin.encoding.pb.file.Field;
import io.javelin.tx.CommitConflictException;
import io.javelin.tx.DatasetAlreadyExistsException;
import io.javelin.tx.Golden;
import io.javelin.tx.RetryableCommitConflictException;
import io.javelin.tx.deletion.DeletionFiles;
import io.javelin.tx.manifest.FeatureFlags;
import io.javelin.tx.manifest.ManifestCodec;
import io.javelin.tx.manifest.ManifestFile;
import io.javelin.tx.pb.DataFile;
import io.javelin.tx.pb.DataFragment;
import io.javelin.tx.pb.Manifest;
import io.javelin.tx.pb.Transaction;
import io.javelin.tx.store.FaultyStore;
import io.javelin.tx.store.FaultyStore.Fault;
import io.javelin.tx.store.InMemoryManifestStore;
import io.javelin.tx.transaction.TransactionFiles;
import io.javelin.tx.transaction.Transactions;
import io.javelin.tx.version.ManifestNaming;
import io.javelin.tx.version.VersionHint;
import io.javelin.tx.version.VersionResolver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.roaringbitmap.RoaringBitmap;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

class CommitEngineTest {

    static final CommitOptions FAST = CommitOptions.defaults().withBackoff(Duration.ofMillis(1), Duration.ofMillis(20));
    static final List<Field> SCHEMA = List.of(Field.newBuilder().setName("id").setId(0).setParentId(-1).setLogicalType("int64").build());

    static DataFragment fragment(String file, long rows) {
        return DataFragment.newBuilder().setPhysicalRows(rows).addFiles(DataFile.newBuilder().setPath(file).addFields(0)
                .addColumnIndices(0).setFileMajorVersion(2).setFileMinorVersion(1).setFileSizeBytes(1000)).build();
    }

    static CommitResult create(CommitEngine engine) {
        return engine.commit(Transactions.overwrite(0, List.of(fragment("a.lance", 100)), SCHEMA, Map.of())).block();
    }

    @Test
    void createThenAppend() {
        InMemoryManifestStore store = new InMemoryManifestStore();
        CommitEngine engine = new CommitEngine(store, FAST);
        CommitResult v1 = create(engine);
        assertThat(v1.version()).isEqualTo(1);
        assertThat(v1.path()).isEqualTo("_versions/18446744073709551614.manifest");
        Manifest m1 = v1.manifest().manifest();
        assertThat(m1.getFragments(0).getId()).isZero();
        assertThat(m1.hasMaxFragmentId()).isTrue();
        assertThat(m1.getMaxFragmentId()).isZero();
        assertThat(m1.getDataFormat().getVersion()).isEqualTo("2.1");
        assertThat(m1.getWriterVersion().getLibrary()).isEqualTo("javelin");
        assertThat(m1.getReaderFeatureFlags()).isZero();

        store.resetCounters();
        Transaction append = Transactions.append(1, List.of(fragment("b.lance", 50), fragment("c.lance", 25)));
        CommitResult v2 = engine.commit(append).block();
        assertThat(store.reads()).as("reads").isEqualTo(1);
        assertThat(store.writes()).as("writes").isEqualTo(2);
        assertThat(store.lists()).isZero();
        assertThat(v2.version()).isEqualTo(2);
        assertThat(v2.attempts()).isEqualTo(1);
        assertThat(v2.manifest().manifest().getFragmentsList()).extracting(DataFragment::getId).containsExactly(0L, 1L, 2L);
        assertThat(v2.manifest().manifest().getMaxFragmentId()).isEqualTo(2);
        // transaction inline and as a file, byte-identical, named after the read version
        assertThat(v2.manifest().manifest().getTransactionFile()).isEqualTo("1-" + append.getUuid() + ".txn");
        assertThat(store.peek("_transactions/1-" + append.getUuid() + ".txn")).isEqualTo(append.toByteArray());
        assertThat(v2.manifest().transaction()).isEqualTo(append);
        // and the stored manifest is exactly what the result says
        ManifestFile stored = ManifestCodec.decode(v2.path(), store.peek(v2.path()));
        assertThat(stored.manifest()).isEqualTo(v2.manifest().manifest());
    }

    @Test
    void creatingTwiceFails() {
        CommitEngine engine = new CommitEngine(new InMemoryManifestStore(), FAST);
        create(engine);
        assertThatThrownBy(() -> create(engine)).isInstanceOf(DatasetAlreadyExistsException.class);
        assertThatThrownBy(() -> engine.commit(Transactions.append(0, List.of(fragment("x", 1)))).block())
                .hasMessageContaining("only an Overwrite can create");
    }

    @Test
    void staleAppendRebasesOverAnotherAppend() {
        InMemoryManifestStore store = new InMemoryManifestStore();
        CommitEngine engine = new CommitEngine(store, FAST);
        create(engine);
        Transaction first = Transactions.append(1, List.of(fragment("b.lance", 5)));
        Transaction second = Transactions.append(1, List.of(fragment("c.lance", 6)));
        engine.commit(first).block();
        CommitResult r = engine.commit(second).block();
        assertThat(r.version()).isEqualTo(3);
        assertThat(r.attempts()).isEqualTo(2);
        assertThat(r.manifest().manifest().getFragmentsList()).extracting(f -> f.getFiles(0).getPath())
                .containsExactly("a.lance", "b.lance", "c.lance");
        assertThat(r.manifest().manifest().getFragmentsList()).extracting(DataFragment::getId).containsExactly(0L, 1L, 2L);
        assertThat(r.manifest().transaction().getReadVersion()).isEqualTo(1); // read version is fixed for life
    }

    @Test
    void transientErrorReadingAWinnersManifestIsRetriedDuringCatchUp() {
        InMemoryManifestStore mem = new InMemoryManifestStore();
        CommitEngine engine = new CommitEngine(mem, FAST);
        create(engine);
        engine.commit(Transactions.append(1, List.of(fragment("b.lance", 5)))).block(); // v2, the winner
        java.util.concurrent.atomic.AtomicInteger failures = new java.util.concurrent.atomic.AtomicInteger();
        String winner = ManifestNaming.V2.path(2);
        io.javelin.tx.store.ManifestStore flaky = new io.javelin.tx.store.ManifestStore() {
            @Override
            public Mono<Void> putIfAbsent(String path, byte[] bytes) {
                return mem.putIfAbsent(path, bytes);
            }

            @Override
            public Mono<byte[]> read(String path) {
                return Mono.defer(() -> path.equals(winner) && failures.getAndIncrement() < 2
                        ? Mono.error(new java.io.UncheckedIOException(new java.io.IOException("connection reset")))
                        : mem.read(path));
            }

            @Override
            public Mono<Void> put(String path, byte[] bytes) {
                return mem.put(path, bytes);
            }

            @Override
            public Flux<io.javelin.tx.store.StoreEntry> list(String prefix) {
                return mem.list(prefix);
            }

            @Override
            public Mono<Void> delete(String path) {
                return mem.delete(path);
            }

            @Override
            public boolean listsInLexicalOrder() {
                return mem.listsInLexicalOrder();
            }
        };
        // stale (read version 1): loses v2, must read the winner's manifest to rebase
        CommitResult r = new CommitEngine(flaky, FAST).commit(Transactions.append(1, List.of(fragment("c.lance", 6)))).block();
        assertThat(failures.get()).as("the winner's manifest read failed twice, then succeeded").isEqualTo(3);
        assertThat(r.version()).isEqualTo(3);
        assertThat(r.manifest().manifest().getFragmentsList()).extracting(f -> f.getFiles(0).getPath())
                .containsExactly("a.lance", "b.lance", "c.lance");
    }

    @Test
    void appendAfterConcurrentOverwriteIsIncompatible() {
        CommitEngine engine = new CommitEngine(new InMemoryManifestStore(), FAST);
        create(engine);
        engine.commit(Transactions.overwrite(1, List.of(fragment("o.lance", 3)), SCHEMA, Map.of())).block();
        assertThatThrownBy(() -> engine.commit(Transactions.append(1, List.of(fragment("b.lance", 5)))).block())
                .isInstanceOf(CommitConflictException.class).isNotInstanceOf(RetryableCommitConflictException.class)
                .hasMessageContaining("APPEND after a concurrent OVERWRITE");
    }

    @Test
    void overwriteKeepsTheFragmentIdHighWaterMark() {
        CommitEngine engine = new CommitEngine(new InMemoryManifestStore(), FAST);
        create(engine);
        engine.commit(Transactions.append(1, List.of(fragment("b.lance", 5)))).block();
        CommitResult r = engine.commit(Transactions.overwrite(2, List.of(fragment("o.lance", 3)), SCHEMA, Map.of("k", "v"))).block();
        assertThat(r.manifest().manifest().getFragmentsList()).extracting(DataFragment::getId).containsExactly(2L);
        assertThat(r.manifest().manifest().getConfigMap()).containsEntry("k", "v");
        assertThat(r.manifest().manifest().getWriterFeatureFlags()).isEqualTo(FeatureFlags.TABLE_CONFIG);
        CommitResult reserve = engine.commit(Transactions.reserveFragments(3, 10)).block();
        assertThat(reserve.manifest().manifest().getMaxFragmentId()).isEqualTo(12);
        CommitResult next = engine.commit(Transactions.append(4, List.of(fragment("n.lance", 1)))).block();
        assertThat(next.manifest().manifest().getFragmentsList()).extracting(DataFragment::getId).containsExactly(2L, 13L);
    }

    @Test
    void nConcurrentCommittersLoseNothing() {
        InMemoryManifestStore store = new InMemoryManifestStore();
        CommitEngine engine = new CommitEngine(store, FAST.withMaxRetries(200));
        create(engine);
        VersionResolver versions = new VersionResolver(store);
        int committers = 8;
        int each = 5;
        List<Long> committed = Flux.range(0, committers)
                .flatMap(c -> Flux.range(0, each)
                        .concatMap(i -> versions.latest()
                                .flatMap(l -> engine.commit(Transactions.append(l.version(), List.of(fragment("c" + c + "-" + i + ".lance", 10)))))
                                .map(CommitResult::version))
                        .subscribeOn(Schedulers.parallel()), committers)
                .collectList()
                .block(Duration.ofSeconds(60));
        assertThat(committed).hasSize(committers * each).doesNotHaveDuplicates();
        ManifestFile latest = versions.readLatest().block();
        assertThat(latest.version()).isEqualTo(1 + committers * each);
        List<String> files = latest.manifest().getFragmentsList().stream().map(f -> f.getFiles(0).getPath()).toList();
        assertThat(files).hasSize(1 + committers * each).doesNotHaveDuplicates();
        for (int c = 0; c < committers; c++) {
            for (int i = 0; i < each; i++) {
                assertThat(files).contains("c" + c + "-" + i + ".lance");
            }
        }
        assertThat(latest.manifest().getFragmentsList()).extracting(DataFragment::getId)
                .containsExactlyElementsOf(java.util.stream.LongStream.rangeClosed(0, committers * each).boxed().toList());
        assertThat(latest.manifest().getMaxFragmentId()).isEqualTo(committers * each);
        // every version carries its transaction, inline and as a file
        for (long v = 2; v <= latest.version(); v++) {
            ManifestFile mf = versions.read(v, ManifestNaming.V2).block();
            assertThat(mf.transaction()).isNotNull();
            assertThat(store.peek(TransactionFiles.DIR + mf.manifest().getTransactionFile())).isEqualTo(mf.transaction().toByteArray());
        }
    }

    @Test
    void concurrentDeletesOfTheSameFragmentAreMerged() {
        InMemoryManifestStore store = new InMemoryManifestStore();
        CommitEngine engine = new CommitEngine(store, FAST);
        ManifestFile v1 = create(engine).manifest();
        DataFragment f0 = v1.manifest().getFragments(0);
        Transaction a = delete(store, f0, RoaringBitmap.bitmapOfRange(0, 10), 1);
        Transaction b = delete(store, f0, RoaringBitmap.bitmapOfRange(50, 60), 1);
        engine.commit(a).block();
        CommitResult r = engine.commit(b).block();
        assertThat(r.version()).isEqualTo(3);
        DataFragment merged = r.manifest().manifest().getFragments(0);
        assertThat(merged.getDeletionFile().getNumDeletedRows()).isEqualTo(20);
        assertThat(merged.getDeletionFile().getReadVersion()).isEqualTo(2);
        assertThat(r.manifest().manifest().getReaderFeatureFlags()).isEqualTo(FeatureFlags.DELETION_FILES);
        RoaringBitmap expected = RoaringBitmap.or(RoaringBitmap.bitmapOfRange(0, 10), RoaringBitmap.bitmapOfRange(50, 60));
        assertThat(DeletionFiles.read(store, merged).block()).isEqualTo(expected);
        // the same rows deleted concurrently: the application must re-run its delete
        Transaction c = delete(store, merged, RoaringBitmap.or(expected, RoaringBitmap.bitmapOf(70)), 3);
        Transaction d = delete(store, merged, RoaringBitmap.or(expected, RoaringBitmap.bitmapOf(70, 71)), 3);
        engine.commit(c).block();
        assertThatThrownBy(() -> engine.commit(d).block()).isInstanceOf(RetryableCommitConflictException.class);
    }

    /** Rebased twice: the second rebase must not count the first intervening delete as ours. */
    @Test
    void deleteRebasedTwice() {
        InMemoryManifestStore mem = new InMemoryManifestStore();
        CommitEngine plain = new CommitEngine(mem, FAST);
        DataFragment f0 = create(plain).manifest().manifest().getFragments(0);
        Transaction b = delete(mem, f0, RoaringBitmap.bitmapOf(10), 1);
        Transaction c = delete(mem, f0, RoaringBitmap.bitmapOf(20), 1);
        Transaction a = delete(mem, f0, RoaringBitmap.bitmapOf(30), 1);
        plain.commit(b).block(); // v2
        java.util.concurrent.atomic.AtomicBoolean once = new java.util.concurrent.atomic.AtomicBoolean();
        // c takes v3 while a is rebasing over v2: chained reactively, because the create may run on a
        // non-blocking thread (after a backoff timer) where block() is not allowed.
        io.javelin.tx.store.ManifestStore racing = new io.javelin.tx.store.ManifestStore() {
            @Override
            public Mono<Void> putIfAbsent(String path, byte[] bytes) {
                return Mono.defer(() -> path.equals(ManifestNaming.V2.path(3)) && once.compareAndSet(false, true)
                        ? plain.commit(c).then(mem.putIfAbsent(path, bytes))
                        : mem.putIfAbsent(path, bytes));
            }

            @Override
            public Mono<byte[]> read(String path) {
                return mem.read(path);
            }

            @Override
            public Mono<Void> put(String path, byte[] bytes) {
                return mem.put(path, bytes);
            }

            @Override
            public Flux<io.javelin.tx.store.StoreEntry> list(String prefix) {
                return mem.list(prefix);
            }

            @Override
            public Mono<Void> delete(String path) {
                return mem.delete(path);
            }

            @Override
            public boolean listsInLexicalOrder() {
                return mem.listsInLexicalOrder();
            }
        };
        CommitResult r = new CommitEngine(racing, FAST).commit(a).block();
        assertThat(r.version()).isEqualTo(4);
        assertThat(r.attempts()).isEqualTo(3);
        assertThat(DeletionFiles.read(mem, r.manifest().manifest().getFragments(0)).block())
                .isEqualTo(RoaringBitmap.bitmapOf(10, 20, 30));
    }

    @Test
    void deletingEveryRowRemovesTheFragment() {
        InMemoryManifestStore store = new InMemoryManifestStore();
        CommitEngine engine = new CommitEngine(store, FAST);
        ManifestFile v1 = create(engine).manifest();
        engine.commit(Transactions.append(1, List.of(fragment("b.lance", 5)))).block();
        DataFragment f0 = v1.manifest().getFragments(0);
        Transaction half = delete(store, f0, RoaringBitmap.bitmapOfRange(0, 50), 1);
        Transaction other = delete(store, f0, RoaringBitmap.bitmapOfRange(50, 100), 1);
        engine.commit(half).block();
        CommitResult r = engine.commit(other).block();
        assertThat(r.manifest().manifest().getFragmentsList()).extracting(DataFragment::getId).containsExactly(1L);
        assertThat(r.manifest().manifest().getMaxFragmentId()).isEqualTo(1);
        assertThat(r.manifest().manifest().getReaderFeatureFlags()).isZero();
    }

    static Transaction delete(InMemoryManifestStore store, DataFragment f, RoaringBitmap all, long readVersion) {
        var df = DeletionFiles.write(store, f.getId(), readVersion, all).block();
        return Transactions.delete(readVersion, List.of(f.toBuilder().setDeletionFile(df).build()), List.of(), "pred");
    }

    @Test
    void lostAckIsResolvedByReadingBack() {
        InMemoryManifestStore mem = new InMemoryManifestStore();
        CommitEngine setup = new CommitEngine(mem, FAST);
        create(setup);
        Set<String> hit = new HashSet<>();
        FaultyStore faulty = new FaultyStore(mem, (p, n) -> p.startsWith("_versions/") && hit.add(p) ? Fault.LOSE_ACK : Fault.NONE);
        CommitResult r = new CommitEngine(faulty, FAST).commit(Transactions.append(1, List.of(fragment("b.lance", 5)))).block();
        assertThat(r.version()).isEqualTo(2);
        assertThat(r.attempts()).isEqualTo(1);
        assertThat(new VersionResolver(mem).latest().block().version()).isEqualTo(2); // no duplicate commit
    }

    @Test
    void transientFailureBeforeTheWriteIsRetried() {
        InMemoryManifestStore mem = new InMemoryManifestStore();
        create(new CommitEngine(mem, FAST));
        Set<String> hit = new HashSet<>();
        FaultyStore faulty = new FaultyStore(mem, (p, n) -> p.startsWith("_versions/") && hit.add(p) ? Fault.FAIL_BEFORE : Fault.NONE);
        CommitResult r = new CommitEngine(faulty, FAST).commit(Transactions.append(1, List.of(fragment("b.lance", 5)))).block();
        assertThat(r.version()).isEqualTo(2);
    }

    @Test
    void lostAckButSomeoneElseWonIsAConflictNotASuccess() {
        InMemoryManifestStore mem = new InMemoryManifestStore();
        CommitEngine plain = new CommitEngine(mem, FAST);
        create(plain);
        Transaction theirs = Transactions.append(1, List.of(fragment("theirs.lance", 5)));
        java.util.concurrent.atomic.AtomicBoolean once = new java.util.concurrent.atomic.AtomicBoolean();
        // our first create-if-absent fails with a 503 and, meanwhile, another writer takes version 2
        FaultyStore faulty = new FaultyStore(mem, (p, n) -> {
            if (p.startsWith("_versions/") && once.compareAndSet(false, true)) {
                plain.commit(theirs).block();
                return Fault.FAIL_BEFORE;
            }
            return Fault.NONE;
        });
        CommitResult r = new CommitEngine(faulty, FAST).commit(Transactions.append(1, List.of(fragment("ours.lance", 5)))).block();
        assertThat(r.version()).isEqualTo(3);
        assertThat(r.manifest().manifest().getFragmentsList()).extracting(f -> f.getFiles(0).getPath())
                .containsExactly("a.lance", "theirs.lance", "ours.lance");
    }

    @Test
    void aCreateThatKeepsFailingEndsInUnknownState() {
        InMemoryManifestStore mem = new InMemoryManifestStore();
        create(new CommitEngine(mem, FAST));
        FaultyStore faulty = new FaultyStore(mem, (p, n) -> p.startsWith("_versions/") ? Fault.FAIL_BEFORE : Fault.NONE);
        assertThatThrownBy(() -> new CommitEngine(faulty, FAST.withMaxTransientRetries(2))
                .commit(Transactions.append(1, List.of(fragment("b.lance", 5)))).block())
                .isInstanceOf(io.javelin.tx.CommitStateUnknownException.class)
                .hasMessageContaining("Cannot tell whether version 2 was committed");
        // and when every attempt's ack was lost, the read-back proves the commit
        FaultyStore lossy = new FaultyStore(mem, (p, n) -> p.startsWith("_versions/") ? Fault.LOSE_ACK : Fault.NONE);
        CommitResult r = new CommitEngine(lossy, FAST.withMaxTransientRetries(2))
                .commit(Transactions.append(1, List.of(fragment("c.lance", 5)))).block();
        assertThat(r.version()).isEqualTo(2);
        assertThat(new VersionResolver(mem).latest().block().version()).isEqualTo(2);
    }

    @Test
    void givesUpAfterMaxRetries() {
        InMemoryManifestStore mem = new InMemoryManifestStore();
        create(new CommitEngine(mem, FAST));
        FaultyStore faulty = new FaultyStore(mem, (p, n) -> p.startsWith("_versions/") ? Fault.FAKE_EXISTS : Fault.NONE);
        assertThatThrownBy(() -> new CommitEngine(faulty, FAST.withMaxRetries(4))
                .commit(Transactions.append(1, List.of(fragment("b.lance", 5)))).block())
                .isInstanceOf(CommitConflictException.class).hasMessage("Failed to commit the transaction after 4 retries");
    }

    @Test
    void interveningVersionWithoutTransactionIsAConflict() {
        InMemoryManifestStore mem = new InMemoryManifestStore();
        CommitEngine engine = new CommitEngine(mem, FAST);
        ManifestFile v1 = create(engine).manifest();
        Manifest bare = v1.manifest().toBuilder().setVersion(2).clearTransactionFile().build();
        mem.seed(ManifestNaming.V2.path(2), ManifestCodec.encode(bare, null, null));
        assertThatThrownBy(() -> engine.commit(Transactions.append(1, List.of(fragment("b.lance", 5)))).block())
                .isInstanceOf(CommitConflictException.class).hasMessage("Dataset version 2 does not have a transaction file");
    }

    @Test
    void commitsOnNonBlockingThreadsAndContinuesV1Naming() {
        InMemoryManifestStore mem = new InMemoryManifestStore(false);
        ManifestFile v1 = create(new CommitEngine(new InMemoryManifestStore(), FAST)).manifest();
        mem.seed(ManifestNaming.V1.path(1), ManifestCodec.encode(v1.manifest(), null, v1.transaction()));
        CommitEngine engine = new CommitEngine(mem, FAST);
        CommitResult r = Mono.defer(() -> engine.commit(Transactions.append(1, List.of(fragment("b.lance", 5)))))
                .subscribeOn(Schedulers.parallel()).block();
        assertThat(r.path()).isEqualTo("_versions/2.manifest");
        assertThat(mem.peek(VersionHint.PATH)).isEqualTo(VersionHint.encode(2)); // unordered store: hint written
    }

    @Test
    void continuesTheGoldenLanceDataset() {
        InMemoryManifestStore store = Golden.store(Golden.VERSIONS_DELETES, true);
        CommitEngine engine = new CommitEngine(store, FAST);
        CommitResult r = engine.commit(Transactions.append(6, List.of(fragment("j.lance", 7)))).block();
        Manifest m = r.manifest().manifest();
        assertThat(r.path()).isEqualTo("_versions/18446744073709551608.manifest");
        assertThat(m.getFragmentsList()).extracting(DataFragment::getId).containsExactly(0L, 1L, 2L, 3L);
        assertThat(m.getReaderFeatureFlags()).isEqualTo(FeatureFlags.DELETION_FILES);
        assertThat(m.getFieldsList()).isEqualTo(new VersionResolver(store).read(6, null).block().manifest().getFieldsList());
        assertThat(m.getDataFormat().getVersion()).isEqualTo("2.1");
        // a data file of another storage version would break Lance's next commit: refused
        DataFragment v20 = fragment("k.lance", 1).toBuilder().setFiles(0, fragment("k.lance", 1).getFiles(0).toBuilder()
                .setFileMinorVersion(0)).build();
        assertThatThrownBy(() -> engine.commit(Transactions.append(7, List.of(v20))).block())
                .hasMessageContaining("added files with version 2.0");
        // restore version 4 (tag after_append): fragment ids never go backwards
        CommitResult restored = engine.commit(Transactions.restore(7, 4)).block();
        assertThat(restored.version()).isEqualTo(8);
        assertThat(restored.manifest().manifest().getFragmentsCount()).isEqualTo(3);
        assertThat(restored.manifest().manifest().getMaxFragmentId()).isEqualTo(3);
        assertThat(restored.manifest().manifest().getReaderFeatureFlags()).isZero();
        List<Long> ids = new ArrayList<>();
        restored.manifest().manifest().getFragmentsList().forEach(f -> ids.add(f.getId()));
        assertThat(ids).containsExactly(0L, 1L, 2L);
    }

    @Test
    void updateConfig() {
        CommitEngine engine = new CommitEngine(new InMemoryManifestStore(), FAST);
        create(engine);
        engine.commit(Transactions.updateConfig(1, Map.of("a", "1", "b", "2"))).block();
        java.util.Map<String, String> changes = new java.util.HashMap<>();
        changes.put("a", null);
        changes.put("c", "3");
        CommitResult r = engine.commit(Transactions.updateConfig(2, changes)).block();
        assertThat(r.manifest().manifest().getConfigMap()).containsExactlyInAnyOrderEntriesOf(Map.of("b", "2", "c", "3"));
        // a stale UpdateConfig on the same key is incompatible
        assertThatThrownBy(() -> engine.commit(Transactions.updateConfig(2, Map.of("c", "9"))).block())
                .isInstanceOf(CommitConflictException.class);
        // on another key it rebases
        assertThat(engine.commit(Transactions.updateConfig(2, Map.of("z", "9"))).block().version()).isEqualTo(4);
    }
}
