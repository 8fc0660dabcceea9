package io.javelin.tx.tree;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.tx.pb.DataFragment;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Extreme commits: one huge append, removing everything, and growing back from empty. */
class WriterShapeTest {

    @Test
    void hugeAppendGrowsLevelsAndRemovingEverythingShrinksToAnEmptyRoot() {
        try (TreeFixture fx = new TreeFixture(IoTest.deep().withSuffixBytes(0))) {
            List<DataFragment> model = new ArrayList<>(TreeFixture.frags(100));
            TreeSnapshot s = fx.build(model);
            assertThat(s.height()).isEqualTo(1);
            List<FragmentEdit> edits = new ArrayList<>();
            for (int i = 100; i < 6000; i++) {
                DataFragment f = TreeFixture.frag(i, 7, 1);
                model.add(f);
                edits.add(new FragmentEdit.Create(f));
            }
            s = fx.open(fx.writer.commit(s, edits, 5999).block().metadata(), 5999);
            assertThat(s.height()).isGreaterThanOrEqualTo(3);
            assertThat(fx.list(s)).isEqualTo(model);

            List<FragmentEdit> removeAll = new ArrayList<>();
            for (long i = 0; i < 6000; i++) {
                removeAll.add(new FragmentEdit.Remove(i));
            }
            s = fx.open(fx.writer.commit(s, removeAll, 5999).block().metadata(), 5999);
            assertThat(s.fragmentCount()).isZero();
            assertThat(s.height()).as("collapsed; remaining removals may stay buffered").isLessThanOrEqualTo(1);
            assertThat(fx.list(s)).isEmpty();
            assertThat(s.resolve(17).block()).isEmpty();

            DataFragment again = TreeFixture.frag(6000, 3, 1);
            s = fx.open(fx.writer.commit(s, List.of(new FragmentEdit.Create(again)), 6000).block().metadata(), 6000);
            assertThat(fx.list(s)).containsExactly(again);
        }
    }

    @Test
    void oversizedRecordGetsALeafOfItsOwn() {
        try (TreeFixture fx = new TreeFixture(TreeFixture.small().withLeafBytes(300))) {
            List<DataFragment> frags = List.of(TreeFixture.frag(0, 1, 1), TreeFixture.frag(1, 1, 40),
                    TreeFixture.frag(2, 1, 1));
            TreeSnapshot s = fx.build(frags);
            assertThat(fx.list(s)).isEqualTo(frags);
            assertThat(s.treeObjects().block()).filteredOn(l -> l.path().startsWith("_bt/leaf/")).hasSize(3);
        }
    }
}
