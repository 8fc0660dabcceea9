package io.javelin.engine.index;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.engine.filter.Expr;
import io.javelin.engine.filter.FilterParser;
import io.javelin.index.scalar.SargableQuery;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code x >= a AND x < b} becomes one index range search, not two half-column searches intersected. */
class RangeFusionTest {

    private static List<Object> fuse(String filter) {
        List<Expr> conj = new ArrayList<>();
        flatten(FilterParser.parse(filter), conj);
        return ScalarIndexScan.fuseRanges(conj);
    }

    private static void flatten(Expr e, List<Expr> out) {
        if (e instanceof Expr.And a) {
            flatten(a.left(), out);
            flatten(a.right(), out);
        } else {
            out.add(e);
        }
    }

    @Test
    void lowerAndUpperBoundOnOneColumnFuse() {
        List<Object> parts = fuse("id >= 500000 AND cat = 'k1' AND id < 500100");
        assertThat(parts).hasSize(2);
        assertThat(parts.get(0)).isInstanceOf(ScalarIndexScan.Leaf.class);
        ScalarIndexScan.Leaf leaf = (ScalarIndexScan.Leaf) parts.get(0);
        assertThat(leaf.column()).isEqualTo("id");
        SargableQuery.Range r = (SargableQuery.Range) leaf.query();
        assertThat(((Number) r.lo()).longValue()).isEqualTo(500000L);
        assertThat(r.loInclusive()).isTrue();
        assertThat(((Number) r.hi()).longValue()).isEqualTo(500100L);
        assertThat(r.hiInclusive()).isFalse();
        assertThat(parts.get(1)).isInstanceOf(Expr.class);
    }

    @Test
    void boundsOnDifferentColumnsOrSameSideStayApart() {
        assertThat(fuse("a > 1 AND b < 2")).hasSize(2).allMatch(p -> p instanceof Expr);
        assertThat(fuse("a > 1 AND a > 2")).hasSize(2).allMatch(p -> p instanceof Expr);
        // reversed literal/column order is still a bound on the column
        List<Object> parts = fuse("10 > a AND a >= 3");
        assertThat(parts).hasSize(1);
        SargableQuery.Range r = (SargableQuery.Range) ((ScalarIndexScan.Leaf) parts.get(0)).query();
        assertThat(((Number) r.lo()).longValue()).isEqualTo(3L);
        assertThat(((Number) r.hi()).longValue()).isEqualTo(10L);
    }
}
