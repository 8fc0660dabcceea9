package io.javelin.index.vector;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.index.DeletionMask;
import io.javelin.index.RowFilter;
import io.javelin.index.rowid.RowAddrTreeMap;
import io.javelin.objectstore.memory.OffHeap;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.roaringbitmap.RoaringBitmap;

class FlatSearchTest {

    static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    @Test
    void offHeapSearchOverEveryElementTypeMatchesBruteForceAndHonoursDeletions() {
        int n = 2000, dim = 37;
        Random rnd = new Random(5);
        try (Arena arena = OffHeap.newArena("flat-search-test")) {
            MemorySegment f32 = arena.allocate(4L * n * dim), f16 = arena.allocate(2L * n * dim), u8 = arena.allocate((long) n * dim);
            MemorySegment q32 = arena.allocate(4L * dim), q16 = arena.allocate(2L * dim), q8 = arena.allocate(dim);
            float[] heap = new float[n * dim];
            long[] rows = new long[n];
            for (int i = 0; i < n; i++) {
                rows[i] = RowAddrTreeMap.address(i % 3, i / 3);
                for (int d = 0; d < dim; d++) {
                    float x = (float) rnd.nextGaussian();
                    heap[i * dim + d] = x;
                    f32.setAtIndex(F32, (long) i * dim + d, x);
                    f16.setAtIndex(U16, (long) i * dim + d, Float.floatToFloat16(x));
                    u8.set(ValueLayout.JAVA_BYTE, (long) i * dim + d, (byte) rnd.nextInt(256));
                }
            }
            float[] q = new float[dim];
            for (int d = 0; d < dim; d++) {
                q[d] = (float) rnd.nextGaussian();
                q32.setAtIndex(F32, d, q[d]);
                q16.setAtIndex(U16, d, Float.floatToFloat16(q[d]));
                q8.set(ValueLayout.JAVA_BYTE, d, (byte) rnd.nextInt(256));
            }
            DeletionMask deleted = new DeletionMask(Map.of(1, RoaringBitmap.bitmapOf(0, 1, 2, 3, 4, 5)),
                    RoaringBitmap.bitmapOf(0, 1, 2), RoaringBitmap.bitmapOf(0, 1)); // fragment 2 is gone
            RowFilter live = RowFilter.ALL.without(deleted);
            for (DistanceType t : new DistanceType[] {DistanceType.L2, DistanceType.COSINE, DistanceType.DOT}) {
                Neighbor[] got = FlatSearch.search(f32, 0, rows, dim, FlatSearch.ElementType.F32, q32, 10, t, live);
                Neighbor[] want = IvfIndex.flatSearch(heap, rows, dim, q, 10, t, live);
                assertThat(Arrays.stream(got).mapToLong(Neighbor::rowId).toArray())
                        .containsExactly(Arrays.stream(want).mapToLong(Neighbor::rowId).toArray());
                assertThat(got).allMatch(nb -> RowAddrTreeMap.fragment(nb.rowId()) != 2);
                Neighbor[] half = FlatSearch.search(f16, 0, rows, dim, FlatSearch.ElementType.F16, q16, 10, t, live);
                assertThat(SyntheticVectors.recall(want, half)).isGreaterThanOrEqualTo(0.8);
            }
            Neighbor[] ham = FlatSearch.search(u8, 0, rows, dim, FlatSearch.ElementType.U8, q8, 5, DistanceType.HAMMING, RowFilter.ALL);
            for (Neighbor nb : ham) {
                int i = (int) ((nb.rowId() & 0xFFFFFFFFL) * 3 + RowAddrTreeMap.fragment(nb.rowId()));
                long bits = 0;
                for (int d = 0; d < dim; d++) {
                    bits += Integer.bitCount((u8.get(ValueLayout.JAVA_BYTE, (long) i * dim + d) ^ q8.get(ValueLayout.JAVA_BYTE, d)) & 0xFF);
                }
                assertThat(nb.distance()).isEqualTo((float) bits);
            }
            assertThat(deleted.apply(RowAddrTreeMap.of(RowAddrTreeMap.address(1, 3), RowAddrTreeMap.address(1, 9), RowAddrTreeMap.address(2, 1))).toArray())
                    .containsExactly(RowAddrTreeMap.address(1, 9));
        }
    }
}
