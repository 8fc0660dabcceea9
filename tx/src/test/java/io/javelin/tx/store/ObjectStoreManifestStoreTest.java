package io.javelin.tx.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.javelin.encoding.pb.file.Field;
import io.javelin.objectstore.ObjectStore;
import io.javelin.objectstore.OpClass;
import io.javelin.objectstore.ResilientObjectStore;
import io.javelin.objectstore.fault.FaultInjectingObjectStore;
import io.javelin.objectstore.inmemory.InMemoryObjectStore;
import io.javelin.objectstore.throttle.AimdConfig;
import io.javelin.objectstore.throttle.RequestPolicy;
import io.javelin.objectstore.throttle.RetryConfig;
import io.javelin.objectstore.throttle.StoreLimiters;
import io.javelin.tx.Golden;
import io.javelin.tx.Table;
import io.javelin.tx.commit.CommitEngine;
import io.javelin.tx.commit.CommitOptions;
import io.javelin.tx.commit.CommitResult;
import io.javelin.tx.pb.DataFile;
import io.javelin.tx.pb.DataFragment;
import io.javelin.tx.transaction.Transactions;
import io.javelin.tx.version.VersionResolver;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/** The commit machinery on the engine's real ObjectStore (in-memory backend, policy with retries, faults). */
class ObjectStoreManifestStoreTest {

    static final CommitOptions FAST = CommitOptions.defaults().withBackoff(Duration.ofMillis(1), Duration.ofMillis(10));

    static DataFragment fragment(String file) {
        return DataFragment.newBuilder().setPhysicalRows(10).addFiles(DataFile.newBuilder().setPath(file).addFields(0)
                .addColumnIndices(0).setFileMajorVersion(2).setFileMinorVersion(1).setFileSizeBytes(1)).build();
    }

    @Test
    void commitsAndReadsThroughTheObjectStore() {
        InMemoryObjectStore raw = InMemoryObjectStore.createIsolated();
        ManifestStore store = new ObjectStoreManifestStore(raw, "tables/t.lance");
        CommitEngine engine = new CommitEngine(store, FAST);
        engine.commit(Transactions.overwrite(0, List.of(fragment("a.lance")), List.of(Field.newBuilder().setName("x")
                .setParentId(-1).setLogicalType("int64").build()), Map.of())).block();
        long reads = raw.counters().requests(OpClass.READ);
        long writes = raw.counters().requests(OpClass.WRITE);
        CommitResult r = engine.commit(Transactions.append(1, List.of(fragment("b.lance")))).block();
        assertThat(raw.counters().requests(OpClass.READ) - reads).isEqualTo(1);
        assertThat(raw.counters().requests(OpClass.WRITE) - writes).isEqualTo(2);
        assertThat(r.version()).isEqualTo(2);
        assertThat(raw.head("tables/t.lance/" + r.path()).block().size()).isEqualTo(r.manifest().size());
        assertThat(new VersionResolver(store).latest().block().version()).isEqualTo(2);
        assertThat(store.listsInLexicalOrder()).isTrue();
        assertThatThrownBy(() -> store.read("_versions/nope").block()).isInstanceOf(StoreNotFoundException.class);
        assertThatThrownBy(() -> store.putIfAbsent(r.path(), new byte[1]).block()).isInstanceOf(StoreAlreadyExistsException.class);
    }

    @Test
    void goldenDatasetOnTheObjectStore() {
        InMemoryObjectStore raw = InMemoryObjectStore.createIsolated();
        InMemoryManifestStore golden = Golden.store(Golden.VERSIONS_DELETES, true);
        for (String p : golden.paths()) {
            raw.put("g/" + p, golden.peek(p)).block();
        }
        Table t = new Table(new ObjectStoreManifestStore(raw, "g"));
        long lists = raw.counters().requests(OpClass.LIST);
        long reads = raw.counters().requests(OpClass.READ);
        assertThat(t.open().block().countRows()).isEqualTo(9450);
        assertThat(raw.counters().requests(OpClass.LIST) - lists).as("one LIST page finds the latest V2 manifest").isEqualTo(1);
        assertThat(raw.counters().requests(OpClass.READ) - reads).as("one GET reads it").isEqualTo(1);
        assertThat(t.checkout("after_append").block().countRows()).isEqualTo(16000);
        assertThat(t.open().block().verifyDeletions().block()).containsEntry(1L, 5550L);
    }

    @Test
    void lostAcknowledgementOfTheManifestIsResolved() {
        InMemoryObjectStore raw = InMemoryObjectStore.createIsolated();
        FaultInjectingObjectStore faulty = new FaultInjectingObjectStore(raw);
        RetryConfig retry = RetryConfig.DEFAULTS.withBackoff(Duration.ofMillis(1), Duration.ofMillis(5));
        ObjectStore resilient = new ResilientObjectStore(faulty, new RequestPolicy(
                new StoreLimiters("tx-test", AimdConfig.DEFAULTS, Schedulers.parallel()), retry, raw.counters(), Schedulers.parallel()));
        ManifestStore plain = new ObjectStoreManifestStore(resilient, "");
        new CommitEngine(plain, FAST).commit(Transactions.overwrite(0, List.of(fragment("a.lance")), List.of(), Map.of())).block();
        // the next create-if-absent is applied but its response is lost; the policy retries and sees 412
        ManifestStore losing = new DelegatingStore(plain) {
            @Override
            public Mono<Void> putIfAbsent(String path, byte[] bytes) {
                return Mono.defer(() -> {
                    faulty.failNext(OpClass.WRITE, 1, FaultInjectingObjectStore.Fault.LOST_RESPONSE);
                    return super.putIfAbsent(path, bytes);
                });
            }
        };
        CommitResult r = new CommitEngine(losing, FAST).commit(Transactions.append(1, List.of(fragment("b.lance"))))
                .subscribeOn(Schedulers.parallel()).block(Duration.ofSeconds(30));
        assertThat(r.version()).isEqualTo(2);
        assertThat(new VersionResolver(plain).latest().block().version()).isEqualTo(2); // committed exactly once
    }

    /** Forwards everything; tests override single methods. */
    static class DelegatingStore implements ManifestStore {
        private final ManifestStore d;

        DelegatingStore(ManifestStore d) {
            this.d = d;
        }

        @Override
        public Mono<byte[]> read(String path) {
            return d.read(path);
        }

        @Override
        public Mono<Void> put(String path, byte[] bytes) {
            return d.put(path, bytes);
        }

        @Override
        public Mono<Void> putIfAbsent(String path, byte[] bytes) {
            return d.putIfAbsent(path, bytes);
        }

        @Override
        public Flux<StoreEntry> list(String prefix) {
            return d.list(prefix);
        }

        @Override
        public Mono<Void> delete(String path) {
            return d.delete(path);
        }

        @Override
        public boolean listsInLexicalOrder() {
            return d.listsInLexicalOrder();
        }
    }
}
