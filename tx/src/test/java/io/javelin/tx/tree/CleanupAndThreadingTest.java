package io.javelin.tx.tree;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.tx.pb.DataFragment;
import io.javelin.tx.pb.FragmentTreeMetadata;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

class CleanupAndThreadingTest {

    @Test
    void unreachableObjectsAreThoseNoRetainedVersionNames() {
        try (TreeFixture fx = new TreeFixture(IoTest.deep().withSuffixBytes(0).withBufferBytes(600))) {
            List<DataFragment> frags = TreeFixture.frags(1000);
            TreeSnapshot s = fx.build(frags);
            List<TreeSnapshot> versions = new ArrayList<>(List.of(s));
            for (int i = 0; i < 30; i++) {
                DataFragment g = TreeFixture.withDeletes(frags.get(i * 31), 1, i);
                s = fx.open(fx.writer.commit(s, List.of(new FragmentEdit.Put(g)), 999).block().metadata(), 999);
                versions.add(s);
            }
            Set<ObjectLocation> all = new HashSet<>(fx.store.locations());
            Set<ObjectLocation> keepLatest = TreeCleanup.reachable(List.of(s)).block();
            Set<ObjectLocation> orphans = TreeCleanup.unreachable(fx.store, List.of(s)).block();
            assertThat(orphans).isNotEmpty().doesNotContainAnyElementsOf(keepLatest);
            Set<ObjectLocation> union = new HashSet<>(orphans);
            union.addAll(keepLatest);
            assertThat(union).isEqualTo(all);
            // Retaining every version keeps every object this test wrote.
            assertThat(TreeCleanup.unreachable(fx.store, versions).block()).isEmpty();
            // Deleting the orphans leaves the latest version fully readable.
            for (ObjectLocation l : orphans) {
                fx.store.tamper(l, new byte[0]);
            }
            assertThat(fx.list(s)).hasSize(1000);
        }
    }

    @Test
    void readsAndWritesRunOnNonBlockingThreads() {
        try (TreeFixture fx = new TreeFixture(IoTest.deep().withSuffixBytes(0))) {
            FragmentTreeMetadata meta = fx.writer.build(TreeFixture.frags(2000), 1).subscribeOn(Schedulers.parallel())
                    .block().metadata();
            List<DataFragment> listed = TreeSnapshot.open(fx.env, meta, fx.datasets, 1999)
                    .subscribeOn(Schedulers.parallel())
                    .flatMapMany(TreeSnapshot::fragments).collectList().block();
            assertThat(listed).isEqualTo(TreeFixture.frags(2000));
            FragmentTreeMetadata next = TreeSnapshot.open(fx.env, meta, fx.datasets, 1999)
                    .flatMap(s -> fx.writer.commit(s, List.of(new FragmentEdit.Remove(5)), 1999))
                    .subscribeOn(Schedulers.parallel()).block().metadata();
            assertThat(Mono.defer(() -> TreeSnapshot.open(fx.env, next, fx.datasets, 1999))
                    .flatMap(s -> s.resolve(5)).subscribeOn(Schedulers.parallel()).block()).isEmpty();
        }
    }
}
