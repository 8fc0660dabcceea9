package io.javelin.encoding.writer.v21;

import io.javelin.encoding.writer.LeafType;
import io.javelin.encoding.writer.UnsupportedTypeException;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * The chain of fields from a top-level field down to one leaf column, with the raw definition slots
 * of every layer. Raw slots give every item layer one (null) and every list layer two (null, empty)
 * levels; a page compacts them to the layers that actually occur (file-format.md §5).
 */
public final class LeafPath {
    public enum Kind { ITEM, LIST, LARGE_LIST }

    /** One layer of the path, outermost first. */
    public record Node(Kind kind, Field field, String childName, int nullDef, int emptyDef, int repLevel, boolean visibleNull) {
    }

    private final List<Node> nodes;
    private final int maxRep;
    private final int rawSlots;
    private final LeafType leafType;
    private final Field leaf;
    private final String name;

    private LeafPath(List<Node> nodes, int maxRep, int rawSlots, Field leaf, String name) {
        this.nodes = nodes;
        this.maxRep = maxRep;
        this.rawSlots = rawSlots;
        this.leaf = leaf;
        this.leafType = LeafType.of(leaf);
        this.name = name;
    }

    public List<Node> nodes() {
        return nodes;
    }

    public int maxRep() {
        return maxRep;
    }

    /** Number of raw def values including 0 (valid). */
    public int rawSlots() {
        return rawSlots;
    }

    public LeafType leafType() {
        return leafType;
    }

    public Field leaf() {
        return leaf;
    }

    public String name() {
        return name;
    }

    /** All leaf paths of a top-level field in DFS order (the 2.1 column order). */
    public static List<LeafPath> of(Field top, boolean allowMap) {
        List<LeafPath> out = new ArrayList<>();
        collect(top, new ArrayList<>(), out, allowMap, top.getName());
        return out;
    }

    private static void collect(Field f, List<Field> chain, List<LeafPath> out, boolean allowMap, String name) {
        chain.add(f);
        ArrowType t = f.getType();
        if (t instanceof ArrowType.Struct && !LeafType.isPacked(f)) {
            if (f.getChildren().isEmpty()) {
                throw new UnsupportedTypeException("Empty struct field '" + name + "' is not supported");
            }
            for (Field c : f.getChildren()) {
                collect(c, chain, out, allowMap, name + "." + c.getName());
            }
        } else if (t instanceof ArrowType.List || t instanceof ArrowType.LargeList || t instanceof ArrowType.Map) {
            if (t instanceof ArrowType.Map m) {
                if (!allowMap) {
                    throw new UnsupportedTypeException("Map field '" + name + "' needs file version 2.2 or later");
                }
                if (m.getKeysSorted()) {
                    throw new UnsupportedTypeException("Map field '" + name + "' with keys_sorted=true is not supported");
                }
            }
            Field c = f.getChildren().get(0);
            collect(c, chain, out, allowMap, name + "." + c.getName());
        } else {
            out.add(build(new ArrayList<>(chain), name));
        }
        chain.remove(chain.size() - 1);
    }

    private static LeafPath build(List<Field> chain, String name) {
        int n = chain.size();
        Kind[] kinds = new Kind[n];
        for (int i = 0; i < n; i++) {
            ArrowType t = chain.get(i).getType();
            kinds[i] = t instanceof ArrowType.LargeList ? Kind.LARGE_LIST
                    : (t instanceof ArrowType.List || t instanceof ArrowType.Map) ? Kind.LIST : Kind.ITEM;
        }
        int[] nullDef = new int[n];
        int[] emptyDef = new int[n];
        int[] rep = new int[n];
        boolean[] visible = new boolean[n];
        int slot = 1;
        int r = 0;
        boolean listBelow = false;
        for (int i = n - 1; i >= 0; i--) {
            if (kinds[i] == Kind.ITEM) {
                nullDef[i] = slot++;
                visible[i] = !listBelow;
            } else {
                nullDef[i] = slot++;
                emptyDef[i] = slot++;
                rep[i] = ++r;
                listBelow = true;
            }
        }
        List<Node> nodes = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            String child = i + 1 < n ? chain.get(i + 1).getName() : null;
            nodes.add(new Node(kinds[i], chain.get(i), child, nullDef[i], emptyDef[i], rep[i], visible[i]));
        }
        return new LeafPath(List.copyOf(nodes), r, slot, chain.get(n - 1), name);
    }
}
