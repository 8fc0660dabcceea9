package io.javelin.engine;

import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.util.TransferPair;

/** Batch surgery used by the scan pipeline: row selection, slicing, column assembly. Owns nothing. */
final class Batches {

    static final String ROW_ID = "_rowid";
    static final String ROW_ADDR = "_rowaddr";

    private Batches() {
    }

    /** A new vector holding rows {@code positions} of {@code v}, in that order. */
    static FieldVector copyRows(FieldVector v, int[] positions, BufferAllocator allocator) {
        FieldVector out = v.getField().createVector(allocator);
        try {
            TransferPair tp = v.makeTransferPair(out);
            for (int j = 0; j < positions.length; j++) {
                tp.copyValueSafe(positions[j], j);
            }
            out.setValueCount(positions.length);
            return out;
        } catch (RuntimeException e) {
            out.close();
            throw e;
        }
    }

    /** Moves a vector's buffers into a fresh vector of the same field (the source is left empty). */
    static FieldVector move(FieldVector v, BufferAllocator allocator) {
        TransferPair tp = v.getTransferPair(allocator);
        tp.transfer();
        return (FieldVector) tp.getTo();
    }

    /** Rows {@code [from, from+count)} of {@code in} as a new root ({@code in} is not closed). */
    static VectorSchemaRoot slice(VectorSchemaRoot in, int from, int count, BufferAllocator allocator) {
        int[] pos = new int[count];
        for (int i = 0; i < count; i++) {
            pos[i] = from + i;
        }
        return select(in, pos, allocator);
    }

    static VectorSchemaRoot select(VectorSchemaRoot in, int[] positions, BufferAllocator allocator) {
        List<FieldVector> out = new ArrayList<>();
        try {
            for (FieldVector v : in.getFieldVectors()) {
                out.add(copyRows(v, positions, allocator));
            }
        } catch (RuntimeException e) {
            out.forEach(FieldVector::close);
            throw e;
        }
        return root(out, positions.length);
    }

    static VectorSchemaRoot root(List<FieldVector> vectors, int rows) {
        List<Field> fields = vectors.stream().map(FieldVector::getField).toList();
        VectorSchemaRoot r = new VectorSchemaRoot(fields, vectors, rows);
        r.setRowCount(rows);
        return r;
    }

    /** A non-nullable uint64 column named {@code name} with {@code base | offsets[i]}. */
    static FieldVector rowAddresses(String name, long fragmentId, long[] offsets, BufferAllocator allocator) {
        UInt8Vector v = new UInt8Vector(new Field(name, FieldType.notNullable(new ArrowType.Int(64, false)), null), allocator);
        try {
            v.allocateNew(offsets.length);
            long base = fragmentId << 32;
            for (int i = 0; i < offsets.length; i++) {
                v.set(i, base | offsets[i]);
            }
            v.setValueCount(offsets.length);
            return v;
        } catch (RuntimeException e) {
            v.close();
            throw e;
        }
    }

    /**
     * Narrows a struct vector to the children named by {@code paths} (each a list of child names below it;
     * an empty path keeps the whole child). Consumes {@code v}.
     */
    static FieldVector prune(FieldVector v, List<List<String>> paths, BufferAllocator allocator) {
        for (List<String> p : paths) {
            if (p.isEmpty()) {
                return v;
            }
        }
        if (!(v instanceof StructVector s)) {
            v.close();
            throw new IllegalArgumentException("Column " + v.getField().getName() + " is not a struct");
        }
        List<String> order = new ArrayList<>();
        for (List<String> p : paths) {
            if (!order.contains(p.get(0))) {
                order.add(p.get(0));
            }
        }
        StructVector out = StructVector.empty(s.getField().getName(), allocator);
        try {
            out.allocateNew();
            int rows = s.getValueCount();
            for (int i = 0; i < rows; i++) {
                if (s.isNull(i)) {
                    out.setNull(i);
                } else {
                    out.setIndexDefined(i);
                }
            }
            for (String childName : order) {
                FieldVector child = (FieldVector) s.getChild(childName);
                if (child == null) {
                    throw new IllegalArgumentException("No field " + childName + " in struct " + s.getField().getName());
                }
                List<List<String>> rest = new ArrayList<>();
                for (List<String> p : paths) {
                    if (p.get(0).equals(childName)) {
                        rest.add(p.subList(1, p.size()));
                    }
                }
                FieldVector moved = move(child, allocator);
                FieldVector pruned = prune(moved, rest, allocator);
                FieldVector slot = out.addOrGet(childName, pruned.getField().getFieldType(), pruned.getClass());
                pruned.makeTransferPair(slot).transfer();
                slot.setValueCount(rows);
                pruned.close();
            }
            out.setValueCount(rows);
            return out;
        } catch (RuntimeException e) {
            out.close();
            throw e;
        } finally {
            s.close();
        }
    }
}
