package io.javelin.encoding.v21;

import io.javelin.encoding.CorruptFileException;
import io.javelin.encoding.arrow.Bits;
import io.javelin.encoding.pb.v21.RepDefLayer;
import java.util.Arrays;
import java.util.List;

/**
 * Repetition/definition levels of one leaf column and their unravelling into per-layer validity and
 * list offsets. Layers are ordered inner-most first (index 0 = the leaf item).
 */
public final class RepDef {

    final int[] layers;
    final boolean[] isList;
    final int[] defStart;
    final int[] numDef;
    final int[] listLayer; // listLayer[k] = layer index of the k-th list counted from inside (1-based)
    final int maxRep;
    final int maxVisibleDef;
    final int maxDef;

    RepDef(String resource, long at, List<RepDefLayer> layerList) {
        int n = layerList.size();
        if (n == 0 || n > 64) {
            throw new CorruptFileException(resource, at, "Impossible number of rep/def layers: " + n);
        }
        layers = new int[n];
        isList = new boolean[n];
        defStart = new int[n];
        numDef = new int[n];
        listLayer = new int[n + 1];
        int def = 1;
        int lists = 0;
        int visible = -1;
        for (int i = 0; i < n; i++) {
            RepDefLayer l = layerList.get(i);
            layers[i] = l.getNumber();
            switch (l) {
                case REPDEF_ALL_VALID_ITEM -> numDef[i] = 0;
                case REPDEF_NULLABLE_ITEM -> numDef[i] = 1;
                case REPDEF_ALL_VALID_LIST -> { numDef[i] = 0; isList[i] = true; }
                case REPDEF_NULLABLE_LIST, REPDEF_EMPTYABLE_LIST -> { numDef[i] = 1; isList[i] = true; }
                case REPDEF_NULL_AND_EMPTY_LIST -> { numDef[i] = 2; isList[i] = true; }
                default -> throw new CorruptFileException(resource, at, "Unknown rep/def layer " + l);
            }
            if (i == 0 && isList[0]) {
                throw new CorruptFileException(resource, at, "Inner-most rep/def layer is a list");
            }
            if (isList[i]) {
                listLayer[++lists] = i;
                if (visible < 0) {
                    visible = def - 1;
                }
            }
            defStart[i] = def;
            def += numDef[i];
        }
        maxRep = lists;
        maxDef = def - 1;
        maxVisibleDef = visible < 0 ? maxDef : visible;
        nullLayerOf = new int[maxDef + 1];
        emptyOf = new boolean[maxDef + 1];
        nullLayerOf[0] = -1;
        for (int d = 1; d <= maxDef; d++) {
            nullLayerOf[d] = -1;
            for (int i = 0; i < n; i++) {
                if (d >= defStart[i] && d < defStart[i] + numDef[i]) {
                    nullLayerOf[d] = i;
                    int k = d - defStart[i];
                    emptyOf[d] = layers[i] == RepDefLayer.REPDEF_EMPTYABLE_LIST_VALUE
                            || layers[i] == RepDefLayer.REPDEF_NULL_AND_EMPTY_LIST_VALUE && k == 1;
                    break;
                }
            }
        }
    }

    /** Per def level: the layer it makes null or empty (-1 for 0), and whether that means an empty list. */
    private final int[] nullLayerOf;
    private final boolean[] emptyOf;

    int maxRep() {
        return maxRep;
    }

    /** True if def level {@code d} marks an empty (valid) list. */
    boolean empty(int d) {
        return d >= 0 && d <= maxDef && emptyOf[d];
    }

    /** The def level that makes list layer {@code k} empty (-1 if it cannot be empty). */
    int emptyDef(int k) {
        for (int d = defStart[k]; d < defStart[k] + numDef[k]; d++) {
            if (emptyOf[d]) {
                return d;
            }
        }
        return -1;
    }

    /** The def level that makes layer {@code k} null (-1 if it cannot be null by itself). */
    int nullDef(int k) {
        for (int d = defStart[k]; d < defStart[k] + numDef[k]; d++) {
            if (!emptyOf[d]) {
                return d;
            }
        }
        return -1;
    }

    /** True if a level with this def has a value slot at the leaf. */
    boolean visible(int def) {
        return def <= maxVisibleDef;
    }

    /** Per-layer output of unravelling. A null {@code validity} with {@code !anyNull} means all valid. */
    static final class LayerOut {
        byte[] validity;
        boolean anyNull;
        long[] offsets; // lists only: entry starts; final end appended by finish()
        int slots;

        void add(boolean valid) {
            if (validity == null) {
                validity = new byte[16];
            } else if (validity.length * 8 <= slots) {
                validity = Arrays.copyOf(validity, validity.length * 2);
            }
            if (valid) {
                Bits.set(validity, slots);
            } else {
                anyNull = true;
            }
            slots++;
        }

        void addOffset(long start) {
            if (offsets.length <= slots) {
                offsets = Arrays.copyOf(offsets, offsets.length * 2);
            }
            offsets[slots] = start;
        }

        byte[] validityOrNull() {
            return anyNull ? Arrays.copyOf(validity, Bits.bytesFor(slots)) : null;
        }
    }

    private static final boolean LITTLE_ENDIAN = java.nio.ByteOrder.nativeOrder() == java.nio.ByteOrder.LITTLE_ENDIAN;

    /**
     * The common case without lists: every layer has one slot per level and layer k is valid exactly
     * when the level is below {@code defStart[k]} (a null at or outside k masks it). Validity comes from
     * the levels kernel; no per-level work when there are no def levels at all.
     */
    private LayerOut[] unravelFlat(String resource, short[] def, int from, int numLevels) {
        int n = layers.length;
        LayerOut[] out = new LayerOut[n];
        for (int i = 0; i < n; i++) {
            out[i] = new LayerOut();
            out[i].slots = numLevels;
        }
        if (def == null || maxDef == 0) {
            if (def != null) {
                for (int i = from; i < from + numLevels; i++) {
                    if (def[i] != 0) {
                        throw new CorruptFileException(resource, -1, "Definition level " + Short.toUnsignedInt(def[i])
                                + " above the maximum " + maxDef);
                    }
                }
            }
            return out;
        }
        java.lang.foreign.MemorySegment lv = java.lang.foreign.MemorySegment.ofArray(def);
        long off = 2L * from;
        var k = io.javelin.encoding.kernel.Kernels.get();
        long ok = LITTLE_ENDIAN ? k.countLevelsBelow(2, lv, off, numLevels, maxDef + 1) : countBelow(def, from, numLevels, maxDef + 1);
        if (ok != numLevels) {
            for (int i = from; i < from + numLevels; i++) {
                if (Short.toUnsignedInt(def[i]) > maxDef) {
                    throw new CorruptFileException(resource, -1, "Definition level " + Short.toUnsignedInt(def[i])
                            + " above the maximum " + maxDef);
                }
            }
        }
        for (int i = 0; i < n; i++) {
            int threshold = defStart[i];
            if (threshold > maxDef) {
                continue; // nothing at or outside this layer can be null
            }
            byte[] bits = new byte[Bits.bytesFor(numLevels) + 1];
            long nulls;
            if (LITTLE_ENDIAN) {
                nulls = k.levelsToValidity(2, lv, off, numLevels, threshold, java.lang.foreign.MemorySegment.ofArray(bits), 0);
            } else {
                nulls = 0;
                for (int j = 0; j < numLevels; j++) {
                    if (Short.toUnsignedInt(def[from + j]) < threshold) {
                        Bits.set(bits, j);
                    } else {
                        nulls++;
                    }
                }
            }
            if (nulls > 0) {
                out[i].validity = bits;
                out[i].anyNull = true;
            }
        }
        return out;
    }

    private static long countBelow(short[] def, int from, int n, int threshold) {
        long c = 0;
        for (int i = from; i < from + n; i++) {
            if (Short.toUnsignedInt(def[i]) < threshold) {
                c++;
            }
        }
        return c;
    }

    /** {@link #unravel(String, short[], short[], int, int)} of levels {@code [0, numLevels)}. */
    LayerOut[] unravel(String resource, short[] rep, short[] def, int numLevels) {
        return unravel(resource, rep, def, 0, numLevels);
    }

    /**
     * Unravels {@code numLevels} levels ({@code rep}/{@code def} may be null when absent) into one
     * {@link LayerOut} per layer.
     */
    LayerOut[] unravel(String resource, short[] rep, short[] def, int from, int numLevels) {
        if (maxRep == 0 && rep == null) {
            return unravelFlat(resource, def, from, numLevels);
        }
        int n = layers.length;
        LayerOut[] out = new LayerOut[n];
        for (int i = 0; i < n; i++) {
            // every layer has at most one slot per level: size once, no growth in the loop
            out[i] = new LayerOut();
            out[i].validity = new byte[Bits.bytesFor(numLevels) + 1];
            if (isList[i]) {
                out[i].offsets = new long[numLevels + 1];
            }
        }
        if (rep != null && numLevels > 0 && Short.toUnsignedInt(rep[from]) != maxRep) {
            // a continuation at the very start (a preamble) cannot be placed
            int r = Short.toUnsignedInt(rep[from]);
            throw new CorruptFileException(resource, -1, r > maxRep ? "Repetition level " + r + " above the maximum " + maxRep
                    : "First level continues a row (rep " + r + ")");
        }
        int[] slots = new int[n];
        for (int lv = 0; lv < numLevels; lv++) {
            int r = rep == null ? maxRep : Short.toUnsignedInt(rep[from + lv]);
            int d = def == null ? 0 : Short.toUnsignedInt(def[from + lv]);
            if (r > maxRep) {
                throw new CorruptFileException(resource, -1, "Repetition level " + r + " above the maximum " + maxRep);
            }
            if (d > maxDef) {
                throw new CorruptFileException(resource, -1, "Definition level " + d + " above the maximum " + maxDef);
            }
            int start = r == maxRep ? n - 1 : listLayer[r + 1] - 1;
            int nullLayer = nullLayerOf[d];
            boolean empty = emptyOf[d];
            boolean masked = false;
            for (int p = start; p >= 0; p--) {
                LayerOut o = out[p];
                int slot = slots[p]++;
                boolean valid;
                boolean stop = false;
                if (isList[p]) {
                    o.offsets[slot] = slots[p - 1];
                    if (masked) {
                        valid = false;
                        stop = true;
                    } else if (p == nullLayer) {
                        valid = empty;
                        stop = true;
                    } else {
                        valid = true;
                    }
                } else if (masked || p == nullLayer) {
                    valid = false;
                    masked = true;
                } else {
                    valid = true;
                }
                if (valid) {
                    o.validity[slot >>> 3] |= (byte) (1 << (slot & 7));
                } else {
                    o.anyNull = true;
                }
                if (stop) {
                    break;
                }
            }
        }
        for (int i = 0; i < n; i++) {
            out[i].slots = slots[i];
        }
        for (int i = 0; i < n; i++) {
            if (isList[i]) {
                LayerOut o = out[i];
                o.offsets[o.slots] = out[i - 1].slots; // sized numLevels + 1: readers use only slots + 1 entries
            }
        }
        return out;
    }
}
