package io.javelin.index.vector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.javelin.index.RowFilter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The in-place flat kernel equals a naive heap-array search: nulls skipped, filter honoured, NaN never matches. */
class FlatKernelTest {

    static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    @Test
    void batchesMergedEqualNaiveSearch() {
        int dim = 37;
        int rows = 1000;
        Random r = new Random(5);
        float[] q = new float[dim];
        for (int j = 0; j < dim; j++) {
            q[j] = (float) r.nextGaussian();
        }
        for (DistanceType type : List.of(DistanceType.L2, DistanceType.COSINE, DistanceType.DOT)) {
            try (Arena arena = Arena.ofConfined()) {
                List<Neighbor[]> parts = new ArrayList<>();
                List<Neighbor> naive = new ArrayList<>();
                RowFilter odd = a -> (a & 1) == 1;
                for (int b = 0; b < 3; b++) {
                    MemorySegment vec = arena.allocate(4L * dim * rows);
                    MemorySegment addr = arena.allocate(8L * rows);
                    MemorySegment valid = arena.allocate((rows + 7) / 8);
                    float[] heap = new float[dim * rows];
                    for (int i = 0; i < rows; i++) {
                        long a = ((long) b << 32) | i;
                        addr.set(U64, 8L * i, a);
                        boolean present = i % 11 != 0;
                        if (present) {
                            valid.set(ValueLayout.JAVA_BYTE, i >>> 3, (byte) (valid.get(ValueLayout.JAVA_BYTE, i >>> 3) | (1 << (i & 7))));
                        }
                        for (int j = 0; j < dim; j++) {
                            float x = i == 7 && j == 3 ? Float.NaN : (float) r.nextGaussian();
                            heap[i * dim + j] = x;
                            vec.set(F32, 4L * (i * dim + j), x);
                        }
                        float d = type.f32(q, 0, heap, i * dim, dim);
                        if (present && odd.allows(a) && !Float.isNaN(d)) {
                            naive.add(new Neighbor(a, d));
                        }
                    }
                    TopK top = new TopK(10);
                    FlatKernel.offerF32(vec, valid, addr, rows, dim, FlatKernel.querySegment(q), type, odd, top);
                    parts.add(top.sorted());
                }
                naive.sort(Comparator.naturalOrder());
                Neighbor[] got = FlatKernel.merge(10, parts);
                assertThat(Arrays.stream(got).mapToLong(Neighbor::rowId).toArray()).as(type.name())
                        .containsExactly(naive.subList(0, 10).stream().mapToLong(Neighbor::rowId).toArray());
                for (int i = 0; i < 10; i++) {
                    assertThat(got[i].distance()).isCloseTo(naive.get(i).distance(), org.assertj.core.data.Offset.offset(1e-4f));
                }
            }
        }
    }

    @Test
    void shortBuffersAreRejected() {
        MemorySegment small = MemorySegment.ofArray(new byte[16]);
        assertThatThrownBy(() -> FlatKernel.offerF32(small, null, small, 4, 8, FlatKernel.querySegment(new float[8]),
                DistanceType.L2, RowFilter.ALL, new TopK(1))).isInstanceOf(IllegalArgumentException.class);
    }
}
