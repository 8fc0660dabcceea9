package io.javelin.tx.tree;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class TreeConfigTest {

    @Test
    void readsUpstreamKeysAndOurFanOut() {
        TreeConfig c = TreeConfig.fromTableConfig(Map.of("lance.fragment_metadata.max_leaf_bytes", "4096",
                "lance.fragment_metadata.publication_suffix_budget", "0",
                "lance.fragment_metadata.materialization", "buffered",
                "javelin.fragment_metadata.max_children_per_node", "64", "lance.auto_cleanup.interval", "20"));
        assertThat(c.maxLeafBytes()).isEqualTo(4096);
        assertThat(c.suffixBytes()).isZero();
        assertThat(c.fanOut()).isEqualTo(64);
        assertThat(c.maxNodeBytes()).isEqualTo(TreeConfig.defaults().maxNodeBytes());
    }

    @Test
    void rejectsUnknownKeysAndBadValues() {
        assertThatThrownBy(() -> TreeConfig.fromTableConfig(Map.of("lance.fragment_metadata.max_leaf_byte", "1")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unknown");
        assertThatThrownBy(() -> TreeConfig.fromTableConfig(Map.of("lance.fragment_metadata.max_leaf_bytes", "x")))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> TreeConfig.fromTableConfig(Map.of(TreeConfig.FAN_OUT_KEY, "2")))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
