package io.javelin.encoding.v21;

import io.javelin.encoding.arrow.Values;
import io.javelin.encoding.arrow.ValuesBuilder;
import io.javelin.encoding.io.Buf;
import io.javelin.encoding.pb.v21.CompressiveEncoding;
import io.javelin.encoding.pb.v21.MiniBlockLayout;
import java.util.List;

/**
 * Decodes only the taken rows of mini-block chunks without repetition (one level and one value slot per
 * row): levels and cheap value encodings (flat, variable, bit-packed) decode per chunk and the wanted slots
 * are picked out; FSST strings are decompressed only for the picked values, dictionary indices are
 * gathered only for them. The result holds exactly the wanted rows, in page order.
 */
final class TakeDecode {

    private TakeDecode() {
    }

    /** True if chunks of this layout decode row by row here (no repetition, no per-item validity). */
    static boolean supports(MiniBlockLayout mb, LeafKind kind) {
        return (kind.variable() || kind.bitsPerValue() == 1 || kind.bitsPerValue() % 8 == 0) && !mb.hasRepCompression() && !Compressions.hasItemValidity(mb.getValueCompression())
                && !(mb.hasDictionary() && Compressions.hasItemValidity(mb.getDictionary()));
    }

    /**
     * The rows {@code wanted} (page-local, ascending, distinct) of the chunks {@code chunks}: chunk k holds
     * {@code counts[k]} rows starting at page row {@code firstRows[k]}; every wanted row lies in a chunk.
     */
    static LeafPage pick(String resource, long at, MiniBlockLayout mb, List<Buf> chunks, long[] counts, long[] firstRows, Values dict,
                         long[] wanted, LeafKind kind, RepDef rd) {
        boolean hasDef = mb.hasDefCompression();
        int m = wanted.length;
        short[] def = hasDef ? new short[m] : null;
        ValuesBuilder vb = kind.builder().create();
        int w = 0;
        for (int k = 0; k < chunks.size() && w < m; k++) {
            long first = firstRows[k];
            long n = counts[k];
            int w0 = w;
            while (w < m && wanted[w] < first + n) {
                if (wanted[w] < first) {
                    throw new io.javelin.encoding.CorruptFileException(resource, at, "Row " + wanted[w] + " in no planned chunk");
                }
                w++;
            }
            if (w == w0) {
                continue;
            }
            int[] idx = new int[w - w0];
            for (int i = w0; i < w; i++) {
                idx[i - w0] = (int) (wanted[i] - first);
            }
            Buf chunk = chunks.get(k);
            StructuralPages.ChunkParts parts = StructuralPages.chunkParts(mb, chunk);
            if (hasDef) {
                if (parts.numLevels() != n) {
                    throw chunk.corrupt(0, "Chunk of " + n + " values has " + parts.numLevels() + " levels");
                }
                short[] levels = Compressions.levels(mb.getDefCompression(), parts.def(), n);
                if (levels.length < n) {
                    throw chunk.corrupt(0, "Chunk of " + n + " values has " + levels.length + " def levels");
                }
                for (int i = 0; i < idx.length; i++) {
                    def[w0 + i] = levels[idx[i]];
                }
            }
            Values v = values(mb.getValueCompression(), parts.values(), (int) n, chunk, idx);
            if (dict != null) {
                StructuralPages.gather(chunk, dict, mb.getNumDictionaryItems(), v, vb);
            } else {
                vb.append(v, 0, idx.length);
            }
        }
        if (w != m) {
            throw new io.javelin.encoding.CorruptFileException(resource, at, "Rows past the planned chunks");
        }
        return new LeafPage(resource, rd, m, m, null, def, vb.build());
    }

    /** The values at {@code idx} of a chunk of {@code n}: FSST decompresses only those. */
    private static Values values(CompressiveEncoding e, List<Buf> bufs, int n, Buf chunk, int[] idx) {
        if (e.getCompressionCase() == CompressiveEncoding.CompressionCase.FSST) {
            Values inner = values(e.getFsst().getValues(), bufs, n, chunk, idx);
            if (!(inner instanceof Values.Var v)) {
                throw chunk.corrupt(0, "FSST over fixed-width values");
            }
            return Codecs.fsstDecode(chunk, e.getFsst().getSymbolTable(), v);
        }
        if (e.getCompressionCase() == CompressiveEncoding.CompressionCase.VARIABLE
                && e.getVariable().getOffsets().getCompressionCase() == CompressiveEncoding.CompressionCase.FLAT) {
            long ob = e.getVariable().getOffsets().getFlat().getBitsPerValue();
            if (ob == 32 || ob == 64) {
                return variable(Compressions.need(bufs, 0, chunk), (int) ob / 8, n, idx);
            }
        }
        if (e.getCompressionCase() == CompressiveEncoding.CompressionCase.INLINE_BITPACKING && idx.length * 4 < n) {
            int t = Compressions.typeBits(chunk, e.getInlineBitpacking().getUncompressedBitsPerValue());
            Buf b = Compressions.need(bufs, 0, chunk);
            if (n > 1024) {
                throw b.corrupt(0, "Inline bit-packed chunk of " + n + " values (max 1024)");
            }
            int w = (int) b.uint(0, t / 8);
            if (w > t) {
                throw b.corrupt(0, "Impossible bit width " + w + " for " + t + "-bit values");
            }
            b.check(t / 8, 128L * w);
            byte[] out = new byte[idx.length * (t / 8)];
            java.lang.foreign.MemorySegment dst = java.lang.foreign.MemorySegment.ofArray(out);
            for (int i = 0; i < idx.length; i++) {
                long v = unpackOne(t, w, b.seg(), t / 8, idx[i]);
                switch (t) {
                    case 8 -> dst.set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, (byte) v);
                    case 16 -> dst.set(U16, 2L * i, (short) v);
                    case 32 -> dst.set(U32, 4L * i, (int) v);
                    default -> dst.set(U64, 8L * i, v);
                }
            }
            return new Values.Fixed(out, t, idx.length);
        }
        if (e.getCompressionCase() == CompressiveEncoding.CompressionCase.FLAT) {
            int bits = Compressions.checkBits(chunk, e.getFlat().getBitsPerValue());
            if (bits % 8 == 0) {
                return flat(Compressions.need(bufs, 0, chunk), bits, n, idx);
            }
        }
        Values all = Compressions.miniBlock(e, bufs, n, chunk);
        if (all.count() < n) {
            throw chunk.corrupt(0, "Chunk of " + n + " values decoded " + all.count());
        }
        return pick(all, idx, chunk);
    }

    private static final java.lang.foreign.ValueLayout.OfShort U16 =
            java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN);
    private static final java.lang.foreign.ValueLayout.OfInt U32 =
            java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN);
    private static final java.lang.foreign.ValueLayout.OfLong U64 =
            java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN);
    /** The FastLanes row order (a 3-bit reversal, its own inverse). */
    private static final int[] FL_ORDER = {0, 4, 2, 6, 1, 5, 3, 7};

    /**
     * Value {@code index} of a FastLanes block of 1024 {@code t}-bit values packed at {@code w} bits from
     * {@code pos}: output index {@code FL_ORDER[row / 8] * 16 + (row % 8) * 128 + lane} is read from word
     * {@code lanes * (row * w / t) + lane} (and the next row of words when it spills), as the block unpack does.
     */
    static long unpackOne(int t, int w, java.lang.foreign.MemorySegment packed, long pos, int index) {
        if (w == 0) {
            return 0;
        }
        int lanes = 1024 / t;
        int rem = index & 127;
        int row = -1;
        int lane = 0;
        for (int hi = 0; hi < t / 8; hi++) {
            int base = FL_ORDER[hi] * 16;
            if (rem >= base && rem < base + lanes) {
                row = hi * 8 + (index >>> 7);
                lane = rem - base;
                break;
            }
        }
        if (row < 0) {
            throw new IllegalArgumentException("index " + index + " of a " + t + "-bit block");
        }
        int bit = row * w;
        int shift = bit % t;
        long word = (long) lanes * (bit / t) + lane;
        long lo = word(t, packed, pos, word) >>> shift;
        if (shift + w > t) {
            lo |= word(t, packed, pos, word + lanes) << (t - shift);
        }
        return w == 64 ? lo : lo & ((1L << w) - 1);
    }

    private static long word(int t, java.lang.foreign.MemorySegment packed, long pos, long i) {
        return switch (t) {
            case 8 -> packed.get(java.lang.foreign.ValueLayout.JAVA_BYTE, pos + i) & 0xFFL;
            case 16 -> packed.get(U16, pos + 2 * i) & 0xFFFFL;
            case 32 -> packed.get(U32, pos + 4 * i) & 0xFFFFFFFFL;
            default -> packed.get(U64, pos + 8 * i);
        };
    }

    /** Values {@code idx} of a variable-width chunk (offsets of {@code w} bytes, then the bytes): only those are read. */
    private static Values.Var variable(Buf b, int w, int n, int[] idx) {
        b.check(0, (long) (n + 1) * w);
        long base = b.uint(0, w);
        long[] off = new long[idx.length + 1];
        long[] from = new long[idx.length];
        for (int i = 0; i < idx.length; i++) {
            long s = b.uint((long) idx[i] * w, w);
            long e = b.uint((long) (idx[i] + 1) * w, w);
            if (s < base || e < s || e > b.size()) {
                throw b.corrupt((long) idx[i] * w, "Variable offsets [" + s + ", " + e + ") out of order or past the chunk of " + b.size());
            }
            from[i] = s;
            off[i + 1] = off[i] + (e - s);
        }
        byte[] data = new byte[Math.toIntExact(off[idx.length])];
        java.lang.foreign.MemorySegment dst = java.lang.foreign.MemorySegment.ofArray(data);
        for (int i = 0; i < idx.length; i++) {
            java.lang.foreign.MemorySegment.copy(b.seg(), from[i], dst, off[i], off[i + 1] - off[i]);
        }
        return new Values.Var(off, data);
    }

    /** Values {@code idx} of a flat chunk of {@code n} byte-aligned values. */
    private static Values.Fixed flat(Buf b, int bits, int n, int[] idx) {
        int bw = bits / 8;
        b.check(0, (long) n * bw);
        byte[] out = new byte[Math.multiplyExact(idx.length, bw)];
        java.lang.foreign.MemorySegment dst = java.lang.foreign.MemorySegment.ofArray(out);
        for (int i = 0; i < idx.length; i++) {
            java.lang.foreign.MemorySegment.copy(b.seg(), (long) idx[i] * bw, dst, (long) i * bw, bw);
        }
        return new Values.Fixed(out, bits, idx.length);
    }

    /** Values {@code idx} of {@code v}. */
    static Values pick(Values v, int[] idx, Buf ctx) {
        if (v instanceof Values.Var var) {
            long[] off = new long[idx.length + 1];
            long bytes = 0;
            for (int i = 0; i < idx.length; i++) {
                bytes += var.offsets()[idx[i] + 1] - var.offsets()[idx[i]];
                off[i + 1] = bytes;
            }
            byte[] data = new byte[Math.toIntExact(bytes)];
            for (int i = 0; i < idx.length; i++) {
                long s = var.offsets()[idx[i]];
                System.arraycopy(var.data(), (int) s, data, (int) off[i], (int) (off[i + 1] - off[i]));
            }
            return new Values.Var(off, data);
        }
        Values.Fixed f = (Values.Fixed) v;
        if (f.itemValidity() != null) {
            throw ctx.corrupt(0, "Item validity in a chunk without it");
        }
        int bits = f.bitsPerValue();
        if (bits == 1) {
            byte[] out = new byte[(idx.length + 7) >>> 3];
            for (int i = 0; i < idx.length; i++) {
                if ((f.data()[idx[i] >>> 3] & (1 << (idx[i] & 7))) != 0) {
                    out[i >>> 3] |= (byte) (1 << (i & 7));
                }
            }
            return new Values.Fixed(out, 1, idx.length, null, f.itemsPerValue());
        }
        if (bits % 8 != 0) {
            throw ctx.corrupt(0, "Values of " + bits + " bits cannot be picked");
        }
        int bw = bits / 8;
        byte[] out = new byte[Math.multiplyExact(idx.length, bw)];
        for (int i = 0; i < idx.length; i++) {
            System.arraycopy(f.data(), idx[i] * bw, out, i * bw, bw);
        }
        return new Values.Fixed(out, bits, idx.length, null, f.itemsPerValue());
    }
}
