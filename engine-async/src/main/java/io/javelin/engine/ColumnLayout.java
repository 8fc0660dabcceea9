package io.javelin.engine;

import io.javelin.encoding.file.LanceField;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * How a dataset column maps onto a fragment's data files after schema evolution, by field id and never
 * by name (Lance resolves columns through {@code DataFile.fields}):
 * <ul>
 *   <li>a column whose id is in no data file of the fragment reads as all nulls (added without backfill);</li>
 *   <li>{@code DataFile.fields} lists the file's fields in pre-order, so the k-th id names the k-th field
 *       of the file schema: that is the file's (possibly old) column name after a rename;</li>
 *   <li>vectors read under old names or nullability are relabelled to the dataset's field, zero-copy.</li>
 * </ul>
 */
final class ColumnLayout {

    private ColumnLayout() {
    }

    private static void flatten(LanceField f, List<LanceField> out) {
        out.add(f);
        f.children().forEach(c -> flatten(c, out));
    }

    /**
     * Dataset field id → name of that field inside the data file. Lance writes the dataset's field ids
     * into the file schema (and, in 2.1+, lists only leaves in {@code DataFile.fields}), so ids are
     * matched directly when the file's ids cover {@code DataFile.fields}. Files whose schema carries its
     * own ids from 0 (our new-column files) list every field in pre-order, so the k-th listed id is the
     * k-th field of the file.
     */
    static java.util.Map<Integer, String> fileNames(List<LanceField> fileFields, List<Integer> dataFileFields) {
        List<LanceField> flat = new ArrayList<>();
        for (LanceField f : fileFields) {
            flatten(f, flat);
        }
        java.util.Map<Integer, String> byFileId = new java.util.HashMap<>();
        flat.forEach(f -> byFileId.put(f.id(), f.name()));
        boolean idsMatch = dataFileFields.stream().allMatch(id -> id < 0 || byFileId.containsKey(id));
        if (idsMatch) {
            return byFileId;
        }
        java.util.Map<Integer, String> out = new java.util.HashMap<>();
        for (int k = 0; k < Math.min(flat.size(), dataFileFields.size()); k++) {
            out.put(dataFileFields.get(k), flat.get(k).name());
        }
        return out;
    }

    /** True when the file holds {@code f} or (Lance 2.1+ lists only leaves) any field below it. */
    static boolean holds(List<Integer> dataFileFields, io.javelin.tx.schema.LanceField f) {
        if (dataFileFields.contains(f.id())) {
            return true;
        }
        for (io.javelin.tx.schema.LanceField c : f.children()) {
            if (holds(dataFileFields, c)) {
                return true;
            }
        }
        return false;
    }

    /**
     * {@code v} (as read from a file) reshaped to the dataset's field: struct children matched by field id
     * (renamed, dropped and not-yet-written children handled), names and nullability relabelled. Closes
     * {@code v} when it returns another vector.
     */
    static FieldVector adapt(FieldVector v, Field target, io.javelin.tx.schema.LanceField lance, java.util.Map<Integer, String> fileNames,
                             BufferAllocator allocator) {
        if (v instanceof org.apache.arrow.vector.complex.BaseRepeatedValueVector list && isList(target) && lance != null
                && lance.children().size() == 1 && target.getChildren().size() == 1
                && list.getDataVector() instanceof org.apache.arrow.vector.complex.StructVector) {
            return adaptList(v, list, target, lance, fileNames, allocator);
        }
        if (!(target.getType() instanceof org.apache.arrow.vector.types.pojo.ArrowType.Struct)
                || !(v instanceof org.apache.arrow.vector.complex.StructVector sv) || lance == null) {
            return relabel(v, target, allocator);
        }
        if (sameShape(sv.getField(), target) && sameLabels(sv.getField(), target) && namesMatch(target, lance, fileNames)) {
            return v; // nothing renamed, dropped or added below this struct
        }
        int rows = sv.getValueCount();
        org.apache.arrow.vector.complex.StructVector out = (org.apache.arrow.vector.complex.StructVector)
                new Field(target.getName(), target.getFieldType(), List.of()).createVector(allocator);
        try {
            out.loadFieldBuffers(new ArrowFieldNode(rows, sv.getNullCount()), sv.getFieldBuffers());
            for (int i = 0; i < target.getChildren().size(); i++) {
                Field tc = target.getChildren().get(i);
                io.javelin.tx.schema.LanceField lc = i < lance.children().size() ? lance.children().get(i) : null;
                String fn = lc == null ? tc.getName() : fileNames.get(lc.id());
                FieldVector child = fn == null ? null : (FieldVector) sv.getChild(fn);
                FieldVector adapted = child == null ? nulls(tc, rows, allocator)
                        : adapt(Batches.move(child, allocator), tc, lc, fileNames, allocator);
                try {
                    FieldVector slot = out.addOrGet(tc.getName(), tc.getFieldType(), adapted.getClass());
                    adapted.makeTransferPair(slot).transfer();
                    slot.setValueCount(rows);
                } finally {
                    adapted.close();
                }
            }
            out.setValueCount(rows);
            return out;
        } catch (RuntimeException e) {
            out.close();
            throw e;
        } finally {
            v.close();
        }
    }

    private static boolean isList(Field f) {
        return f.getType() instanceof org.apache.arrow.vector.types.pojo.ArrowType.List
                || f.getType() instanceof org.apache.arrow.vector.types.pojo.ArrowType.LargeList;
    }

    /**
     * A list of structs: its offsets and validity kept, its struct items adapted by field id like a top-level
     * struct (a file may store the children in another order, or lack some). Closes {@code v}.
     */
    private static FieldVector adaptList(FieldVector v, org.apache.arrow.vector.complex.BaseRepeatedValueVector list, Field target,
                                         io.javelin.tx.schema.LanceField lance, java.util.Map<Integer, String> fileNames,
                                         BufferAllocator allocator) {
        Field itemTarget = target.getChildren().get(0);
        FieldVector out = null;
        try {
            out = target.createVector(allocator);
            out.loadFieldBuffers(new ArrowFieldNode(v.getValueCount(), v.getNullCount()), v.getFieldBuffers());
            FieldVector items = adapt(Batches.move((FieldVector) list.getDataVector(), allocator), itemTarget, lance.children().get(0), fileNames,
                    allocator);
            try {
                FieldVector slot = (FieldVector) ((org.apache.arrow.vector.complex.BaseRepeatedValueVector) out)
                        .addOrGetVector(itemTarget.getFieldType()).getVector();
                items.makeTransferPair(slot).transfer();
            } finally {
                items.close();
            }
            return out;
        } catch (RuntimeException e) {
            if (out != null) {
                out.close();
            }
            throw e;
        } finally {
            v.close();
        }
    }

    /** An all-null vector of {@code field} with {@code rows} slots. */
    static FieldVector nulls(Field field, int rows, BufferAllocator allocator) {
        FieldVector v = field.createVector(allocator);
        try {
            v.allocateNew();
            v.setValueCount(rows);
            return v;
        } catch (RuntimeException e) {
            v.close();
            throw e;
        }
    }

    /**
     * {@code v} under the dataset's field (names and nullability), sharing its buffers; {@code v} is
     * closed. Returned as is when nothing differs or the physical types do not line up.
     */
    static FieldVector relabel(FieldVector v, Field target, BufferAllocator allocator) {
        if (v.getField().equals(target) || !sameShape(v.getField(), target) || sameLabels(v.getField(), target)) {
            return v;
        }
        FieldVector out = target.createVector(allocator);
        try {
            load(v, out);
        } catch (RuntimeException e) {
            out.close();
            throw e;
        } finally {
            v.close();
        }
        return out;
    }

    /** True when every field below {@code target} is stored in the file under its dataset name. */
    private static boolean namesMatch(Field target, io.javelin.tx.schema.LanceField lance, java.util.Map<Integer, String> fileNames) {
        if (lance == null || target.getChildren().size() != lance.children().size()) {
            return false;
        }
        for (int i = 0; i < target.getChildren().size(); i++) {
            Field tc = target.getChildren().get(i);
            io.javelin.tx.schema.LanceField lc = lance.children().get(i);
            String fn = fileNames.get(lc.id());
            if ((fn != null && !fn.equals(tc.getName())) || !namesMatch(tc, lc, fileNames) && !tc.getChildren().isEmpty()) {
                return false;
            }
        }
        return true;
    }

    private static void load(FieldVector src, FieldVector dst) {
        dst.loadFieldBuffers(new ArrowFieldNode(src.getValueCount(), src.getNullCount()), src.getFieldBuffers());
        List<FieldVector> a = src.getChildrenFromFields();
        List<FieldVector> b = dst.getChildrenFromFields();
        for (int i = 0; i < a.size(); i++) {
            load(a.get(i), b.get(i));
        }
    }

    private static boolean sameShape(Field a, Field b) {
        if (!a.getType().equals(b.getType()) || a.getChildren().size() != b.getChildren().size()) {
            return false;
        }
        for (int i = 0; i < a.getChildren().size(); i++) {
            if (!sameShape(a.getChildren().get(i), b.getChildren().get(i))) {
                return false;
            }
        }
        return true;
    }

    /** Same names and nullability all the way down (metadata differences are not worth a relabel). */
    private static boolean sameLabels(Field a, Field b) {
        if (!a.getName().equals(b.getName()) || a.isNullable() != b.isNullable()) {
            return false;
        }
        for (int i = 0; i < a.getChildren().size(); i++) {
            if (!sameLabels(a.getChildren().get(i), b.getChildren().get(i))) {
                return false;
            }
        }
        return true;
    }
}
