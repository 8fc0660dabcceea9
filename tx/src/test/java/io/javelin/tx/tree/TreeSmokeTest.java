package io.javelin.tx.tree;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.tx.pb.DataFragment;
import java.util.List;
import org.junit.jupiter.api.Test;

class TreeSmokeTest {

    @Test
    void buildOpenListResolve() {
        try (TreeFixture fx = new TreeFixture(TreeFixture.small())) {
            List<DataFragment> frags = TreeFixture.frags(300);
            TreeSnapshot s = fx.build(frags);
            assertThat(s.height()).isGreaterThanOrEqualTo(2);
            assertThat(s.fragmentCount()).isEqualTo(300);
            assertThat(fx.list(s)).isEqualTo(frags);
            assertThat(s.resolve(123).block()).contains(frags.get(123));
            assertThat(s.resolve(300).block()).isEmpty();
        }
    }
}
