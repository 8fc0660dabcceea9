package io.javelin.tx.commit;

import static io.javelin.tx.commit.CommitEngineTest.FAST;
import static io.javelin.tx.commit.CommitEngineTest.SCHEMA;
import static io.javelin.tx.commit.CommitEngineTest.create;
import static io.javelin.tx.commit.CommitEngineTest.fragment;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.javelin.tx.DatasetAlreadyExistsException;
import io.javelin.tx.pb.DataFragment;
import io.javelin.tx.pb.IndexMetadata;
import io.javelin.tx.pb.UUID;
import io.javelin.tx.store.FaultyStore;
import io.javelin.tx.store.FaultyStore.Fault;
import io.javelin.tx.store.InMemoryManifestStore;
import io.javelin.tx.transaction.Transactions;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.roaringbitmap.RoaringBitmap;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

class CommitEngineMoreTest {

    /** Backoff is a Reactor timer: with virtual time a 10-minute backoff completes instantly, nothing sleeps. */
    @Test
    void backoffIsScheduledNotSlept() {
        InMemoryManifestStore mem = new InMemoryManifestStore();
        create(new CommitEngine(mem, FAST));
        AtomicInteger fake = new AtomicInteger(3);
        FaultyStore faulty = new FaultyStore(mem, (p, n) -> p.startsWith("_versions/") && fake.getAndDecrement() > 0
                ? Fault.FAKE_EXISTS : Fault.NONE);
        CommitOptions slow = CommitOptions.defaults().withBackoff(Duration.ofMinutes(10), Duration.ofMinutes(10));
        StepVerifier.withVirtualTime(() -> new CommitEngine(faulty, slow).commit(Transactions.append(1, List.of(fragment("b", 1)))))
                .thenAwait(Duration.ofHours(1))
                .assertNext(r -> {
                    assertThat(r.version()).isEqualTo(2);
                    assertThat(r.attempts()).isEqualTo(4);
                })
                .verifyComplete();
    }

    @Test
    void racingCreatorsOneWins() {
        InMemoryManifestStore mem = new InMemoryManifestStore();
        CommitEngine engine = new CommitEngine(mem, FAST);
        List<Object> outcomes = Flux.range(0, 6)
                .flatMap(i -> engine.commit(Transactions.overwrite(0, List.of(fragment("c" + i, 1)), SCHEMA, Map.of()))
                        .<Object>map(r -> r.version())
                        .onErrorResume(DatasetAlreadyExistsException.class, e -> Mono.just("lost"))
                        .subscribeOn(Schedulers.parallel()))
                .collectList().block(Duration.ofSeconds(30));
        assertThat(outcomes).containsOnlyOnce(1L);
        assertThat(outcomes).filteredOn("lost"::equals).hasSize(5);
    }

    @Test
    void createIndexThenUpdatePrunesItsBitmapThenOverwriteDropsIt() {
        InMemoryManifestStore mem = new InMemoryManifestStore();
        CommitEngine engine = new CommitEngine(mem, FAST);
        create(engine);
        engine.commit(Transactions.append(1, List.of(fragment("b", 5)))).block();
        IndexMetadata idx = IndexMetadata.newBuilder().setName("id_idx").addFields(0).setDatasetVersion(2)
                .setUuid(UUID.newBuilder().setUuid(ByteString.copyFrom(new byte[16])))
                .setFragmentBitmap(bitmap(0, 1)).build();
        CommitResult v3 = engine.commit(Transactions.createIndex(2, List.of(idx), List.of())).block();
        assertThat(v3.manifest().indexSection().getIndicesList()).containsExactly(idx);
        assertThat(v3.manifest().manifest().hasIndexSection()).isTrue();
        assertThat(v3.manifest().manifest().getIndexSection()).isZero();
        // appends keep the index untouched
        CommitResult v4 = engine.commit(Transactions.append(3, List.of(fragment("c", 5)))).block();
        assertThat(v4.manifest().indexSection()).isEqualTo(v3.manifest().indexSection());
        // rewriting column 0 of fragment 1 removes fragment 1 from the index coverage
        DataFragment f1 = v4.manifest().manifest().getFragments(1);
        CommitResult v5 = engine.commit(Transactions.update(4, List.of(), List.of(f1), List.of(), List.of(0))).block();
        assertThat(v5.manifest().indexSection().getIndices(0).getFragmentBitmap()).isEqualTo(bitmap(0));
        // replacing the index by name
        IndexMetadata again = idx.toBuilder().setDatasetVersion(5).setFragmentBitmap(bitmap(0, 1, 2)).build();
        CommitResult v6 = engine.commit(Transactions.createIndex(5, List.of(again), List.of())).block();
        assertThat(v6.manifest().indexSection().getIndicesList()).containsExactly(again);
        CommitResult v7 = engine.commit(Transactions.overwrite(6, List.of(fragment("o", 1)), SCHEMA, Map.of())).block();
        assertThat(v7.manifest().indexSection()).isNull();
        assertThat(v7.manifest().manifest().hasIndexSection()).isFalse();
    }

    /** Appenders and deleters of disjoint rows of one fragment race: every append and every delete survives. */
    @Test
    void concurrentAppendsAndDeletesLoseNothing() {
        InMemoryManifestStore mem = new InMemoryManifestStore();
        CommitEngine engine = new CommitEngine(mem, FAST.withMaxRetries(100));
        create(engine); // fragment 0 has 100 rows
        io.javelin.tx.version.VersionResolver versions = new io.javelin.tx.version.VersionResolver(mem);
        int deleters = 5;
        int appenders = 4;
        Flux<Long> deletes = Flux.range(0, deleters).flatMap(d -> Flux.range(0, 3).concatMap(k -> {
            RoaringBitmap mine = RoaringBitmap.bitmapOf(d * 10 + k);
            return versions.readLatest().flatMap(latest -> {
                DataFragment f0 = latest.manifest().getFragments(0);
                return io.javelin.tx.deletion.DeletionFiles.read(mem, f0)
                        .flatMap(current -> io.javelin.tx.deletion.DeletionFiles.write(mem, 0, latest.version(),
                                RoaringBitmap.or(current, mine)))
                        .flatMap(df -> engine.commit(Transactions.delete(latest.version(),
                                List.of(f0.toBuilder().setDeletionFile(df).build()), List.of(), "id = " + (d * 10 + k))));
            }).map(CommitResult::version);
        }).subscribeOn(Schedulers.parallel()), deleters);
        Flux<Long> appends = Flux.range(0, appenders).flatMap(a -> Flux.range(0, 3).concatMap(k ->
                versions.latest().flatMap(l -> engine.commit(Transactions.append(l.version(), List.of(fragment("a" + a + "-" + k, 3)))))
                        .map(CommitResult::version)).subscribeOn(Schedulers.parallel()), appenders);
        List<Long> all = Flux.merge(deletes, appends).collectList().block(Duration.ofSeconds(60));
        assertThat(all).hasSize((deleters + appenders) * 3).doesNotHaveDuplicates();
        var latest = versions.readLatest().block();
        assertThat(latest.version()).isEqualTo(1 + (deleters + appenders) * 3);
        assertThat(latest.manifest().getFragmentsCount()).isEqualTo(1 + appenders * 3);
        RoaringBitmap expected = new RoaringBitmap();
        for (int d = 0; d < deleters; d++) {
            for (int k = 0; k < 3; k++) {
                expected.add(d * 10 + k);
            }
        }
        DataFragment f0 = latest.manifest().getFragments(0);
        assertThat(f0.getDeletionFile().getNumDeletedRows()).isEqualTo(deleters * 3);
        assertThat(io.javelin.tx.deletion.DeletionFiles.read(mem, f0).block()).isEqualTo(expected);
    }

    static ByteString bitmap(int... ids) {
        RoaringBitmap rb = RoaringBitmap.bitmapOf(ids);
        ByteBuffer buf = ByteBuffer.allocate(rb.serializedSizeInBytes());
        rb.serialize(buf);
        return ByteString.copyFrom(buf.array());
    }
}
