package io.javelin.encoding.v21;

import io.javelin.encoding.CorruptFileException;
import io.javelin.encoding.arrow.Bits;
import io.javelin.encoding.arrow.DirectPage;
import io.javelin.encoding.arrow.Values;
import io.javelin.encoding.compress.CodecException;
import io.javelin.encoding.compress.FsstSymbolTable;
import io.javelin.encoding.io.Buf;
import io.javelin.encoding.kernel.KernelInputException;
import io.javelin.encoding.kernel.Kernels;
import io.javelin.encoding.pb.v21.CompressiveEncoding;
import io.javelin.encoding.pb.v21.MiniBlockLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.List;

/**
 * Decodes pages of top-level leaves without repetition straight into native memory in Arrow layout
 * ({@link DirectPage}): mini-block chunks write their values into one native buffer of the page at their
 * row (fixed width: unpacked, expanded or copied in place; variable width: bytes appended to a growing
 * native buffer with native int64 offsets, FSST decoded in place), and def levels become a native validity
 * bitmap. Nothing of page size lives on the heap; scan batches then wrap slices of the page.
 */
final class NativePages {

    private static final ValueLayout.OfLong LONG_LE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    /** Room past the last value: bit-unpacking writes whole blocks of 1024 values (at most 8 bytes each). */
    private static final long UNPACK_PAD = 1024 * 8;

    private NativePages() {
    }

    /** Deepest struct nesting (def levels) decoded natively; deeper pages take the heap path. */
    static final int MAX_FLAT_DEF = 15;

    /**
     * True if the rep/def layers are those of a leaf inside structs only (no list layer): one level per row,
     * every level has a value slot, and layer k is valid exactly when the def level is below its start.
     */
    static boolean flat(RepDef rd) {
        if (rd.maxRep != 0 || rd.maxDef > MAX_FLAT_DEF) {
            return false;
        }
        for (boolean l : rd.isList) {
            if (l) {
                return false;
            }
        }
        return true;
    }

    /** True if a page of this layout and kind can decode natively (else the heap path runs). */
    static boolean supports(MiniBlockLayout mb, LeafKind kind, RepDef rd) {
        if (flat(rd) ? mb.hasRepCompression() : !NativeLevels.supports(rd) || !mb.hasRepCompression()) {
            return false;
        }
        if (kind.bitsPerValue() == 1 && !kind.variable()) {
            return !mb.hasDictionary(); // booleans: a native bitmap
        }
        if (!kind.variable() && (kind.bitsPerValue() <= 0 || kind.bitsPerValue() % 8 != 0)) {
            return false;
        }
        return !Compressions.hasItemValidity(mb.getValueCompression()) && !(mb.hasDictionary()
                && Compressions.hasItemValidity(mb.getDictionary()));
    }

    /** A mini-block page of {@code numRows} rows decoded into native memory ({@link #supports} must hold). */
    static DirectPage miniBlock(String resource, long at, MiniBlockLayout mb, List<Buf> bufs, int numRows, LeafKind kind,
                                RepDef rd) {
        boolean dictionary = mb.hasDictionary();
        int expectBufs = 2 + (dictionary ? 1 : 0) + (mb.getRepetitionIndexDepth() > 0 ? 1 : 0);
        if (bufs.size() < expectBufs) {
            throw new CorruptFileException(resource, at, "Mini-block page has " + bufs.size() + " buffers, needs " + expectBufs);
        }
        Buf data = bufs.get(1);
        StructuralPages.ChunkTable t = StructuralPages.chunkTable(mb, bufs.get(0), data.size());
        boolean list = rd.maxRep > 0;
        if (!list && mb.getNumItems() != numRows) {
            throw new CorruptFileException(resource, at, "Mini-block page of " + numRows + " rows holds " + mb.getNumItems() + " values");
        }
        if (list && !mb.hasRepCompression()) {
            throw new CorruptFileException(resource, at, "List page without repetition levels");
        }
        int numItems = (int) mb.getNumItems(); // visible values (checked by the chunk table)
        Values dict = dictionary ? StructuralPages.dictionary(mb, bufs.get(2)) : null;
        DirectPage.NativeBuffers nb = new DirectPage.NativeBuffers("page");
        try {
            Layers layers = !list && mb.hasDefCompression() ? new Layers(nb, rd, numRows) : null;
            NativeLevels levels = list ? new NativeLevels(nb, rd, numRows, numItems) : null;
            Out out = kind.variable() ? new VarOut(nb, numItems, data.size())
                    : kind.bitsPerValue() == 1 ? new BitOut(nb, numItems) : new FixedOut(nb, numItems, kind.bitsPerValue() / 8);
            int row = 0; // the value (item) index
            byte[] scratch = new byte[0];
            for (int c = 0; c < t.size(); c++) {
                Buf chunk = data.slice(t.offset()[c], t.bytes()[c]);
                int n = (int) t.values()[c];
                StructuralPages.ChunkParts parts = StructuralPages.chunkParts(mb, chunk);
                if (layers != null) {
                    if (parts.numLevels() != n) {
                        throw chunk.corrupt(0, "Chunk of " + n + " values has " + parts.numLevels() + " levels");
                    }
                    layers.add(chunk, Compressions.levels(mb.getDefCompression(), parts.def(), n), row);
                } else if (levels != null) {
                    int nl = parts.numLevels();
                    short[] rep = Compressions.levels(mb.getRepCompression(), parts.rep(), nl);
                    short[] def = mb.hasDefCompression() ? Compressions.levels(mb.getDefCompression(), parts.def(), nl) : null;
                    int visible = levels.add(chunk, rep, def, nl);
                    if (visible != n) {
                        throw chunk.corrupt(0, "Chunk of " + n + " values has " + visible + " visible levels");
                    }
                }
                if (dict != null) {
                    long limit = Math.min(mb.getNumDictionaryItems(), dict.count());
                    int iw = indexBytes(mb.getValueCompression());
                    if (iw > 0) {
                        // indices decode into a scratch array reused by every chunk of the page
                        long need = (long) n * iw + UNPACK_PAD;
                        if (scratch.length < need) {
                            scratch = new byte[(int) Math.min(Integer.MAX_VALUE - 16, Math.max(need, 2L * scratch.length))];
                        }
                        MemorySegment idx = MemorySegment.ofArray(scratch);
                        Compressions.miniBlockInto(mb.getValueCompression(), parts.values(), n, chunk, idx, 0, iw);
                        out.gather(chunk, dict, limit, idx, iw, row, n);
                    } else {
                        Values idx = Compressions.miniBlock(mb.getValueCompression(), parts.values(), n, chunk);
                        if (!(idx instanceof Values.Fixed f) || (f.bitsPerValue() != 8 && f.bitsPerValue() != 16
                                && f.bitsPerValue() != 32 && f.bitsPerValue() != 64) || f.count() < n) {
                            throw chunk.corrupt(0, "Dictionary indices must be integers");
                        }
                        out.gather(chunk, dict, limit, MemorySegment.ofArray(f.data()), f.bitsPerValue() / 8, row, n);
                    }
                } else {
                    out.chunk(mb.getValueCompression(), parts.values(), chunk, row, n);
                }
                row += n;
            }
            if (row != numItems) {
                throw new CorruptFileException(resource, at, "Mini-block chunks hold " + row + " values for " + numItems);
            }
            if (levels != null) {
                return levels.attach(resource, at, out.page(numItems, kind, levels.itemValidity(), nb));
            }
            return Layers.attach(out.page(numRows, kind, layers == null ? null : layers.validity(0), nb), layers, rd);
        } catch (KernelInputException e) {
            throw new CorruptFileException(resource, at, "Bad mini-block values: " + e.getMessage(), e);
        } finally {
            nb.release();
        }
    }

    /**
     * A heap-decoded page of a leaf without repetition (full-zip, constant, all-null; inside structs too)
     * copied once into native memory, def levels becoming the per-layer validity bitmaps; null when it is not
     * in that shape.
     */
    static DirectPage copyOf(LeafPage lp, RepDef rd) {
        if (lp.rep != null && NativeLevels.supports(rd)) {
            return listCopyOf(lp, rd);
        }
        if (lp.rep != null || !flat(rd) || lp.numRows != lp.values.count() || lp.numLevels != lp.numRows
                || !(lp.values instanceof Values.Var
                || lp.values instanceof Values.Fixed f && f.itemValidity() == null
                && (f.bitsPerValue() % 8 == 0 && f.bitsPerValue() > 0 || f.bitsPerValue() == 1))) {
            return null;
        }
        int n = rd.layers.length;
        byte[][] layers = new byte[n][];
        int[] nullDef = new int[n];
        for (int k = 0; k < n; k++) {
            nullDef[k] = rd.defStart[k];
        }
        if (lp.def != null) {
            Kernels k = Kernels.get();
            MemorySegment lv = MemorySegment.ofArray(lp.def);
            if (k.countLevelsBelow(2, lv, 0, lp.numLevels, rd.maxDef + 1) != lp.numLevels) {
                return null;
            }
            for (int l = 0; l < n; l++) {
                if (rd.defStart[l] > rd.maxDef) {
                    continue;
                }
                byte[] bits = new byte[Bits.bytesFor(lp.numLevels) + 1];
                if (k.levelsToValidity(2, lv, 0, lp.numLevels, rd.defStart[l], MemorySegment.ofArray(bits), 0) > 0) {
                    layers[l] = bits;
                }
            }
        }
        return DirectPage.copyOf(lp.values, layers, nullDef, "page");
    }

    /** A heap-decoded list page (constant, all-null, full-zip) unravelled and copied once into native memory. */
    private static DirectPage listCopyOf(LeafPage lp, RepDef rd) {
        if (!(lp.values instanceof Values.Var || lp.values instanceof Values.Fixed f && f.itemValidity() == null
                && (f.bitsPerValue() % 8 == 0 && f.bitsPerValue() > 0 || f.bitsPerValue() == 1))) {
            return null;
        }
        DirectPage.NativeBuffers nb = new DirectPage.NativeBuffers("page");
        try {
            NativeLevels levels = new NativeLevels(nb, rd, lp.numRows, lp.values.count());
            Buf ctx = Buf.ofArray("page", -1, new byte[0]);
            if (levels.add(ctx, lp.rep, lp.def, lp.numLevels) != lp.values.count()) {
                return null;
            }
            return levels.attach("page", -1, DirectPage.copyInto(nb, lp.values, levels.itemValidity()));
        } finally {
            nb.release();
        }
    }

    /**
     * A full-zip page of a top-level leaf without repetition decoded into native memory: fixed-width values
     * copied out from between their control words (nullable pages), strings copied or FSST-decoded straight
     * from the page; null for shapes left to the heap path (item validity, per-value general compression).
     */
    static DirectPage fullZip(String resource, long at, io.javelin.encoding.pb.v21.FullZipLayout fz, List<Buf> bufs, int numRows,
                              LeafKind kind, RepDef rd) {
        if (!flat(rd) && NativeLevels.supports(rd) && fz.getBitsRep() > 0 && !bufs.isEmpty()) {
            return fullZipList(resource, at, fz, bufs.get(0), numRows, kind, rd);
        }
        if (!flat(rd) || fz.getBitsRep() != 0 || bufs.isEmpty() || Integer.toUnsignedLong(fz.getNumItems()) != numRows) {
            return null;
        }
        int bitsDef = fz.getBitsDef();
        if (bitsDef < 0 || bitsDef > 16) {
            return null;
        }
        int ctrlW = bitsDef == 0 ? 0 : bitsDef <= 8 ? 1 : 2;
        long defMask = (1L << bitsDef) - 1;
        CompressiveEncoding vc = fz.getValueCompression();
        Buf data = bufs.get(0);
        boolean fixed = fz.getDetailsCase() == io.javelin.encoding.pb.v21.FullZipLayout.DetailsCase.BITS_PER_VALUE;
        FsstSymbolTable table = null;
        int ow = 0;
        if (fixed) {
            boolean flat = vc.getCompressionCase() == CompressiveEncoding.CompressionCase.FLAT
                    || vc.getCompressionCase() == CompressiveEncoding.CompressionCase.FIXED_SIZE_LIST
                    && !Compressions.hasItemValidity(vc);
            if (!flat || kind.variable() || kind.bitsPerValue() % 8 != 0 || fz.getBitsPerValue() != kind.bitsPerValue()) {
                return null;
            }
        } else {
            long ob = fz.getBitsPerOffset();
            if (!kind.variable() || ob != 32 && ob != 64) {
                return null;
            }
            ow = (int) ob / 8;
            if (vc.getCompressionCase() == CompressiveEncoding.CompressionCase.FSST
                    && vc.getFsst().getValues().getCompressionCase() == CompressiveEncoding.CompressionCase.VARIABLE) {
                table = Codecs.fsstTable(data, vc.getFsst().getSymbolTable());
            } else if (vc.getCompressionCase() != CompressiveEncoding.CompressionCase.VARIABLE) {
                return null;
            }
        }
        DirectPage.NativeBuffers nb = new DirectPage.NativeBuffers("page");
        try {
            // def levels of the page's rows (heap, 2 bytes a row), turned into per-layer bitmaps at the end
            short[] defs = ctrlW > 0 ? new short[numRows] : null;
            Layers layers = ctrlW > 0 ? new Layers(nb, rd, numRows) : null;
            MemorySegment seg = data.seg();
            long size = data.size();
            long pos = 0;
            if (fixed) {
                int w = kind.bitsPerValue() / 8;
                MemorySegment out = nb.allocate((long) numRows * w);
                if (ctrlW == 0) {
                    data.check(0, (long) numRows * w);
                    MemorySegment.copy(seg, 0, out, 0, (long) numRows * w);
                } else {
                    for (int i = 0; i < numRows; i++) {
                        if (pos > size - ctrlW - w) {
                            data.check(pos, ctrlW + w);
                        }
                        int d = (int) ((ctrlW == 1 ? Byte.toUnsignedLong(seg.get(ValueLayout.JAVA_BYTE, pos))
                                : Short.toUnsignedLong(seg.get(Buf.U16, pos))) & defMask);
                        pos += ctrlW;
                        defs[i] = (short) d;
                        MemorySegment.copy(seg, pos, out, (long) i * w, w);
                        pos += w;
                    }
                }
                if (layers != null) {
                    layers.add(data, defs, 0);
                }
                return Layers.attach(DirectPage.fixed(numRows, kind.bitsPerValue(), kind.itemsPerValue(), out,
                        layers == null ? null : layers.validity(0), nb.shared()), layers, rd);
            }
            VarOut out = new VarOut(nb, numRows, size);
            for (int i = 0; i < numRows; i++) {
                int d = 0;
                if (ctrlW > 0) {
                    d = (int) (data.uint(pos, ctrlW) & defMask);
                    pos += ctrlW;
                    defs[i] = (short) d;
                }
                if (d == 0) {
                    pos = appendValue(data, seg, pos, size, ow, table, out);
                }
                out.offsets.setAtIndex(LONG_LE, i + 1, out.size);
            }
            if (layers != null) {
                layers.add(data, defs, 0);
            }
            return Layers.attach(out.page(numRows, kind, layers == null ? null : layers.validity(0), nb), layers, rd);
        } catch (KernelInputException e) {
            throw new CorruptFileException(resource, at, "Bad full-zip values: " + e.getMessage(), e);
        } finally {
            nb.release();
        }
    }

    /**
     * A full-zip page of a leaf under one list: per level a control word (rep, def) and, for a visible level,
     * the value (fixed width: always; strings: a length and bytes when the item is valid). Values go to their
     * item index in native memory; the levels are unravelled by {@link NativeLevels}. Null for shapes left
     * to the heap path.
     */
    private static DirectPage fullZipList(String resource, long at, io.javelin.encoding.pb.v21.FullZipLayout fz, Buf data, int numRows,
                                          LeafKind kind, RepDef rd) {
        int bitsRep = fz.getBitsRep();
        int bitsDef = fz.getBitsDef();
        long numLevels = Integer.toUnsignedLong(fz.getNumItems());
        long numItems = Integer.toUnsignedLong(fz.getNumVisibleItems());
        if (bitsDef < 0 || bitsRep + bitsDef > 16 || numLevels > Compressions.MAX_VALUES || numItems > numLevels) {
            return null;
        }
        int ctrlW = bitsRep + bitsDef <= 8 ? 1 : 2;
        long defMask = (1L << bitsDef) - 1;
        CompressiveEncoding vc = fz.getValueCompression();
        boolean fixed = fz.getDetailsCase() == io.javelin.encoding.pb.v21.FullZipLayout.DetailsCase.BITS_PER_VALUE;
        FsstSymbolTable table = null;
        int ow = 0;
        if (fixed) {
            boolean plain = vc.getCompressionCase() == CompressiveEncoding.CompressionCase.FLAT
                    || vc.getCompressionCase() == CompressiveEncoding.CompressionCase.FIXED_SIZE_LIST && !Compressions.hasItemValidity(vc);
            if (!plain || kind.variable() || kind.bitsPerValue() % 8 != 0 || kind.bitsPerValue() <= 0
                    || fz.getBitsPerValue() != kind.bitsPerValue()) {
                return null;
            }
        } else {
            long ob = fz.getBitsPerOffset();
            if (!kind.variable() || ob != 32 && ob != 64) {
                return null;
            }
            ow = (int) ob / 8;
            if (vc.getCompressionCase() == CompressiveEncoding.CompressionCase.FSST
                    && vc.getFsst().getValues().getCompressionCase() == CompressiveEncoding.CompressionCase.VARIABLE) {
                table = Codecs.fsstTable(data, vc.getFsst().getSymbolTable());
            } else if (vc.getCompressionCase() != CompressiveEncoding.CompressionCase.VARIABLE) {
                return null;
            }
        }
        int levelsN = (int) numLevels;
        int items = (int) numItems;
        DirectPage.NativeBuffers nb = new DirectPage.NativeBuffers("page");
        try {
            short[] rep = new short[levelsN];
            short[] def = bitsDef > 0 ? new short[levelsN] : null;
            int w = fixed ? kind.bitsPerValue() / 8 : 0;
            MemorySegment fixedOut = fixed ? nb.allocate((long) items * w) : null;
            VarOut varOut = fixed ? null : new VarOut(nb, items, data.size());
            MemorySegment seg = data.seg();
            long size = data.size();
            long pos = 0;
            int item = 0;
            int maxVisible = rd.maxVisibleDef;
            for (int i = 0; i < levelsN; i++) {
                long cw = data.uint(pos, ctrlW);
                pos += ctrlW;
                int d = (int) (cw & defMask);
                rep[i] = (short) (cw >>> bitsDef);
                if (def != null) {
                    def[i] = (short) d;
                }
                if (d > maxVisible) {
                    continue; // a null or empty list: no value
                }
                if (item >= items) {
                    throw data.corrupt(pos, "Full-zip page has more than " + items + " visible items");
                }
                if (fixed) {
                    if (pos > size - w) {
                        data.check(pos, w);
                    }
                    MemorySegment.copy(seg, pos, fixedOut, (long) item * w, w);
                    pos += w;
                } else {
                    if (d == 0) {
                        pos = appendValue(data, seg, pos, size, ow, table, varOut);
                    }
                    varOut.offsets.setAtIndex(LONG_LE, item + 1, varOut.size);
                }
                item++;
            }
            if (item != items) {
                throw data.corrupt(0, "Full-zip page has " + item + " visible items, not " + items);
            }
            NativeLevels levels = new NativeLevels(nb, rd, numRows, items);
            if (levels.add(data, rep, def, levelsN) != items) {
                throw data.corrupt(0, "Full-zip levels disagree with the visible items");
            }
            DirectPage page = fixed
                    ? DirectPage.fixed(items, kind.bitsPerValue(), kind.itemsPerValue(), fixedOut, levels.itemValidity(), nb.shared())
                    : varOut.page(items, kind, levels.itemValidity(), nb);
            return levels.attach(resource, at, page);
        } catch (KernelInputException e) {
            throw new CorruptFileException(resource, at, "Bad full-zip values: " + e.getMessage(), e);
        } finally {
            nb.release();
        }
    }

    /** Byte width of dictionary indices under this encoding when it can decode in place (else 0). */
    private static int indexBytes(CompressiveEncoding e) {
        long bits = switch (e.getCompressionCase()) {
            case FLAT -> e.getFlat().getBitsPerValue();
            case INLINE_BITPACKING -> e.getInlineBitpacking().getUncompressedBitsPerValue();
            case GENERAL -> indexBytes(e.getGeneral().getValues()) * 8L;
            default -> 0;
        };
        return bits == 8 || bits == 16 || bits == 32 || bits == 64 ? (int) bits / 8 : 0;
    }

    /**
     * Validity bitmaps of every rep/def layer of a flat (struct-only) page, filled chunk by chunk from def
     * levels: layer k is valid where the level is below its first def level (a null struct makes everything
     * inside it null).
     */
    static final class Layers {
        final RepDef rd;
        final MemorySegment[] bits;
        final long[] nulls;

        Layers(DirectPage.NativeBuffers nb, RepDef rd, int numRows) {
            this.rd = rd;
            int n = rd.layers.length;
            bits = new MemorySegment[n];
            nulls = new long[n];
            for (int k = 0; k < n; k++) {
                if (rd.defStart[k] <= rd.maxDef) {
                    bits[k] = nb.allocate(Bits.bytesFor(numRows));
                    bits[k].fill((byte) 0);
                }
            }
        }

        /** Adds the validity of rows {@code [row, row + def.length)}. */
        void add(Buf ctx, short[] def, int row) {
            Kernels k = Kernels.get();
            MemorySegment lv = MemorySegment.ofArray(def);
            if (k.countLevelsBelow(2, lv, 0, def.length, rd.maxDef + 1) != def.length) {
                throw ctx.corrupt(0, "Definition level above the maximum " + rd.maxDef);
            }
            byte[] tmp = null;
            for (int l = 0; l < bits.length; l++) {
                if (bits[l] == null) {
                    continue;
                }
                if ((row & 7) == 0) {
                    nulls[l] += k.levelsToValidity(2, lv, 0, def.length, rd.defStart[l], bits[l], row >>> 3);
                } else {
                    if (tmp == null) {
                        tmp = new byte[Bits.bytesFor(def.length) + 1];
                    } else {
                        java.util.Arrays.fill(tmp, (byte) 0);
                    }
                    nulls[l] += k.levelsToValidity(2, lv, 0, def.length, rd.defStart[l], MemorySegment.ofArray(tmp), 0);
                    k.copyBits(MemorySegment.ofArray(tmp), 0, bits[l], row, def.length);
                }
            }
        }

        /** Layer {@code l}'s bitmap, or null when no row is null there. */
        MemorySegment validity(int l) {
            return nulls[l] > 0 ? bits[l] : null;
        }

        /** Gives {@code page} the validity of the outer layers ({@code layers} null: all valid). */
        static DirectPage attach(DirectPage page, Layers layers, RepDef rd) {
            int n = rd.layers.length;
            MemorySegment[] v = new MemorySegment[n];
            int[] nullDef = new int[n];
            for (int k = 0; k < n; k++) {
                nullDef[k] = rd.defStart[k];
                if (k > 0 && layers != null) {
                    v[k] = layers.validity(k);
                }
            }
            try {
                return page.withLayers(v, nullDef);
            } catch (RuntimeException e) {
                page.close();
                throw e;
            }
        }
    }

    /** The page's value buffers while chunks are decoded. */
    private interface Out {
        void chunk(CompressiveEncoding e, List<Buf> values, Buf chunk, int row, int n);

        /** {@code n} values {@code dict[idx[i]]} (indices of {@code iw} bytes, below {@code limit}) at {@code row}. */
        void gather(Buf chunk, Values dict, long limit, MemorySegment idx, int iw, int row, int n);

        DirectPage page(int numRows, LeafKind kind, MemorySegment validity, DirectPage.NativeBuffers nb);
    }

    private static final class FixedOut implements Out {
        final MemorySegment data;
        final int w;

        FixedOut(DirectPage.NativeBuffers nb, int numRows, int w) {
            this.w = w;
            this.data = nb.allocate((long) numRows * w + UNPACK_PAD);
        }

        @Override
        public void chunk(CompressiveEncoding e, List<Buf> values, Buf chunk, int row, int n) {
            Compressions.miniBlockInto(e, values, n, chunk, data, (long) row * w, w);
        }

        @Override
        public void gather(Buf chunk, Values dict, long limit, MemorySegment idx, int iw, int row, int n) {
            if (!(dict instanceof Values.Fixed d) || d.bitsPerValue() != w * 8 || d.itemValidity() != null) {
                throw chunk.corrupt(0, "Dictionary of " + dict.getClass().getSimpleName() + " values for " + (w * 8) + "-bit values");
            }
            if (iw == 8 || (w != 1 && w != 2 && w != 4 && w != 8 && w != 16)) {
                MemorySegment src = MemorySegment.ofArray(d.data());
                for (int i = 0; i < n; i++) {
                    long ix = VarOut.index(idx, i, iw);
                    if (ix < 0 || ix >= limit) {
                        throw chunk.corrupt(0, "Dictionary index " + ix + " out of range [0, " + limit + ")");
                    }
                    MemorySegment.copy(src, ix * w, data, ((long) row + i) * w, w);
                }
                return;
            }
            try {
                Kernels.get().gather(w, MemorySegment.ofArray(d.data()), 0, limit, iw, idx, 0, n, data, (long) row * w);
            } catch (KernelInputException e) {
                throw chunk.corrupt(0, "Dictionary index out of range [0, " + limit + "): " + e.getMessage());
            }
        }

        @Override
        public DirectPage page(int numRows, LeafKind kind, MemorySegment validity, DirectPage.NativeBuffers nb) {
            return DirectPage.fixed(numRows, kind.bitsPerValue(), kind.itemsPerValue(), data.asSlice(0, (long) numRows * w), validity,
                    nb.shared());
        }
    }

    /** Booleans: each chunk's bits copied into one native bitmap at the chunk's row. */
    private static final class BitOut implements Out {
        final MemorySegment data;

        BitOut(DirectPage.NativeBuffers nb, int numRows) {
            data = nb.allocate(Bits.bytesFor(numRows));
            data.fill((byte) 0); // bits past the last row stay clear: a batch ending at the page's end wraps that byte
        }

        @Override
        public void chunk(CompressiveEncoding e, List<Buf> values, Buf chunk, int row, int n) {
            if (e.getCompressionCase() == CompressiveEncoding.CompressionCase.FLAT && e.getFlat().getBitsPerValue() == 1) {
                Buf b = Compressions.need(values, 0, chunk);
                b.check(0, Bits.bytesFor(n));
                Kernels.get().copyBits(b.seg(), 0, data, row, n);
                return;
            }
            Values v = Compressions.miniBlock(e, values, n, chunk); // RLE, general compression...: one small chunk
            if (!(v instanceof Values.Fixed f) || f.bitsPerValue() != 1 || f.count() < n || f.data().length < Bits.bytesFor(n)) {
                throw chunk.corrupt(0, "Mini-block values do not match the column's booleans");
            }
            Kernels.get().copyBits(MemorySegment.ofArray(f.data()), 0, data, row, n);
        }

        @Override
        public void gather(Buf chunk, Values dict, long limit, MemorySegment idx, int iw, int row, int n) {
            throw chunk.corrupt(0, "Dictionary-encoded booleans");
        }

        @Override
        public DirectPage page(int numRows, LeafKind kind, MemorySegment validity, DirectPage.NativeBuffers nb) {
            return DirectPage.bits(numRows, data, validity, nb.shared());
        }
    }

    /**
     * Appends the full-zip value at {@code pos} (an {@code ow}-byte length, then the bytes; FSST-decoded when
     * {@code table} is set) to {@code out}; returns the position after it.
     */
    private static long appendValue(Buf data, MemorySegment seg, long pos, long size, int ow, FsstSymbolTable table, VarOut out) {
        long len = data.uint(pos, ow);
        pos += ow;
        if (len < 0 || len > size - pos) {
            throw data.corrupt(pos - ow, "Value length " + len + " past the page");
        }
        if (table == null) {
            out.ensure(len);
            MemorySegment.copy(seg, pos, out.data, out.size, len);
            out.size += len;
        } else {
            long max = table.maxDecodedLength(len);
            out.ensure(max);
            try {
                out.size += table.decode(seg, pos, len, out.data, out.size, max);
            } catch (CodecException e) {
                throw data.corrupt(pos + Math.max(0, e.offset() - pos), "Bad FSST data: " + e.getMessage());
            }
        }
        return pos + len;
    }

    private static final class VarOut implements Out {
        final DirectPage.NativeBuffers nb;
        final MemorySegment offsets;
        MemorySegment data;
        long size;

        VarOut(DirectPage.NativeBuffers nb, int numRows, long pageBytes) {
            this.nb = nb;
            this.offsets = nb.allocate(8L * (numRows + 1));
            offsets.setAtIndex(LONG_LE, 0, 0);
            this.data = nb.allocate(Math.max(64, pageBytes));
        }

        void ensure(long extra) {
            if (extra > Codecs.MAX_DECOMPRESSED || size + extra > Codecs.MAX_DECOMPRESSED * 8) {
                throw new KernelInputException("page of more than " + (Codecs.MAX_DECOMPRESSED * 8) + " string bytes", 0);
            }
            if (size + extra > data.byteSize()) {
                data = nb.grow(data, size, Math.max(size + extra, data.byteSize() * 2));
            }
        }

        @Override
        public void chunk(CompressiveEncoding e, List<Buf> values, Buf chunk, int row, int n) {
            if (e.getCompressionCase() == CompressiveEncoding.CompressionCase.VARIABLE) {
                int ow = offsetWidth(e, chunk);
                if (ow > 0) {
                    plain(Compressions.need(values, 0, chunk), ow, row, n);
                    return;
                }
            }
            if (e.getCompressionCase() == CompressiveEncoding.CompressionCase.FSST
                    && e.getFsst().getValues().getCompressionCase() == CompressiveEncoding.CompressionCase.VARIABLE) {
                int ow = offsetWidth(e.getFsst().getValues(), chunk);
                if (ow > 0) {
                    fsst(Codecs.fsstTable(chunk, e.getFsst().getSymbolTable()), Compressions.need(values, 0, chunk), ow, row, n);
                    return;
                }
            }
            // general compression...: the chunk decodes on the heap (small, cache-resident), then one bulk copy
            Values v = Compressions.miniBlock(e, values, n, chunk);
            if (!(v instanceof Values.Var var) || var.count() != n) {
                throw chunk.corrupt(0, "Fixed-width values in a string column");
            }
            long[] o = var.offsets();
            long len = o[n] - o[0];
            ensure(len);
            MemorySegment.copy(MemorySegment.ofArray(var.data()), o[0], data, size, len);
            long[] off = offsetScratch(n);
            long delta = size - o[0];
            for (int i = 0; i < n; i++) {
                off[i] = o[i + 1] + delta;
            }
            MemorySegment.copy(off, 0, offsets, LONG_LE, 8L * (row + 1), n);
            size += len;
        }

        /** Scratch for a chunk's page-relative offsets, copied to the native offsets in bulk. */
        private long[] offScratch = new long[0];

        private long[] offsetScratch(int n) {
            if (offScratch.length < n) {
                offScratch = new long[Math.max(n, 2 * offScratch.length)];
            }
            return offScratch;
        }

        private static int offsetWidth(CompressiveEncoding variable, Buf ctx) {
            CompressiveEncoding off = variable.getVariable().getOffsets();
            long ob = off.getFlat().getBitsPerValue();
            return off.getCompressionCase() == CompressiveEncoding.CompressionCase.FLAT && (ob == 32 || ob == 64) ? (int) ob / 8 : 0;
        }

        /** Offsets ({@code n + 1} of {@code ow} bytes, relative to the buffer) then bytes, in one buffer. */
        private void plain(Buf b, int ow, int row, int n) {
            b.check(0, (long) (n + 1) * ow);
            long base = b.uint(0, ow);
            long prev = base;
            long[] off = offsetScratch(n);
            MemorySegment seg = b.seg();
            long limit = b.size();
            for (int i = 1; i <= n; i++) {
                long o = ow == 4 ? Integer.toUnsignedLong(seg.get(Buf.U32, 4L * i)) : seg.get(Buf.U64, 8L * i);
                if (o < prev || o > limit) {
                    throw b.corrupt((long) i * ow, "Variable offset " + o + " out of order or past the chunk of " + b.size());
                }
                off[i - 1] = size + o - base;
                prev = o;
            }
            MemorySegment.copy(off, 0, offsets, LONG_LE, 8L * (row + 1), n);
            long len = prev - base;
            if (base > b.size()) {
                throw b.corrupt(0, "Variable offset " + base + " past the chunk of " + b.size());
            }
            ensure(len);
            MemorySegment.copy(b.seg(), base, data, size, len);
            size += len;
        }

        /**
         * FSST strings over plain variable offsets (as {@link #plain}), each value decoded straight into the
         * page's native bytes: no heap copy of the chunk.
         */
        private void fsst(FsstSymbolTable table, Buf b, int ow, int row, int n) {
            b.check(0, (long) (n + 1) * ow);
            MemorySegment seg = b.seg();
            long limit = b.size();
            long base = b.uint(0, ow);
            long last = b.uint((long) n * ow, ow);
            if (base > limit || last < base || last > limit) {
                throw b.corrupt(0, "Variable offsets " + base + ".." + last + " outside the chunk of " + limit);
            }
            // the chunk's codes (a few KiB) are read from a heap copy: four at a time, no per-byte segment checks
            int total = (int) (last - base);
            if (codeScratch.length < total) {
                codeScratch = new byte[Math.max(total, 2 * codeScratch.length)];
            }
            MemorySegment.copy(seg, ValueLayout.JAVA_BYTE, base, codeScratch, 0, total);
            long[] ends = offsetScratch(n);
            long prev = base;
            for (int i = 1; i <= n; i++) {
                long o = ow == 4 ? Integer.toUnsignedLong(seg.get(Buf.U32, 4L * i)) : seg.get(Buf.U64, 8L * i);
                if (o < prev || o > last) {
                    throw b.corrupt((long) i * ow, "Variable offset " + o + " out of order or past the chunk of " + limit);
                }
                ends[i - 1] = o - base;
                prev = o;
            }
            // decoded into a cache-resident heap scratch (8-byte symbol stores at heap speed), then one bulk copy
            long bound = table.maxDecodedLength(total) + 8;
            if (bound > Codecs.MAX_DECOMPRESSED) { // a chunk is a few KiB: never size a scratch from a corrupt one
                throw b.corrupt(0, "FSST chunk of " + total + " code bytes (may decode to " + bound + ")");
            }
            int max = (int) bound;
            if (outScratch.length < max) {
                outScratch = new byte[Math.max(max, 2 * outScratch.length)];
            }
            int written;
            try {
                if (posScratch.length <= total) {
                    posScratch = new int[Math.max(total + 1, 2 * posScratch.length)];
                }
                written = table.decodeRun(codeScratch, ends, n, outScratch, ends, posScratch);
            } catch (CodecException e) {
                throw b.corrupt(base + Math.max(0, e.offset()), "Bad FSST data: " + e.getMessage());
            }
            ensure(written);
            MemorySegment.copy(outScratch, 0, data, ValueLayout.JAVA_BYTE, size, written);
            for (int i = 0; i < n; i++) {
                ends[i] += size;
            }
            MemorySegment.copy(ends, 0, offsets, LONG_LE, 8L * (row + 1), n);
            size += written;
        }

        private byte[] codeScratch = new byte[0];
        private byte[] outScratch = new byte[0];
        private int[] posScratch = new int[0];

        @Override
        public void gather(Buf chunk, Values dict, long limit, MemorySegment idx, int iw, int row, int n) {
            if (!(dict instanceof Values.Var d)) {
                throw chunk.corrupt(0, "Fixed-width dictionary for a string column");
            }
            long[] dOff = d.offsets();
            byte[] dData = d.data();
            long[] off = offsetScratch(n);
            long total = 0;
            for (int i = 0; i < n; i++) {
                long ix = index(idx, i, iw);
                if (ix < 0 || ix >= limit) {
                    throw chunk.corrupt(0, "Dictionary index " + ix + " out of range [0, " + limit + ")");
                }
                total += dOff[(int) ix + 1] - dOff[(int) ix];
                off[i] = size + total;
            }
            if (total > Integer.MAX_VALUE - 16) {
                throw chunk.corrupt(0, "Dictionary chunk of " + total + " bytes");
            }
            // gathered on the heap (System.arraycopy beats per-value segment copies for short strings), copied once
            if (bytesScratch.length < total) {
                bytesScratch = new byte[(int) Math.max(total, Math.min(Integer.MAX_VALUE - 16, 2L * bytesScratch.length))];
            }
            int pos = 0;
            for (int i = 0; i < n; i++) {
                int ix = (int) index(idx, i, iw);
                int st = (int) dOff[ix];
                int len = (int) (dOff[ix + 1] - st);
                System.arraycopy(dData, st, bytesScratch, pos, len);
                pos += len;
            }
            ensure(total);
            MemorySegment.copy(MemorySegment.ofArray(bytesScratch), 0, data, size, total);
            MemorySegment.copy(off, 0, offsets, LONG_LE, 8L * (row + 1), n);
            size += total;
        }

        private byte[] bytesScratch = new byte[0];

        private static long index(MemorySegment idx, int i, int w) {
            return switch (w) {
                case 1 -> Byte.toUnsignedLong(idx.get(ValueLayout.JAVA_BYTE, i));
                case 2 -> Short.toUnsignedLong(idx.get(Buf.U16, 2L * i));
                case 4 -> Integer.toUnsignedLong(idx.get(Buf.U32, 4L * i));
                default -> idx.get(Buf.U64, 8L * i);
            };
        }

        @Override
        public DirectPage page(int numRows, LeafKind kind, MemorySegment validity, DirectPage.NativeBuffers nb) {
            return DirectPage.variable(numRows, offsets, data.asSlice(0, size), validity, nb.shared());
        }
    }
}
