package io.javelin.index.vector;

import io.javelin.index.RowFilter;
import io.javelin.index.kernel.DistanceKernels;
import java.lang.foreign.MemorySegment;

/**
 * Exact kNN over vectors in a {@link MemorySegment} (off-heap Arrow data of unindexed fragments, or
 * an IVF_FLAT partition): row-major, element type f32/f16/bf16/u8. The query has the same element
 * type. Results are nearest first, ties by row id, with Lance's {@code _distance}.
 */
public final class FlatSearch {

    /** Vector element types Lance supports for search. */
    public enum ElementType {
        F32(4), F16(2), BF16(2), U8(1);

        final int bytes;

        ElementType(int bytes) {
            this.bytes = bytes;
        }

        public int bytes() {
            return bytes;
        }
    }

    private FlatSearch() {
    }

    /** Distance between a query and the vector at byte offset {@code off}. */
    public static float distance(DistanceType t, ElementType e, MemorySegment q, MemorySegment v, long off, int dim) {
        DistanceKernels k = DistanceKernels.get();
        return switch (e) {
            case F32 -> t.f32(q, 0, v, off, dim);
            case U8 -> t.u8(q, 0, v, off, dim);
            case F16 -> switch (t) {
                case L2 -> k.l2F16(q, 0, v, off, dim);
                case COSINE -> k.cosineF16(q, 0, v, off, dim);
                case DOT -> 1f - k.dotF16(q, 0, v, off, dim);
                case HAMMING -> throw new UnsupportedOperationException("hamming needs u8 vectors");
            };
            case BF16 -> switch (t) {
                case L2 -> k.l2Bf16(q, 0, v, off, dim);
                case COSINE -> k.cosineBf16(q, 0, v, off, dim);
                case DOT -> 1f - k.dotBf16(q, 0, v, off, dim);
                case HAMMING -> throw new UnsupportedOperationException("hamming needs u8 vectors");
            };
        };
    }

    /**
     * @param vectors  {@code rowIds.length} vectors of {@code dim} elements starting at {@code offset}
     * @param query    one vector of the same element type (off-heap or byte[]-backed segment)
     */
    public static Neighbor[] search(MemorySegment vectors, long offset, long[] rowIds, int dim, ElementType e,
                                    MemorySegment query, int k, DistanceType t, RowFilter filter) {
        long stride = (long) dim * e.bytes();
        if (vectors.byteSize() < offset + stride * rowIds.length) {
            throw new IllegalArgumentException("Segment of " + vectors.byteSize() + " bytes is too small for "
                    + rowIds.length + " vectors of " + stride + " bytes at offset " + offset);
        }
        if (query.byteSize() < stride) {
            throw new IllegalArgumentException("Query has " + query.byteSize() + " bytes, need " + stride);
        }
        TopK top = new TopK(k);
        for (int i = 0; i < rowIds.length; i++) {
            if (filter.allows(rowIds[i])) {
                top.offer(rowIds[i], distance(t, e, query, vectors, offset + i * stride, dim));
            }
        }
        return top.sorted();
    }
}
