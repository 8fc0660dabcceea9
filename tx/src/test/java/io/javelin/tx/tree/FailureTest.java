package io.javelin.tx.tree;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.javelin.tx.pb.DataFragment;
import io.javelin.tx.pb.FragmentTreeMetadata;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** A failed write publishes nothing, leaves the base version intact, and the next attempt succeeds. */
class FailureTest {

    /** Fails the n-th put (1-based) once; records the order of completed puts. */
    static final class FailingStore implements TreeStore {
        final MemoryTreeStore delegate;
        final AtomicInteger puts = new AtomicInteger();
        volatile int failAt;
        final List<String> completed = new java.util.concurrent.CopyOnWriteArrayList<>();

        FailingStore(MemoryTreeStore delegate) {
            this.delegate = delegate;
        }

        @Override
        public Mono<Void> put(ObjectLocation location, byte[] bytes) {
            return Mono.defer(() -> {
                if (puts.incrementAndGet() == failAt) {
                    return Mono.error(new IllegalStateException("injected put failure"));
                }
                return delegate.put(location, bytes).doOnSuccess(v -> completed.add(location.path()));
            });
        }

        @Override
        public Mono<byte[]> get(ObjectLocation location) {
            return delegate.get(location);
        }

        @Override
        public Mono<byte[]> getRange(ObjectLocation location, long offset, int length) {
            return delegate.getRange(location, offset, length);
        }

        @Override
        public Flux<ObjectLocation> list(String dataset, String prefix) {
            return delegate.list(dataset, prefix);
        }
    }

    @Test
    void failedPutsPublishNothingAndTheRetrySucceeds() {
        try (TreeFixture fx = new TreeFixture(IoTest.deep().withSuffixBytes(0).withBufferBytes(300))) {
            FailingStore store = new FailingStore(fx.store);
            TreeEnv env = new TreeEnv(store, fx.env.codec(), fx.allocator, fx.config);
            TreeWriter writer = new TreeWriter(env);
            List<DataFragment> frags = TreeFixture.frags(2000);
            FragmentTreeMetadata meta = writer.build(frags, 1).block().metadata();
            TreeSnapshot base = TreeSnapshot.open(env, meta, fx.datasets, 1999).block();
            List<FragmentEdit> edits = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                edits.add(new FragmentEdit.Remove(i * 7));
            }
            for (int failAt = 1; failAt <= 3; failAt++) {
                store.puts.set(0);
                store.failAt = failAt;
                assertThatThrownBy(() -> writer.commit(base, edits, 1999).block()).hasMessageContaining("injected");
                assertThat(fx.list(base)).isEqualTo(frags);
            }
            store.failAt = 0;
            store.completed.clear();
            TreeWriter.Result r = writer.commit(base, edits, 1999).block();
            assertThat(r.written()).isNotEmpty();
            // The root is written last: it names every other new object.
            assertThat(store.completed.getLast()).startsWith("_bt/root/");
            TreeSnapshot next = TreeSnapshot.open(env, r.metadata(), fx.datasets, 1999).block();
            assertThat(next.fragmentCount()).isEqualTo(1960);
        }
    }
}
