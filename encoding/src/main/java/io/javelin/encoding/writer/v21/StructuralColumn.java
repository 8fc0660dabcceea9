package io.javelin.encoding.writer.v21;

import io.javelin.encoding.pb.v21.RepDefLayer;
import io.javelin.encoding.writer.EncodedPage;
import io.javelin.encoding.writer.LeafType;
import io.javelin.encoding.writer.LeafValues;
import io.javelin.encoding.writer.Shorts;
import io.javelin.encoding.writer.WriteOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;

/**
 * One 2.1/2.2 leaf column: shreds rows into rep/def levels and visible values and flushes a page
 * whenever the buffered bytes reach the page size.
 */
public final class StructuralColumn {
    private final LeafPath path;
    private final int columnIndex;
    private final WriteOptions options;
    private final Map<String, String> metadata;
    private final Shorts rep = new Shorts();
    private final Shorts def = new Shorts();
    private final boolean[] occurred;
    private final LeafValues values;
    private final int lastDepth;
    private final boolean utf8;
    private long rowsInPage;
    private long firstRow;

    public StructuralColumn(LeafPath path, int columnIndex, WriteOptions options) {
        this.path = path;
        this.columnIndex = columnIndex;
        this.options = options;
        this.metadata = path.leaf().getMetadata() == null ? Map.of() : path.leaf().getMetadata();
        this.occurred = new boolean[path.rawSlots()];
        this.values = new LeafValues(path.leafType());
        this.lastDepth = path.nodes().size() - 1;
        org.apache.arrow.vector.types.pojo.ArrowType lt = path.leaf().getType();
        this.utf8 = lt instanceof org.apache.arrow.vector.types.pojo.ArrowType.Utf8
                || lt instanceof org.apache.arrow.vector.types.pojo.ArrowType.LargeUtf8;
    }

    public int columnIndex() {
        return columnIndex;
    }

    public LeafPath path() {
        return path;
    }

    /** Shreds rows {@code [start, start+count)} of the top-level vector; returns pages that filled up. */
    public List<EncodedPage> append(FieldVector top, int start, int count) {
        List<EncodedPage> out = new ArrayList<>(0);
        LeafType lt = path.leafType();
        // Top-level leaves without nested layers: copy runs of non-null rows in bulk.
        Bulk bulk = lastDepth != 0 || lt.packed() != null ? Bulk.NONE : switch (lt.kind()) {
            case FIXED -> Bulk.FIXED;
            case FSL -> lt.dims().length == 1 ? Bulk.FSL : Bulk.NONE;
            case VARIABLE -> Bulk.VARIABLE;
            default -> Bulk.NONE;
        };
        long limit = options.pageSizeBytes();
        int end = start + count;
        int row = start;
        boolean itemsValid = bulk == Bulk.FSL
                && ((org.apache.arrow.vector.complex.FixedSizeListVector) top).getDataVector().getNullCount() == 0;
        long rowBytes = switch (bulk) {
            case FIXED, FSL -> lt.valueBytes() + 2L + (bulk == Bulk.FSL ? lt.cumDim() / 8 : 0);
            case VARIABLE -> 10L + averageLength(top, start, count);
            default -> 1;
        };
        while (row < end) {
            if (bulk != Bulk.NONE) {
                // A run of rows bounded so a page does not overshoot by much.
                int room = (int) Math.max(1, Math.min(end - row, (limit - bufferedBytes()) / Math.max(1, rowBytes)));
                int stop = row + room;
                int i = row;
                while (i < stop) {
                    if (top.isNull(i)) {
                        def.add(1);
                        occurred[1] = true;
                        values.appendNull();
                        i++;
                    } else {
                        int j = i;
                        while (j < stop && !top.isNull(j)) {
                            j++;
                        }
                        switch (bulk) {
                            case FIXED -> values.appendFixedRun(top, i, j - i);
                            case FSL -> values.appendFslRun((org.apache.arrow.vector.complex.FixedSizeListVector) top,
                                    i, j - i, itemsValid);
                            default -> values.appendVarRun(top, i, j - i);
                        }
                        def.addZeros(j - i);
                        i = j;
                    }
                }
                occurred[0] = true;
                rowsInPage += stop - row;
                row = stop;
            } else {
                shred(0, top, row, path.maxRep());
                rowsInPage++;
                row++;
            }
            if (bufferedBytes() >= limit) {
                out.add(flush());
            }
        }
        return out;
    }

    private enum Bulk { NONE, FIXED, FSL, VARIABLE }

    private static long averageLength(FieldVector v, int start, int count) {
        if (count == 0) {
            return 0;
        }
        long s;
        long e;
        if (v instanceof org.apache.arrow.vector.BaseVariableWidthVector bv) {
            s = bv.getStartOffset(start);
            e = bv.getStartOffset(start + count);
        } else {
            org.apache.arrow.vector.BaseLargeVariableWidthVector bv = (org.apache.arrow.vector.BaseLargeVariableWidthVector) v;
            s = bv.getOffsetBuffer().getLong((long) start * 8);
            e = bv.getOffsetBuffer().getLong((long) (start + count) * 8);
        }
        return (e - s) / count;
    }

    long bufferedBytes() {
        return values.bufferedBytes() + 2L * def.size() + 2L * rep.size();
    }

    private void level(int r, int d) {
        if (path.maxRep() > 0) {
            rep.add(r);
        }
        def.add(d);
        occurred[d] = true;
    }

    private void shred(int depth, ValueVector v, int idx, int r) {
        LeafPath.Node n = path.nodes().get(depth);
        if (v.isNull(idx)) {
            level(r, n.nullDef());
            if (n.kind() == LeafPath.Kind.ITEM && n.visibleNull()) {
                values.appendNull();
            }
            return;
        }
        switch (n.kind()) {
            case ITEM -> {
                if (depth == lastDepth) {
                    level(r, 0);
                    values.append(v, idx);
                } else {
                    shred(depth + 1, ((StructVector) v).getChild(n.childName()), idx, r);
                }
            }
            case LIST -> {
                ListVector lv = (ListVector) v;
                int s = lv.getOffsetBuffer().getInt((long) idx * 4);
                int e = lv.getOffsetBuffer().getInt((long) (idx + 1) * 4);
                children(depth, lv.getDataVector(), s, e, r, n);
            }
            case LARGE_LIST -> {
                LargeListVector lv = (LargeListVector) v;
                int s = Math.toIntExact(lv.getOffsetBuffer().getLong((long) idx * 8));
                int e = Math.toIntExact(lv.getOffsetBuffer().getLong((long) (idx + 1) * 8));
                children(depth, lv.getDataVector(), s, e, r, n);
            }
        }
    }

    private void children(int depth, FieldVector child, int s, int e, int r, LeafPath.Node n) {
        if (s == e) {
            level(r, n.emptyDef());
            return;
        }
        for (int j = s; j < e; j++) {
            shred(depth + 1, child, j, j == s ? r : n.repLevel() - 1);
        }
    }

    public boolean hasData() {
        return rowsInPage > 0;
    }

    /** Encodes the buffered rows as one page and resets. */
    public EncodedPage flush() {
        PageInput in = buildInput();
        EncodedPage page = PageEncoder21.encode(in, options.version(), metadata, utf8);
        firstRow += rowsInPage;
        rowsInPage = 0;
        rep.clear();
        def.clear();
        values.clear();
        java.util.Arrays.fill(occurred, false);
        return page;
    }

    private PageInput buildInput() {
        List<LeafPath.Node> nodes = path.nodes();
        int[] remap = new int[occurred.length];
        List<RepDefLayer> layers = new ArrayList<>();
        int level = 1;
        int maxVisibleDef = -1;
        for (int i = nodes.size() - 1; i >= 0; i--) {
            LeafPath.Node n = nodes.get(i);
            if (n.kind() == LeafPath.Kind.ITEM) {
                if (occurred[n.nullDef()]) {
                    layers.add(RepDefLayer.REPDEF_NULLABLE_ITEM);
                    remap[n.nullDef()] = level++;
                } else {
                    layers.add(RepDefLayer.REPDEF_ALL_VALID_ITEM);
                }
            } else {
                if (maxVisibleDef < 0) {
                    maxVisibleDef = level - 1;
                }
                boolean nul = occurred[n.nullDef()];
                boolean emp = occurred[n.emptyDef()];
                if (nul && emp) {
                    layers.add(RepDefLayer.REPDEF_NULL_AND_EMPTY_LIST);
                    remap[n.nullDef()] = level;
                    remap[n.emptyDef()] = level + 1;
                    level += 2;
                } else if (nul) {
                    layers.add(RepDefLayer.REPDEF_NULLABLE_LIST);
                    remap[n.nullDef()] = level++;
                } else if (emp) {
                    layers.add(RepDefLayer.REPDEF_EMPTYABLE_LIST);
                    remap[n.emptyDef()] = level++;
                } else {
                    layers.add(RepDefLayer.REPDEF_ALL_VALID_LIST);
                }
            }
        }
        int numLevels = def.size();
        short[] finalDef = null;
        if (level > 1) {
            finalDef = new short[numLevels];
            short[] raw = def.array();
            for (int i = 0; i < numLevels; i++) {
                finalDef[i] = (short) remap[raw[i]];
            }
        }
        short[] finalRep = path.maxRep() > 0 ? rep.toArray() : null;
        boolean hasList = maxVisibleDef >= 0;
        return new PageInput(columnIndex, finalRep, finalDef, numLevels, values, rowsInPage, firstRow, layers,
                path.maxRep(), hasList ? maxVisibleDef : Integer.MAX_VALUE, path.nodes().size() == 1);
    }

    static boolean unused(BaseFixedWidthVector v) {
        return v == null;
    }
}
