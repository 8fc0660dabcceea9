package io.javelin.encoding.arrow;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Builds the vector of a nested field from {@link DirectPage}s of its leaf columns without copying values:
 * structs (at any depth) and at most one list (list, large list or map) on each path from the field to a
 * leaf. Each leaf's values and validity are wrapped as for a top-level leaf ({@link DirectAssembler}); a
 * struct's validity is the bitmap of its rep/def layer that the pages of its first leaf carry
 * ({@link DirectPage#layerValidity}), wrapped when byte-aligned; a list's validity is its layer's row bitmap
 * and its offsets are the page's int64 row offsets rebased into a small new buffer (the batch starts at
 * offset 0). Below a list, the leaves' rows become the items of the batch's rows.
 */
public final class NestedDirectAssembler {

    private static final ValueLayout.OfInt INT_LE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

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

        /** The items of these rows (list pages). */
        Slices items() {
            int[] f = new int[from.length];
            int[] t = new int[to.length];
            for (int i = 0; i < pages.size(); i++) {
                f[i] = (int) pages.get(i).rowOffset(from[i]);
                t[i] = (int) pages.get(i).rowOffset(to[i]);
            }
            return new Slices(pages, f, t);
        }
    }

    /**
     * True if {@code field} is a struct or list whose descendants are structs, at most one list per path,
     * and leaves {@link DirectAssembler} builds (a packed struct is not told apart here: callers check).
     */
    public static boolean supportsField(Field field) {
        return (field.getType() instanceof ArrowType.Struct || isList(field)) && supports(field, false);
    }

    private static boolean supports(Field f, boolean inList) {
        if (f.getType() instanceof ArrowType.Struct) {
            if (f.getChildren().isEmpty()) {
                return false;
            }
            for (Field c : f.getChildren()) {
                if (!supports(c, inList)) {
                    return false;
                }
            }
            return true;
        }
        if (isList(f)) {
            return !inList && f.getChildren().size() == 1 && supports(f.getChildren().get(0), true);
        }
        return DirectAssembler.supportsField(f);
    }

    static boolean isList(Field f) {
        return f.getType() instanceof ArrowType.List || f.getType() instanceof ArrowType.LargeList
                || f.getType() instanceof ArrowType.Map;
    }

    /**
     * The vector of a batch whose leaf columns (pre-order) are {@code leaves}, or null when a page does not
     * fit (the general path then reads the same pages and reports what is wrong).
     */
    public static FieldVector toVector(Field field, List<Slices> leaves, BufferAllocator allocator) {
        String[] kinds = new String[leaves.size()];
        int[] next = {0};
        if (leaves.isEmpty() || !walk(null, field, 0, false, new ArrayList<>(leaves), next, kinds, allocator, -1)
                || next[0] != leaves.size()) {
            return null;
        }
        FieldVector v = field.createVector(allocator);
        try {
            next[0] = 0;
            walk(v, field, 0, false, new ArrayList<>(leaves), next, kinds, allocator, -1);
            return v;
        } catch (RuntimeException | Error e) {
            v.close();
            throw e;
        }
    }

    /**
     * Checks ({@code v == null}: records each leaf's kind, returns false on any mismatch) or loads one node.
     * {@code cur} holds every leaf's slices in the index space of this node (rows, or items below a list).
     */
    private static boolean walk(FieldVector v, Field f, int depth, boolean inList, List<Slices> cur, int[] next, String[] kinds,
                                BufferAllocator a, int rows) {
        if (next[0] >= cur.size()) {
            return false;
        }
        Slices first = cur.get(next[0]);
        if (first.pages().isEmpty() || rows >= 0 && first.rows() != rows) {
            return false;
        }
        int layer = first.pages().get(0).numLayers() - 1 - depth;
        if (f.getType() instanceof ArrowType.Struct) {
            if (f.getChildren().isEmpty() || layer < 1) {
                return false;
            }
            if (v != null) {
                long nulls = nulls(first, layer);
                ArrowBuf validity = nulls == 0 ? a.getEmpty() : DirectAssembler.validity(first.pages(), first.from(), first.to(), layer, a);
                DirectAssembler.load(v, first.rows(), nulls, validity);
            }
            List<FieldVector> kids = v == null ? null : ((StructVector) v).getChildrenFromFields();
            for (int c = 0; c < f.getChildren().size(); c++) {
                if (!walk(kids == null ? null : kids.get(c), f.getChildren().get(c), depth + 1, inList, cur, next, kinds, a, first.rows())) {
                    return false;
                }
            }
            return true;
        }
        if (isList(f)) {
            int count = leafCount(f);
            if (inList || layer < 1 || next[0] + count > cur.size()) {
                return false;
            }
            List<Slices> inner = new ArrayList<>(cur);
            for (int i = next[0]; i < next[0] + count; i++) {
                for (DirectPage p : cur.get(i).pages()) {
                    if (!p.list() || p.listLayer() != layer) {
                        return false;
                    }
                }
                inner.set(i, cur.get(i).items());
            }
            Slices items = inner.get(next[0]);
            if (v != null) {
                long nulls = nulls(first, layer);
                int n = first.rows();
                ArrowBuf validity = null;
                ArrowBuf offsets = null;
                try {
                    validity = nulls == 0 ? a.getEmpty() : DirectAssembler.validity(first.pages(), first.from(), first.to(), layer, a);
                    offsets = offsets(first, v instanceof LargeListVector ? 8 : 4, a);
                } catch (RuntimeException | Error e) {
                    for (ArrowBuf b : new ArrowBuf[] {validity, offsets}) {
                        if (b != null) {
                            b.close();
                        }
                    }
                    throw e;
                }
                DirectAssembler.load(v, n, nulls, validity, offsets);
            }
            FieldVector child = v == null ? null : v instanceof LargeListVector l ? l.getDataVector() : ((ListVector) v).getDataVector();
            return walk(child, f.getChildren().get(0), depth + 1, true, inner, next, kinds, a, items.rows());
        }
        // a leaf: its pages carry exactly the layers of the path to it
        for (DirectPage p : first.pages()) {
            if (p.numLayers() != depth + 1 || p.list() != inList) {
                return false;
            }
        }
        int i = next[0]++;
        if (v == null) {
            kinds[i] = DirectAssembler.check(f, first.pages(), first.from(), first.to());
            return kinds[i] != null;
        }
        DirectAssembler.load(v, kinds[i], first.pages(), first.from(), first.to(), a);
        return true;
    }

    private static long nulls(Slices s, int layer) {
        long nulls = 0;
        for (int i = 0; i < s.pages().size(); i++) {
            nulls += s.pages().get(i).nullCount(layer, s.from()[i], s.to()[i]);
        }
        return nulls;
    }

    /** The batch's list offsets ({@code width} bytes each), from 0: the pages' row offsets rebased. */
    private static ArrowBuf offsets(Slices s, int width, BufferAllocator a) {
        int n = s.rows();
        long bytes = (long) (n + 1) * width;
        ArrowBuf b = a.buffer(bytes);
        try {
            MemorySegment dst = MemorySegment.ofAddress(b.memoryAddress()).reinterpret(bytes);
            long base = 0;
            int at = 0;
            for (int i = 0; i < s.pages().size(); i++) {
                DirectPage p = s.pages().get(i);
                int m = s.to()[i] - s.from()[i];
                long o0 = p.rowOffset(s.from()[i]);
                if (width == 8) {
                    io.javelin.encoding.kernel.Kernels.get().rebaseOffsets64to64(p.rowOffsets(), 8L * s.from()[i], m + 1, base - o0,
                            dst, 8L * at);
                } else {
                    for (int j = 0; j <= m; j++) {
                        long o = p.rowOffset(s.from()[i] + j) - o0 + base;
                        if (o > Integer.MAX_VALUE) {
                            throw new IllegalStateException("batch of " + o + " list items needs large offsets");
                        }
                        dst.setAtIndex(INT_LE, at + j, (int) o);
                    }
                }
                base += p.rowOffset(s.to()[i]) - o0;
                at += m;
            }
            return b;
        } catch (RuntimeException | Error e) {
            b.close();
            throw e;
        }
    }

    private static int leafCount(Field f) {
        if (f.getType() instanceof ArrowType.Struct || isList(f)) {
            int n = 0;
            for (Field c : f.getChildren()) {
                n += leafCount(c);
            }
            return n;
        }
        return 1;
    }
}
