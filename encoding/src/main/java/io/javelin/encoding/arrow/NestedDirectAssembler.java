package io.javelin.encoding.arrow;

import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Builds the vector of a struct field (structs of leaves, at any depth, no lists) from {@link DirectPage}s of
 * its leaf columns without copying: each leaf's values and validity are wrapped as for a top-level leaf
 * ({@link DirectAssembler}), and a struct's validity is the bitmap of its rep/def layer that the pages of its
 * first leaf carry ({@link DirectPage#layerValidity}), wrapped when byte-aligned.
 */
public final class NestedDirectAssembler {

    private NestedDirectAssembler() {
    }

    /** Rows {@code [from[i], to[i])} of {@code pages[i]}, concatenated: one leaf column's part of a batch. */
    public record Slices(List<DirectPage> pages, int[] from, int[] to) {
        int rows() {
            int n = 0;
            for (int i = 0; i < pages.size(); i++) {
                n += to[i] - from[i];
            }
            return n;
        }
    }

    /** True if {@code field} is a struct whose descendants are structs and leaves {@link DirectAssembler} builds. */
    public static boolean supportsField(Field field) {
        if (!(field.getType() instanceof ArrowType.Struct) || field.getChildren().isEmpty()) {
            return false;
        }
        for (Field c : field.getChildren()) {
            if (c.getType() instanceof ArrowType.Struct ? !supportsField(c) : !DirectAssembler.supportsField(c)) {
                return false;
            }
        }
        return true;
    }

    /**
     * The struct vector of a batch whose leaf columns (pre-order) are {@code leaves}, or null when a page does
     * not fit (the general path then reads the same pages).
     */
    public static FieldVector toVector(Field field, List<Slices> leaves, BufferAllocator allocator) {
        String[] kinds = new String[leaves.size()];
        int[] next = {0};
        if (!check(field, 0, leaves, kinds, next, -1) || next[0] != leaves.size()) {
            return null;
        }
        FieldVector v = field.createVector(allocator);
        try {
            next[0] = 0;
            load(v, field, 0, leaves, kinds, next, allocator);
            return v;
        } catch (RuntimeException | Error e) {
            v.close();
            throw e;
        }
    }

    private static boolean check(Field f, int depth, List<Slices> leaves, String[] kinds, int[] next, int rows) {
        if (f.getType() instanceof ArrowType.Struct) {
            if (f.getChildren().isEmpty()) {
                return false;
            }
            for (Field c : f.getChildren()) {
                if (!check(c, depth + 1, leaves, kinds, next, rows)) {
                    return false;
                }
            }
            return true;
        }
        if (next[0] >= leaves.size()) {
            return false;
        }
        Slices s = leaves.get(next[0]);
        if (s.pages().isEmpty() || rows >= 0 && s.rows() != rows || rows < 0 && next[0] > 0 && s.rows() != leaves.get(0).rows()) {
            return false;
        }
        for (DirectPage p : s.pages()) {
            if (p.numLayers() != depth + 1) {
                return false; // the general path reports the mismatch
            }
        }
        String kind = DirectAssembler.check(f, s.pages(), s.from(), s.to());
        if (kind == null) {
            return false;
        }
        kinds[next[0]++] = kind;
        return true;
    }

    private static void load(FieldVector v, Field f, int depth, List<Slices> leaves, String[] kinds, int[] next,
                             BufferAllocator allocator) {
        if (!(v instanceof StructVector sv)) {
            int i = next[0]++;
            Slices s = leaves.get(i);
            DirectAssembler.load(v, kinds[i], s.pages(), s.from(), s.to(), allocator);
            return;
        }
        // the struct's layer, as the first leaf under it sees it (the general path reads the same)
        Slices first = leaves.get(next[0]);
        int layer = first.pages().get(0).numLayers() - 1 - depth;
        long nulls = 0;
        for (int i = 0; i < first.pages().size(); i++) {
            nulls += first.pages().get(i).nullCount(layer, first.from()[i], first.to()[i]);
        }
        ArrowBuf validity = nulls == 0 ? allocator.getEmpty()
                : DirectAssembler.validity(first.pages(), first.from(), first.to(), layer, allocator);
        DirectAssembler.load(sv, first.rows(), nulls, validity);
        List<FieldVector> kids = sv.getChildrenFromFields();
        for (int c = 0; c < kids.size(); c++) {
            load(kids.get(c), f.getChildren().get(c), depth + 1, leaves, kinds, next, allocator);
        }
    }
}
