package io.javelin.encoding.v21;

import io.javelin.encoding.CorruptFileException;
import io.javelin.encoding.arrow.Bits;
import io.javelin.encoding.arrow.DirectPage;
import io.javelin.encoding.io.Buf;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Rep/def levels of a leaf under exactly one list (structs may sit above and below it) unravelled straight
 * into native Arrow buffers while the page decodes: per row, int64 item offsets and the validity of the list
 * layer and the layers above it (an empty list is valid, a null struct above masks the list); per item (a
 * visible level), the validity of the layers below the list. Levels come in chunk by chunk; only the
 * chunk's level arrays live on the heap.
 */
final class NativeLevels {

    private static final ValueLayout.OfLong LONG_LE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private final RepDef rd;
    private final int listLayer;
    private final int numRows;
    private final int numItems;
    private final MemorySegment offsets;
    private final BitWriter[] bits; // per layer; item space below the list, row space from it; null = cannot be null
    /** Per def level: whether each layer is valid at that level (row layers judged at a row's first level). */
    private final boolean[][] validAt;
    private int rows;
    private int items;

    /** True if the layers are those of a leaf under exactly one list. */
    static boolean supports(RepDef rd) {
        return rd.maxRep == 1 && rd.maxDef <= NativePages.MAX_FLAT_DEF && rd.listLayer[1] >= 1;
    }

    NativeLevels(DirectPage.NativeBuffers nb, RepDef rd, int numRows, int numItems) {
        this.rd = rd;
        this.listLayer = rd.listLayer[1];
        this.numRows = numRows;
        this.numItems = numItems;
        this.offsets = nb.allocate(8L * (numRows + 1));
        int n = rd.layers.length;
        bits = new BitWriter[n];
        validAt = new boolean[n][rd.maxDef + 1];
        for (int k = 0; k < n; k++) {
            boolean canBeNull = false;
            for (int d = 0; d <= rd.maxDef; d++) {
                // a layer is valid below its first level; the list layer also at its "empty" level
                boolean valid = d < rd.defStart[k] || k == listLayer && rd.empty(d) && d < rd.defStart[k] + rd.numDef[k];
                validAt[k][d] = valid;
                if (!valid && (k >= listLayer || d <= rd.maxVisibleDef)) {
                    canBeNull = true;
                }
            }
            if (canBeNull) {
                bits[k] = new BitWriter(nb, k < listLayer ? numItems : numRows);
            }
        }
    }

    /**
     * Adds the {@code n} levels of one chunk ({@code def} null: all 0); returns the visible items among them.
     */
    int add(Buf ctx, short[] rep, short[] def, int n) {
        if (rep == null || rep.length < n || def != null && def.length < n) {
            throw ctx.corrupt(0, "List chunk without repetition levels for " + n + " levels");
        }
        int before = items;
        int maxDef = rd.maxDef;
        int maxVisible = rd.maxVisibleDef;
        int layers = bits.length;
        for (int i = 0; i < n; i++) {
            int r = Short.toUnsignedInt(rep[i]);
            int d = def == null ? 0 : Short.toUnsignedInt(def[i]);
            if (r > 1 || d > maxDef) {
                throw ctx.corrupt(0, (r > 1 ? "Repetition level " + r + " above the maximum 1" : "Definition level " + d
                        + " above the maximum " + maxDef));
            }
            if (r == 1) {
                if (rows >= numRows) {
                    throw ctx.corrupt(0, "List page has more than " + numRows + " rows");
                }
                offsets.setAtIndex(LONG_LE, rows, items);
                for (int k = listLayer; k < layers; k++) {
                    if (bits[k] != null) {
                        bits[k].add(validAt[k][d]);
                    }
                }
                rows++;
            } else if (rows == 0) {
                throw ctx.corrupt(0, "First level of a list page continues a row");
            }
            if (d <= maxVisible) {
                if (items >= numItems) {
                    throw ctx.corrupt(0, "List page has more than " + numItems + " items");
                }
                for (int k = 0; k < listLayer; k++) {
                    if (bits[k] != null) {
                        bits[k].add(validAt[k][d]);
                    }
                }
                items++;
            } else if (r != 1) {
                throw ctx.corrupt(0, "Null or empty list in the middle of a row");
            }
        }
        return items - before;
    }

    /** Checks the counts and makes {@code page} (the items) a list page of these rows; closes it on error. */
    DirectPage attach(String resource, long at, DirectPage page) {
        try {
            if (rows != numRows || items != numItems) {
                throw new CorruptFileException(resource, at, "List page levels hold " + rows + " rows and " + items + " items vs "
                        + numRows + " and " + numItems);
            }
            offsets.setAtIndex(LONG_LE, numRows, items);
            int n = bits.length;
            MemorySegment[] v = new MemorySegment[n];
            int[] nullDef = new int[n];
            for (int k = 0; k < n; k++) {
                nullDef[k] = rd.defStart[k];
                if (k > 0 && bits[k] != null) {
                    v[k] = bits[k].result();
                }
            }
            return page.withList(numRows, offsets, listLayer, v, nullDef);
        } catch (RuntimeException e) {
            page.close();
            throw e;
        }
    }

    /** The validity of the items (layer 0), or null when every item is valid. */
    MemorySegment itemValidity() {
        return bits[0] == null ? null : bits[0].result();
    }

    /**
     * Rows {@code [from, to)} of a list page as heap levels and values, for the general assembly path:
     * per row one level per item (the first with rep 1), or one level for a null or empty list.
     */
    static LeafPage leafPage(String resource, DirectPage dp, RepDef rd, int from, int to) {
        if (!supports(rd) || rd.listLayer[1] != dp.listLayer() || dp.numLayers() != rd.layers.length) {
            throw new CorruptFileException(resource, -1, "List page and its layers disagree");
        }
        int list = dp.listLayer();
        int i0 = (int) dp.rowOffset(from);
        int i1 = (int) dp.rowOffset(to);
        int levels = 0;
        for (int j = from; j < to; j++) {
            levels += Math.max(1, (int) (dp.rowOffset(j + 1) - dp.rowOffset(j)));
        }
        short[] rep = new short[levels];
        short[] def = new short[levels];
        int at = 0;
        int n = rd.layers.length;
        for (int j = from; j < to; j++) {
            int items = (int) (dp.rowOffset(j + 1) - dp.rowOffset(j));
            int rowDef = 0; // the outer-most null layer at or above the list decides a row's level
            for (int k = n - 1; k >= list; k--) {
                MemorySegment v = dp.layerValidity(k);
                if (v != null && !bit(v, j)) {
                    rowDef = k == list ? rd.nullDef(k) : rd.defStart[k];
                    break;
                }
            }
            if (items == 0) {
                rep[at] = 1;
                def[at++] = (short) (rowDef != 0 ? rowDef : rd.emptyDef(list));
                if (def[at - 1] < 0) {
                    throw new CorruptFileException(resource, -1, "Empty list in a layer that cannot be empty");
                }
                continue;
            }
            for (int i = 0; i < items; i++) {
                int item = (int) dp.rowOffset(j) + i;
                int d = 0;
                for (int k = list - 1; k >= 0; k--) {
                    MemorySegment v = dp.layerValidity(k);
                    if (v != null && !bit(v, item)) {
                        d = rd.defStart[k];
                        break;
                    }
                }
                rep[at] = (short) (i == 0 ? 1 : 0);
                def[at++] = (short) d;
            }
        }
        return new LeafPage(resource, rd, to - from, levels, rep, def, dp.slice(i0, i1));
    }

    private static boolean bit(MemorySegment v, long i) {
        return (v.get(ValueLayout.JAVA_BYTE, i >>> 3) & (1 << (i & 7))) != 0;
    }

    /** Appends bits to a native bitmap a 64-bit word at a time. */
    static final class BitWriter {
        private final MemorySegment out;
        private final long capacity;
        private long word;
        private long pos;
        private long nulls;
        private boolean finished;

        BitWriter(DirectPage.NativeBuffers nb, long capacity) {
            this.capacity = capacity;
            this.out = nb.allocate(((capacity + 63) >>> 6) << 3);
            out.fill((byte) 0);
        }

        void add(boolean valid) {
            if (valid) {
                word |= 1L << (pos & 63);
            } else {
                nulls++;
            }
            pos++;
            if ((pos & 63) == 0) {
                out.set(LONG_LE, (pos >>> 3) - 8, word);
                word = 0;
            }
        }

        /** The bitmap, or null when every bit is set. */
        MemorySegment result() {
            MemorySegment b = finish();
            return nulls == 0 ? null : b;
        }

        MemorySegment finish() {
            if (!finished) {
                finished = true;
                if ((pos & 63) != 0) {
                    out.set(LONG_LE, (pos >>> 6) << 3, word);
                }
            }
            return out.asSlice(0, Math.max(Bits.bytesFor(capacity), 0));
        }
    }
}
