package io.javelin.tx.tree;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.tx.pb.DataFragment;
import io.javelin.tx.pb.FragmentAction;
import io.javelin.tx.pb.FragmentTreeMetadata;
import io.javelin.tx.pb.FragmentTreeMutation;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Exact I/O counts against the counting store. */
class IoTest {

    /** Leaves of ~16 KiB and fan-out 4: 4096 narrow fragments make a tree of height >= 3. */
    static TreeConfig deep() {
        return TreeConfig.defaults().withLeafBytes(16 << 10).withFanOut(4).withInlineRootBytes(0).withSuffixBytes(2048)
                .withBufferBytes(4096);
    }

    @Test
    void openReadsAtMostTheExternalRootAndNeverLists() {
        try (TreeFixture fx = new TreeFixture(deep())) {
            FragmentTreeMetadata meta = fx.writer.build(TreeFixture.frags(4096), 1).block().metadata();
            assertThat(meta.getTree().hasRootUuid()).isTrue();
            fx.store.resetCounts();
            TreeSnapshot s = fx.open(meta, 4095);
            assertThat(fx.store.counts()).isEqualTo(new MemoryTreeStore.Counts(1, 0, 0, 0,
                    fx.store.count("bytesRead"), 0));
            assertThat(fx.store.readLog().getFirst().path()).startsWith("_bt/root/");
            assertThat(s.fragmentCount()).isEqualTo(4096);
            assertThat(s.height()).isGreaterThanOrEqualTo(3);
            assertThat(fx.store.count("gets")).isEqualTo(1);
        }
        try (TreeFixture fx = new TreeFixture(TreeConfig.defaults())) {
            FragmentTreeMetadata meta = fx.writer.build(TreeFixture.frags(100), 1).block().metadata();
            assertThat(meta.getTree().hasInlineRoot()).isTrue();
            fx.store.resetCounts();
            assertThat(fx.open(meta, 99).totalRows()).isPositive();
            assertThat(fx.store.counts().reads()).isZero();
        }
    }

    @Test
    void appendUnderADeepTreeReadsNothing() {
        try (TreeFixture fx = new TreeFixture(deep())) {
            TreeSnapshot s = fx.build(TreeFixture.frags(4096));
            assertThat(s.height()).isGreaterThanOrEqualTo(3);
            fx.store.resetCounts();
            TreeWriter.Result r = fx.writer.commit(s, List.of(new FragmentEdit.Create(TreeFixture.frag(4096, 10, 1))),
                    4096).block();
            assertThat(fx.store.counts().reads()).isZero();
            assertThat(r.written()).isEmpty();
            assertThat(r.metadata().getTree().getRootUuid()).isEqualTo(s.metadata().getTree().getRootUuid());
            assertThat(r.metadata().getTree().getMutationsSinceRootCount()).isEqualTo(1);
        }
        // Without a suffix the root is rewritten, still without reading anything.
        try (TreeFixture fx = new TreeFixture(deep().withSuffixBytes(0))) {
            TreeSnapshot s = fx.build(TreeFixture.frags(4096));
            fx.store.resetCounts();
            TreeWriter.Result r = fx.writer.commit(s, List.of(new FragmentEdit.Create(TreeFixture.frag(4096, 10, 1))),
                    4096).block();
            assertThat(fx.store.counts().reads()).isZero();
            assertThat(r.written()).singleElement().extracting(ObjectLocation::path).asString().startsWith("_bt/root/");
            assertThat(fx.open(r.metadata(), 4096).resolve(4096).block()).contains(TreeFixture.frag(4096, 10, 1));
        }
    }

    @Test
    void aWarmSessionChainsCommitsWithoutReading() {
        try (TreeFixture fx = new TreeFixture(deep())) {
            List<DataFragment> model = new ArrayList<>(TreeFixture.frags(4096));
            TreeSnapshot s = fx.build(model);
            fx.store.resetCounts();
            long max = 4095;
            int roots = 0;
            int drains = 0;
            for (int i = 0; i < 200; i++) {
                DataFragment f = TreeFixture.frag(++max, 10, 1);
                model.add(f);
                long before = fx.store.counts().reads();
                TreeWriter.Result r = fx.writer.commit(s, List.of(new FragmentEdit.Create(f)), max).block();
                roots += (int) r.written().stream().filter(l -> l.path().startsWith("_bt/root/")).count();
                boolean drained = r.written().stream().anyMatch(l -> !l.path().startsWith("_bt/root/"));
                drains += drained ? 1 : 0;
                if (!drained) {
                    assertThat(fx.store.counts().reads()).as("reads of append %d", i).isEqualTo(before);
                }
                s = r.snapshot(fx.env, fx.datasets, max);
            }
            assertThat(roots).isGreaterThan(drains);
            // A drain reads the rewritten path (no node cache yet): at most height objects.
            assertThat(fx.store.counts().reads()).isLessThanOrEqualTo((long) drains * s.height());
            assertThat(fx.list(s)).isEqualTo(model);
        }
    }

    @Test
    void deletingOneRowAt4096FragmentsReadsOnlyItsRoutingPath() {
        try (TreeFixture fx = new TreeFixture(deep())) {
            List<DataFragment> frags = TreeFixture.frags(4096);
            TreeSnapshot s = fx.build(frags);
            int height = s.height();
            assertThat(height).isGreaterThanOrEqualTo(3);
            fx.store.resetCounts();
            DataFragment target = TreeFixture.withDeletes(frags.get(2345), 1, 1);
            TreeWriter.Result r = fx.writer.commit(s, List.of(new FragmentEdit.Put(target)), 4095).block();
            List<ObjectLocation> reads = fx.store.readLog();
            assertThat(reads).hasSize(height).doesNotHaveDuplicates();
            assertThat(reads.subList(0, height - 1)).allMatch(l -> l.path().startsWith("_bt/node/"));
            assertThat(reads.getLast().path()).startsWith("_bt/leaf/");
            assertThat(r.written()).isEmpty();
            FragmentTreeMutation m = r.mutations().getFirst();
            assertThat(r.mutations()).hasSize(1);
            assertThat(m.getAction().getActionCase()).isEqualTo(FragmentAction.ActionCase.ADD_DELETION_FILE);
            assertThat(List.of(m.getFragmentCountDelta(), m.getTotalRowsDelta(), m.getVisibleRowsDelta()))
                    .containsExactly(0L, 0L, -1L);
            TreeSnapshot after = fx.open(r.metadata(), 4095);
            fx.store.resetCounts();
            assertThat(after.resolve(2345).block()).contains(target);
            assertThat(fx.store.readLog()).isEqualTo(reads);
            assertThat(after.visibleRows()).isEqualTo(s.visibleRows() - 1);
        }
    }

    @Test
    void listingReadsEveryObjectExactlyOnce() {
        try (TreeFixture fx = new TreeFixture(deep())) {
            List<DataFragment> frags = TreeFixture.frags(4096);
            TreeSnapshot s = fx.build(frags);
            Set<ObjectLocation> objects = new HashSet<>(s.treeObjects().block());
            fx.store.resetCounts();
            assertThat(fx.list(s)).isEqualTo(frags);
            List<ObjectLocation> reads = fx.store.readLog();
            assertThat(reads).doesNotHaveDuplicates();
            objects.removeIf(l -> l.path().startsWith("_bt/root/"));
            assertThat(new HashSet<>(reads)).isEqualTo(objects);
            assertThat(fx.store.count("lists")).isZero();
        }
    }

    @Test
    void restoreReusesTheRestoredRootAndWritesNothing() {
        try (TreeFixture fx = new TreeFixture(deep().withSuffixBytes(0))) {
            List<DataFragment> frags = TreeFixture.frags(500);
            TreeSnapshot v1 = fx.build(frags);
            TreeSnapshot v2 = fx.open(fx.writer.commit(v1, List.of(new FragmentEdit.Remove(7)), 499).block().metadata(), 499);
            fx.store.resetCounts();
            int before = fx.store.size();
            FragmentTreeMetadata restored = TreeWriter.restore(v2, v1.metadata());
            assertThat(fx.store.size()).isEqualTo(before);
            assertThat(restored.getTree().getRootUuid()).isEqualTo(v1.metadata().getTree().getRootUuid());
            assertThat(restored.getTree().getNextActionSequence()).isEqualTo(v2.metadata().getTree().getNextActionSequence());
            TreeSnapshot v3 = fx.open(restored, 499);
            assertThat(fx.list(v3)).isEqualTo(frags);
            // The restored version keeps allocating fresh sequences.
            TreeWriter.Result r = fx.writer.commit(v3, List.of(new FragmentEdit.Remove(8)), 499).block();
            assertThat(r.mutations().getFirst().getActionSequence()).isGreaterThanOrEqualTo(
                    v2.metadata().getTree().getNextActionSequence());
            assertThat(fx.open(r.metadata(), 499).fragmentCount()).isEqualTo(499);
        }
    }

    @Test
    void conversionFromAFlatListWritesOnlyTreeObjectsAndIsDurableFirst() {
        try (TreeFixture fx = new TreeFixture(deep())) {
            TreeWriter.Result r = fx.writer.build(TreeFixture.frags(4096), 1).block();
            assertThat(r.written()).allMatch(l -> l.path().startsWith("_bt/") && l.dataset().isEmpty());
            assertThat(new HashSet<>(fx.store.locations())).containsAll(r.written());
            TreeSnapshot s = fx.open(r.metadata(), 4095);
            assertThat(s.treeObjects().block()).containsExactlyInAnyOrderElementsOf(r.written());
            assertThat(r.bytesWritten()).isEqualTo(fx.store.count("bytesWritten"));
        }
    }

    @Test
    void suffixStaysWithinBudgetAndPressureWritesExternalRoots() {
        try (TreeFixture fx = new TreeFixture(deep())) {
            List<DataFragment> model = new ArrayList<>(TreeFixture.frags(512));
            TreeSnapshot s = fx.build(model);
            List<FragmentTreeMetadata> versions = new ArrayList<>();
            Set<String> roots = new HashSet<>();
            for (int i = 0; i < 80; i++) {
                DataFragment f = TreeFixture.frag(512 + i, 10, 1);
                model.add(f);
                FragmentTreeMetadata m = fx.writer.commit(s, List.of(new FragmentEdit.Create(f)), 512 + i).block()
                        .metadata();
                int suffixBytes = 0;
                for (FragmentTreeMutation x : m.getTree().getMutationsSinceRootList()) {
                    suffixBytes += x.getSerializedSize() + 3;
                }
                assertThat(suffixBytes).isLessThanOrEqualTo(2048);
                roots.add(m.getTree().getRootUuid().toStringUtf8());
                versions.add(m);
                s = fx.open(m, 512 + i);
            }
            assertThat(roots).hasSizeGreaterThan(1);
            for (int i = 0; i < versions.size(); i++) {
                assertThat(fx.open(versions.get(i), 512 + i).fragmentCount()).isEqualTo(513 + i);
            }
            assertThat(fx.list(s)).isEqualTo(model);
        }
    }

    @Test
    void pendingFilesAreReachableAndSupersededOnesAreNot() {
        try (TreeFixture fx = new TreeFixture(TreeConfig.defaults())) {
            TreeSnapshot s = fx.build(TreeFixture.frags(10));
            FragmentTreeMetadata m = fx.writer.commit(s, List.of(
                    new FragmentEdit.AddFile(3, TreeFixture.file("pending.lance", 3)),
                    new FragmentEdit.AddFile(4, TreeFixture.file("old.lance", 3)),
                    new FragmentEdit.ReplaceFile(4, "old.lance", "new.lance", 9, null),
                    new FragmentEdit.Put(TreeFixture.frags(10).get(5).toBuilder().setExternalRowIds(
                            io.javelin.tx.pb.ExternalFile.newBuilder().setPath("_rows/5.bin").setSize(4)).build())), 9)
                    .block().metadata();
            Set<ObjectLocation> files = fx.open(m, 9).referencedFiles().block();
            assertThat(files).contains(new ObjectLocation("", "data/pending.lance"), new ObjectLocation("", "data/new.lance"),
                    new ObjectLocation("", "_rows/5.bin"))
                    .doesNotContain(new ObjectLocation("", "data/old.lance"));
        }
    }
}
