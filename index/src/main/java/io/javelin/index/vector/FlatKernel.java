package io.javelin.index.vector;

import io.javelin.index.RowFilter;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Exact-search inner loop over one decoded batch of f32 vectors in place (an Arrow fixed-size-list item
 * buffer, off-heap): the query is compared with every allowed, non-null row through the SIMD distance
 * kernels and the survivors go into a bounded {@link TopK}. No per-row allocation or copy; a batch's
 * heap is merged with the others' afterwards ({@link #merge}). Synchronous, no validation beyond one
 * bounds check per batch.
 */
public final class FlatKernel {

    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private FlatKernel() {
    }

    /**
     * @param vectors   {@code rows × dim} little-endian f32, row-major
     * @param validity  Arrow validity bitmap of the rows (bit i set = row i present), or null when none is null
     * @param rowAddrs  {@code rows} little-endian u64 row addresses (the batch's {@code _rowaddr} buffer)
     * @param query     {@code dim} f32 (heap or off-heap segment)
     * @param filter    rows to consider ({@link RowFilter#ALL} for none)
     */
    public static void offerF32(MemorySegment vectors, MemorySegment validity, MemorySegment rowAddrs, int rows, int dim,
                                MemorySegment query, DistanceType type, RowFilter filter, TopK top) {
        long stride = 4L * dim;
        if (vectors.byteSize() < stride * rows || rowAddrs.byteSize() < 8L * rows
                || (validity != null && validity.byteSize() < (rows + 7) / 8)) {
            throw new IllegalArgumentException("Batch buffers too small for " + rows + " vectors of " + dim);
        }
        boolean all = filter == RowFilter.ALL;
        for (int i = 0; i < rows; i++) {
            if (validity != null && (validity.get(ValueLayout.JAVA_BYTE, i >>> 3) & (1 << (i & 7))) == 0) {
                continue;
            }
            long addr = rowAddrs.get(U64, 8L * i);
            if (!all && !filter.allows(addr)) {
                continue;
            }
            float d = type.f32(query, 0, vectors, i * stride, dim);
            if (!Float.isNaN(d)) { // a NaN component never matches, as in Lance
                top.offer(addr, d);
            }
        }
    }

    /** The best {@code k} of several per-batch results (each sorted or not). */
    public static Neighbor[] merge(int k, Iterable<Neighbor[]> parts) {
        TopK top = new TopK(k);
        for (Neighbor[] p : parts) {
            for (Neighbor n : p) {
                top.offer(n.rowId(), n.distance());
            }
        }
        return top.sorted();
    }

    /** The query as a segment the kernels read (byte[]-backed: the Vector API loads from heap segments of bytes). */
    public static MemorySegment querySegment(float[] q) {
        MemorySegment s = MemorySegment.ofArray(new byte[4 * q.length]);
        for (int i = 0; i < q.length; i++) {
            s.set(ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), 4L * i, q[i]);
        }
        return s;
    }
}
