package io.javelin.engine.index;

import io.javelin.engine.Dataset;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import reactor.core.publisher.Mono;

/** The result batch of a search: the hits' rows taken by address, then a float32 score column and {@code _rowid} if asked. */
final class SearchRows {

    private SearchRows() {
    }

    /**
     * @param addrs     row addresses of the hits, best first
     * @param columns   columns to take (null: all of the table's)
     * @param scoreName name of the score column ({@code _score}, {@code _distance})
     * @param scores    one score per hit
     */
    static Mono<VectorSchemaRoot> take(Dataset ds, long[] addrs, List<String> columns, boolean withRowId, String scoreName,
                                       float[] scores, BufferAllocator allocator) {
        List<String> cols = columns != null ? columns : ds.schema().getFields().stream().map(f -> f.getName()).toList();
        Mono<long[]> rowIds = withRowId ? ds.rowIdsAt(addrs) : Mono.just(addrs);
        return rowIds.flatMap(ids -> ds.takeRowAddresses(addrs, cols, allocator).map(root -> {
            List<FieldVector> vectors = new ArrayList<>(root.getFieldVectors());
            int n = root.getRowCount();
            Float4Vector score = new Float4Vector(scoreName, allocator);
            score.allocateNew(n);
            for (int i = 0; i < n; i++) {
                score.set(i, scores[i]);
            }
            score.setValueCount(n);
            vectors.add(score);
            if (withRowId) {
                UInt8Vector rid = new UInt8Vector("_rowid", allocator);
                rid.allocateNew(n);
                for (int i = 0; i < n; i++) {
                    rid.set(i, ids[i]);
                }
                rid.setValueCount(n);
                vectors.add(rid);
            }
            // the taken vectors move into the new root; the old root object is dropped without closing them
            return new VectorSchemaRoot(vectors.stream().map(FieldVector::getField).toList(), vectors, n);
        }));
    }
}
