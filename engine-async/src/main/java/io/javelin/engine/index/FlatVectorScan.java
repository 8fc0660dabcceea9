package io.javelin.engine.index;

import io.javelin.engine.Dataset;
import io.javelin.index.RowFilter;
import io.javelin.index.vector.DistanceType;
import io.javelin.index.vector.FlatKernel;
import io.javelin.index.vector.Neighbor;
import io.javelin.index.vector.TopK;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.roaringbitmap.RoaringBitmap;
import reactor.core.publisher.Mono;

/**
 * Exact kNN over the rows of some fragments: the vector column is scanned with its row addresses and
 * each decoded batch goes straight through {@link FlatKernel} over the Arrow item buffer (no copy to
 * the heap), into a per-batch top-k; the batch heaps are merged at the end. Used without an index, for
 * fragments an index does not cover, and by prefiltered searches. Null vectors never match.
 */
final class FlatVectorScan {

    private FlatVectorScan() {
    }

    static Mono<Neighbor[]> search(Dataset ds, String column, float[] query, int k, DistanceType type,
                                   RoaringBitmap fragments, RowFilter prefilter) {
        List<Long> ids = new ArrayList<>();
        fragments.forEach((int f) -> ids.add((long) f));
        if (ids.isEmpty()) {
            return Mono.just(new Neighbor[0]);
        }
        MemorySegment q = FlatKernel.querySegment(query);
        return Mono.usingWhen(Mono.fromCallable(RootAllocator::new),
                alloc -> ds.scanner().fragments(ids).columns(column).withRowAddress(true).ordered(false).scan(alloc)
                        .map(b -> {
                            try (b) {
                                return batch(b, column, q, query.length, k, type, prefilter);
                            }
                        })
                        .collectList()
                        .map(parts -> FlatKernel.merge(k, parts)),
                alloc -> Mono.fromRunnable(alloc::close));
    }

    private static Neighbor[] batch(VectorSchemaRoot b, String column, MemorySegment q, int dim, int k, DistanceType type,
                                    RowFilter prefilter) {
        int rows = b.getRowCount();
        if (rows == 0) {
            return new Neighbor[0];
        }
        FixedSizeListVector v = (FixedSizeListVector) b.getVector(column);
        if (!(v.getDataVector() instanceof Float4Vector items)) {
            throw new IllegalArgumentException("Exact search supports float32 vectors; column '" + column + "' holds "
                    + v.getField().getChildren().get(0).getType());
        }
        UInt8Vector addr = (UInt8Vector) b.getVector("_rowaddr");
        TopK top = new TopK(k);
        MemorySegment addrs = MemorySegment.ofAddress(addr.getDataBufferAddress()).reinterpret(8L * rows);
        if (items.getNullCount() > 0) {
            // a null component makes the distance NaN: per row on the heap (rare)
            float[] one = new float[dim];
            for (int i = 0; i < rows; i++) {
                if (v.isNull(i)) {
                    continue;
                }
                boolean hole = false;
                for (int j = 0; j < dim && !hole; j++) {
                    hole = items.isNull(i * dim + j);
                    one[j] = hole ? 0 : items.get(i * dim + j);
                }
                long a = addr.get(i);
                if (!hole && prefilter.allows(a)) {
                    MemorySegment vs = FlatKernel.querySegment(one);
                    float d = type.f32(q, 0, vs, 0, dim);
                    if (!Float.isNaN(d)) {
                        top.offer(a, d);
                    }
                }
            }
            return top.sorted();
        }
        MemorySegment vectors = MemorySegment.ofAddress(items.getDataBufferAddress()).reinterpret(4L * rows * dim);
        MemorySegment validity = v.getNullCount() == 0 ? null
                : MemorySegment.ofAddress(v.getValidityBufferAddress()).reinterpret((rows + 7) / 8);
        FlatKernel.offerF32(vectors, validity, addrs, rows, dim, q, type, prefilter, top);
        return top.sorted();
    }
}
