package io.javelin.index.rowid;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.javelin.index.CorruptIndexException;
import java.util.HexFormat;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class RowAddrTreeMapTest {

    @Test
    void lanceBytesMatchTheGoldenFragmentBitmapFraming() {
        // golden/indexed fragment_bitmap {0,1} is the portable bitmap 3a30000001000000000001001000000000000100
        RowAddrTreeMap m = RowAddrTreeMap.of(RowAddrTreeMap.address(7, 0), RowAddrTreeMap.address(7, 1));
        byte[] bytes = m.serialize();
        assertThat(HexFormat.of().formatHex(bytes))
                .isEqualTo("01000000" + "07000000" + "14000000" + "3a30000001000000000001001000000000000100");
        assertThat(RowAddrTreeMap.deserialize(bytes, "t")).isEqualTo(m);
    }

    @Test
    void wholeFragmentsUseSizeZero() {
        RowAddrTreeMap m = new RowAddrTreeMap();
        m.addFullFragment(3);
        m.add(RowAddrTreeMap.address(5, 9));
        byte[] bytes = m.serialize();
        assertThat(HexFormat.of().formatHex(bytes, 0, 16)).isEqualTo("02000000" + "03000000" + "00000000" + "05000000");
        RowAddrTreeMap back = RowAddrTreeMap.deserialize(bytes, "t");
        assertThat(back.contains(RowAddrTreeMap.address(3, 123456))).isTrue();
        assertThat(back.contains(RowAddrTreeMap.address(5, 9))).isTrue();
        assertThat(back.contains(RowAddrTreeMap.address(5, 8))).isFalse();
        assertThat(back.cardinality()).isEqualTo(-1);
        assertThat(RowAddrTreeMap.and(back, RowAddrTreeMap.of(RowAddrTreeMap.address(3, 4))).toArray())
                .containsExactly(RowAddrTreeMap.address(3, 4));
    }

    @Test
    void setAlgebraMatchesJavaSets() {
        Random rnd = new Random(1);
        for (int round = 0; round < 50; round++) {
            TreeSet<Long> a = new TreeSet<>(), b = new TreeSet<>();
            RowAddrTreeMap ma = new RowAddrTreeMap(), mb = new RowAddrTreeMap();
            for (int i = 0; i < 200; i++) {
                long x = RowAddrTreeMap.address(rnd.nextInt(4), rnd.nextInt(1000));
                long y = RowAddrTreeMap.address(rnd.nextInt(4), rnd.nextInt(1000));
                a.add(x);
                ma.add(x);
                b.add(y);
                mb.add(y);
            }
            TreeSet<Long> and = new TreeSet<>(a), or = new TreeSet<>(a), not = new TreeSet<>(a);
            and.retainAll(b);
            or.addAll(b);
            not.removeAll(b);
            assertThat(RowAddrTreeMap.and(ma, mb).toArray()).containsExactly(and.stream().mapToLong(Long::longValue).toArray());
            assertThat(RowAddrTreeMap.or(ma, mb).toArray()).containsExactly(or.stream().mapToLong(Long::longValue).toArray());
            assertThat(RowAddrTreeMap.andNot(ma, mb).toArray()).containsExactly(not.stream().mapToLong(Long::longValue).toArray());
            assertThat(RowAddrTreeMap.deserialize(ma.serialize(), "t")).isEqualTo(ma);
            assertThat(RowAddrTreeMap.deserializeTreemap(ma.serializeTreemap(), "t").toArray()).containsExactly(ma.toArray());
        }
    }

    @Test
    void treemapBytesAreRoaringRsFormat() {
        RowAddrTreeMap m = RowAddrTreeMap.of(RowAddrTreeMap.address(1, 0), RowAddrTreeMap.address(1, 1));
        assertThat(HexFormat.of().formatHex(m.serializeTreemap()))
                .isEqualTo("0100000000000000" + "01000000" + "3a30000001000000000001001000000000000100");
    }

    @Test
    void garbageIsACorruptIndexExceptionNeverAWrongSet() {
        Random rnd = new Random(2);
        byte[] good = RowAddrTreeMap.of(1, 2, 3, RowAddrTreeMap.address(2, 77)).serialize();
        for (int i = 0; i < 500; i++) {
            byte[] bad = good.clone();
            int cut = rnd.nextInt(good.length);
            if (i % 2 == 0) {
                bad = java.util.Arrays.copyOf(bad, cut);
            } else {
                bad[cut] ^= (byte) (1 << rnd.nextInt(8));
            }
            try {
                RowAddrTreeMap m = RowAddrTreeMap.deserialize(bad, "fuzz");
                // a flip that still parses must have changed only set contents, which is all a bitmap can say
                assertThat(m).isNotNull();
            } catch (CorruptIndexException expected) {
                assertThat(expected.resource()).isEqualTo("fuzz");
            }
        }
        assertThatThrownBy(() -> RowAddrTreeMap.deserialize(new byte[] {5, 0, 0, 0}, "r"))
                .isInstanceOf(CorruptIndexException.class).hasMessageContaining("claims 5 fragments");
    }

    @Test
    void resultAlgebra() {
        RowAddrTreeMap a = RowAddrTreeMap.of(1, 2, 3), b = RowAddrTreeMap.of(2, 3, 4);
        assertThat(SearchResult.and(new SearchResult.Exact(a), new SearchResult.Exact(b))).isInstanceOf(SearchResult.Exact.class);
        assertThat(SearchResult.and(new SearchResult.Exact(a), new SearchResult.AtMost(b))).isInstanceOf(SearchResult.AtMost.class);
        assertThat(SearchResult.or(new SearchResult.AtMost(a), new SearchResult.Exact(b)).rows().toArray()).containsExactly(1, 2, 3, 4);
        assertThat(SearchResult.and(new SearchResult.AtLeast(a), new SearchResult.AtMost(b))).isEqualTo(new SearchResult.AtMost(b));
    }
}
