package io.javelin.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.TransferPair;

/** Row assembly for merge-insert: gathering source rows, pairing them with target rows, completing partial rows. */
final class MergeRows {

    private MergeRows() {
    }

    /** Rows {@code ordinals} (numbered across {@code src} in order) as one new batch. */
    static VectorSchemaRoot gather(List<VectorSchemaRoot> src, long[] starts, int[] ordinals, BufferAllocator alloc) {
        List<FieldVector> out = new ArrayList<>();
        try {
            int cols = src.get(0).getFieldVectors().size();
            for (int c = 0; c < cols; c++) {
                FieldVector v = src.get(0).getVector(c).getField().createVector(alloc);
                out.add(v);
                v.allocateNew();
                TransferPair[] tps = new TransferPair[src.size()];
                for (int i = 0; i < ordinals.length; i++) {
                    int b = batchOf(starts, ordinals[i]);
                    if (tps[b] == null) {
                        tps[b] = src.get(b).getVector(c).makeTransferPair(v);
                    }
                    tps[b].copyValueSafe((int) (ordinals[i] - starts[b]), i);
                }
                v.setValueCount(ordinals.length);
            }
            return Batches.root(out, ordinals.length);
        } catch (RuntimeException e) {
            out.forEach(FieldVector::close);
            throw e;
        }
    }

    /** The batch holding ordinal {@code o}: {@code starts[b]} is the first ordinal of batch {@code b}. */
    static int batchOf(long[] starts, long o) {
        int i = java.util.Arrays.binarySearch(starts, o);
        return i >= 0 ? i : -i - 2;
    }

    /** First row ordinal of each batch (ascending; a batch without rows shares its successor's start). */
    static long[] starts(List<VectorSchemaRoot> src) {
        long[] s = new long[src.size()];
        long at = 0;
        for (int i = 0; i < s.length; i++) {
            s[i] = at;
            at += src.get(i).getRowCount();
        }
        return s;
    }

    /**
     * A batch of the dataset's schema: {@code source}'s columns where it has them, the others from
     * {@code target} (same rows) or all NULL when there is none. Closes neither input.
     */
    static VectorSchemaRoot complete(Schema dataset, VectorSchemaRoot source, VectorSchemaRoot target, BufferAllocator alloc) {
        int rows = source.getRowCount();
        List<FieldVector> out = new ArrayList<>();
        try {
            for (Field f : dataset.getFields()) {
                FieldVector v = source.getVector(f.getName());
                if (v == null && target != null) {
                    v = target.getVector(f.getName());
                }
                if (v != null) {
                    out.add(Batches.copyRows(v, identity(rows), alloc));
                } else {
                    FieldVector n = f.createVector(alloc);
                    n.allocateNew();
                    for (int i = 0; i < rows; i++) {
                        n.setNull(i);
                    }
                    n.setValueCount(rows);
                    out.add(n);
                }
            }
            return Batches.root(out, rows);
        } catch (RuntimeException e) {
            out.forEach(FieldVector::close);
            throw e;
        }
    }

    static int[] identity(int n) {
        int[] p = new int[n];
        for (int i = 0; i < n; i++) {
            p[i] = i;
        }
        return p;
    }

    /** {@code source} and {@code target} as two struct columns of one batch (values copied). */
    static VectorSchemaRoot pair(VectorSchemaRoot source, VectorSchemaRoot target, BufferAllocator alloc) {
        List<FieldVector> cols = new ArrayList<>();
        try {
            for (var e : List.of(Map.entry("source", source), Map.entry("target", target))) {
                StructVector s = StructVector.empty(e.getKey(), alloc);
                cols.add(s);
                int rows = e.getValue().getRowCount();
                for (FieldVector v : e.getValue().getFieldVectors()) {
                    FieldVector slot = s.addOrGet(v.getField().getName(), v.getField().getFieldType(), v.getClass());
                    TransferPair tp = v.makeTransferPair(slot);
                    for (int i = 0; i < rows; i++) {
                        tp.copyValueSafe(i, i);
                    }
                    slot.setValueCount(rows);
                }
                for (int i = 0; i < rows; i++) {
                    s.setIndexDefined(i);
                }
                s.setValueCount(rows);
            }
            return Batches.root(cols, source.getRowCount());
        } catch (RuntimeException e) {
            cols.forEach(FieldVector::close);
            throw e;
        }
    }

    static long bytes(VectorSchemaRoot b) {
        long n = 0;
        for (FieldVector v : b.getFieldVectors()) {
            n += v.getBufferSize();
        }
        return n;
    }
}
