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

    /** True if a page of this layout and kind can decode natively (else the heap path runs). */
    static boolean supports(MiniBlockLayout mb, LeafKind kind, RepDef rd) {
        if (rd.layers.length != 1 || rd.maxRep != 0 || mb.hasRepCompression() || rd.maxDef > 1) {
            return false;
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
        if (mb.getNumItems() != numRows) {
            throw new CorruptFileException(resource, at, "Mini-block page of " + numRows + " rows holds " + mb.getNumItems() + " values");
        }
        Values dict = dictionary ? StructuralPages.dictionary(mb, bufs.get(2)) : null;
        DirectPage.NativeBuffers nb = new DirectPage.NativeBuffers("page");
        try {
            MemorySegment validity = null;
            if (mb.hasDefCompression()) {
                validity = nb.allocate(Bits.bytesFor(numRows));
                validity.fill((byte) 0);
            }
            long nulls = 0;
            Out out = kind.variable() ? new VarOut(nb, numRows, data.size()) : new FixedOut(nb, numRows, kind.bitsPerValue() / 8);
            int row = 0;
            byte[] scratch = new byte[0];
            for (int c = 0; c < t.size(); c++) {
                Buf chunk = data.slice(t.offset()[c], t.bytes()[c]);
                int n = (int) t.values()[c];
                StructuralPages.ChunkParts parts = StructuralPages.chunkParts(mb, chunk);
                if (validity != null) {
                    if (parts.numLevels() != n) {
                        throw chunk.corrupt(0, "Chunk of " + n + " values has " + parts.numLevels() + " levels");
                    }
                    nulls += validity(chunk, Compressions.levels(mb.getDefCompression(), parts.def(), n), validity, row);
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
            if (row != numRows) {
                throw new CorruptFileException(resource, at, "Mini-block chunks hold " + row + " values for " + numRows + " rows");
            }
            return out.page(numRows, kind, nulls > 0 ? validity : null, nb);
        } catch (KernelInputException e) {
            throw new CorruptFileException(resource, at, "Bad mini-block values: " + e.getMessage(), e);
        } finally {
            nb.release();
        }
    }

    /**
     * A heap-decoded page of a top-level leaf without repetition (full-zip, constant, all-null) copied once
     * into native memory, def levels becoming the validity bitmap; null when it is not in that shape.
     */
    static DirectPage copyOf(LeafPage lp) {
        if (lp.rep != null || lp.numRows != lp.values.count() || lp.numLevels != lp.numRows
                || !(lp.values instanceof Values.Var
                || lp.values instanceof Values.Fixed f && f.itemValidity() == null && f.bitsPerValue() % 8 == 0 && f.bitsPerValue() > 0)) {
            return null;
        }
        byte[] validity = null;
        if (lp.def != null) {
            Kernels k = Kernels.get();
            MemorySegment lv = MemorySegment.ofArray(lp.def);
            if (k.countLevelsBelow(2, lv, 0, lp.numLevels, 2) != lp.numLevels) {
                return null;
            }
            byte[] bits = new byte[Bits.bytesFor(lp.numLevels) + 1];
            if (k.levelsToValidity(2, lv, 0, lp.numLevels, 1, MemorySegment.ofArray(bits), 0) > 0) {
                validity = bits;
            }
        }
        return DirectPage.copyOf(lp.values, validity, "page");
    }

    /**
     * A full-zip page of a top-level leaf without repetition decoded into native memory: fixed-width values
     * copied out from between their control words (nullable pages), strings copied or FSST-decoded straight
     * from the page; null for shapes left to the heap path (item validity, per-value general compression).
     */
    static DirectPage fullZip(String resource, long at, io.javelin.encoding.pb.v21.FullZipLayout fz, List<Buf> bufs, int numRows,
                              LeafKind kind, RepDef rd) {
        if (rd.layers.length != 1 || rd.maxRep != 0 || fz.getBitsRep() != 0 || rd.maxDef > 1 || bufs.isEmpty()
                || Integer.toUnsignedLong(fz.getNumItems()) != numRows) {
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
            MemorySegment validity = null;
            if (ctrlW > 0) {
                validity = nb.allocate(Bits.bytesFor(numRows));
                validity.fill((byte) 0);
            }
            MemorySegment seg = data.seg();
            long size = data.size();
            long pos = 0;
            long nulls = 0;
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
                        nulls += setValid(data, pos, validity, i, d);
                        MemorySegment.copy(seg, pos, out, (long) i * w, w);
                        pos += w;
                    }
                }
                return DirectPage.fixed(numRows, kind.bitsPerValue(), kind.itemsPerValue(), out, nulls > 0 ? validity : null,
                        nb.shared());
            }
            VarOut out = new VarOut(nb, numRows, size);
            for (int i = 0; i < numRows; i++) {
                int d = 0;
                if (ctrlW > 0) {
                    d = (int) (data.uint(pos, ctrlW) & defMask);
                    pos += ctrlW;
                    nulls += setValid(data, pos, validity, i, d);
                }
                if (d == 0) {
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
                    pos += len;
                }
                out.offsets.setAtIndex(LONG_LE, i + 1, out.size);
            }
            return out.page(numRows, kind, nulls > 0 ? validity : null, nb);
        } catch (KernelInputException e) {
            throw new CorruptFileException(resource, at, "Bad full-zip values: " + e.getMessage(), e);
        } finally {
            nb.release();
        }
    }

    /** Sets validity bit {@code i} for def level {@code d} (0 valid, 1 null); returns 1 for a null. */
    private static int setValid(Buf data, long pos, MemorySegment validity, int i, int d) {
        if (d == 0) {
            long b = i >>> 3;
            validity.set(ValueLayout.JAVA_BYTE, b, (byte) (validity.get(ValueLayout.JAVA_BYTE, b) | (1 << (i & 7))));
            return 0;
        }
        if (d != 1) {
            throw data.corrupt(pos, "Definition level " + d + " above the maximum 1");
        }
        return 1;
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

    /** Writes the validity of {@code def} (0 valid, 1 null) at bit {@code row}; returns the nulls. */
    private static long validity(Buf chunk, short[] def, MemorySegment validity, int row) {
        Kernels k = Kernels.get();
        MemorySegment lv = MemorySegment.ofArray(def);
        if (k.countLevelsBelow(2, lv, 0, def.length, 2) != def.length) {
            throw chunk.corrupt(0, "Definition level above the maximum 1");
        }
        if ((row & 7) == 0) {
            return k.levelsToValidity(2, lv, 0, def.length, 1, validity, row >>> 3);
        }
        byte[] tmp = new byte[Bits.bytesFor(def.length) + 1];
        long nulls = k.levelsToValidity(2, lv, 0, def.length, 1, MemorySegment.ofArray(tmp), 0);
        k.copyBits(MemorySegment.ofArray(tmp), 0, validity, row, def.length);
        return nulls;
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
            // FSST, general compression...: the chunk decodes on the heap (small, cache-resident), then one bulk copy
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
