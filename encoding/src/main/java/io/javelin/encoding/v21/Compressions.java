package io.javelin.encoding.v21;

import io.javelin.encoding.UnsupportedEncodingException;
import io.javelin.encoding.arrow.Bits;
import io.javelin.encoding.arrow.Values;
import io.javelin.encoding.io.Buf;
import io.javelin.encoding.pb.v21.BufferCompression;
import io.javelin.encoding.pb.v21.CompressionScheme;
import io.javelin.encoding.pb.v21.CompressiveEncoding;
import java.util.ArrayList;
import java.util.List;

/**
 * Decoders for {@code CompressiveEncoding} trees, in the three shapes Lance uses: mini-block (the
 * buffers of one chunk), block (one buffer: rep/def levels, dictionaries) and per-value (full zip).
 */
final class Compressions {

    /** Upper bound on values decoded from one page buffer; keeps corrupt counts from allocating wildly. */
    static final long MAX_VALUES = 1L << 24;

    private Compressions() {
    }

    static void checkCount(Buf ctx, long n) {
        if (n < 0 || n > MAX_VALUES) {
            throw ctx.corrupt(0, "Impossible value count " + n);
        }
    }

    static int checkBits(Buf ctx, long bits) {
        if (bits != 1 && (bits <= 0 || bits % 8 != 0 || bits > 8L * 65536)) {
            throw ctx.corrupt(0, "Impossible bits per value " + bits);
        }
        return (int) bits;
    }

    // ---------------------------------------------------------------- mini-block

    static Values miniBlock(CompressiveEncoding e, List<Buf> bufs, int n, Buf ctx) {
        checkCount(ctx, n);
        switch (e.getCompressionCase()) {
            case FLAT: {
                int bits = checkBits(ctx, e.getFlat().getBitsPerValue());
                Buf b = need(bufs, 0, ctx);
                return fixed(b, 0, bits, n);
            }
            case VARIABLE: {
                long ob = e.getVariable().getOffsets().getFlat().getBitsPerValue();
                if (e.getVariable().getOffsets().getCompressionCase() != CompressiveEncoding.CompressionCase.FLAT
                        || (ob != 32 && ob != 64)) {
                    throw new UnsupportedEncodingException(ctx.resource(), ctx.fileOffset(), "Variable offsets encoding "
                            + e.getVariable().getOffsets().getCompressionCase() + " bits " + ob);
                }
                return variableChunk(need(bufs, 0, ctx), (int) ob / 8, n);
            }
            case INLINE_BITPACKING: {
                int t = typeBits(ctx, e.getInlineBitpacking().getUncompressedBitsPerValue());
                Buf b = need(bufs, 0, ctx);
                if (n > 1024) {
                    throw b.corrupt(0, "Inline bit-packed chunk of " + n + " values (max 1024)");
                }
                int w = (int) b.uint(0, t / 8);
                if (w > t) {
                    throw b.corrupt(0, "Impossible bit width " + w + " for " + t + "-bit values");
                }
                byte[] out = new byte[1024 * t / 8];
                if (w > 0) {
                    Codecs.unpack1024Into(t, w, b, t / 8, out, 0);
                }
                return new Values.Fixed(n == 1024 ? out : java.util.Arrays.copyOf(out, n * t / 8), t, n);
            }
            case FSST: {
                Values inner = miniBlock(e.getFsst().getValues(), bufs, n, ctx);
                if (!(inner instanceof Values.Var v)) {
                    throw ctx.corrupt(0, "FSST over fixed-width values");
                }
                return Codecs.fsstDecode(ctx, e.getFsst().getSymbolTable(), v);
            }
            case RLE: {
                Buf values = need(bufs, 0, ctx);
                Buf lengths = need(bufs, 1, ctx);
                int bits = checkBits(ctx, flatBits(ctx, e.getRle().getValues()));
                return rle(values, lengths, bits, n, ctx);
            }
            case BYTE_STREAM_SPLIT: {
                int bits = checkBits(ctx, flatBits(ctx, e.getByteStreamSplit().getValues()));
                return byteStreamSplit(need(bufs, 0, ctx), bits, n);
            }
            case GENERAL: {
                List<Buf> rest = new ArrayList<>(bufs);
                rest.set(0, decompress(e.getGeneral().getCompression(), need(bufs, 0, ctx)));
                return miniBlock(e.getGeneral().getValues(), rest, n, ctx);
            }
            case FIXED_SIZE_LIST: {
                var fsl = e.getFixedSizeList();
                long dim = fsl.getItemsPerValue();
                if (dim <= 0 || dim * n > MAX_VALUES) {
                    throw ctx.corrupt(0, "Impossible fixed-size-list dimension " + dim);
                }
                List<Buf> rest = bufs;
                byte[] validity = null;
                if (fsl.getHasValidity()) {
                    Buf vb = need(bufs, 0, ctx);
                    validity = vb.bytes(0, Bits.bytesFor(dim * n));
                    rest = bufs.subList(1, bufs.size());
                }
                Values inner = miniBlock(fsl.getValues(), rest, (int) (dim * n), ctx);
                return fslOf(ctx, inner, (int) dim, n, validity);
            }
            case PACKED_STRUCT: {
                long sum = 0;
                for (long b : e.getPackedStruct().getBitsPerValueList()) {
                    sum += b;
                }
                Buf b = need(bufs, 0, ctx);
                return fixed(b, 0, checkBits(ctx, sum), n);
            }
            case CONSTANT: {
                byte[] v = e.getConstant().getValue().toByteArray();
                return constant(ctx, v, n);
            }
            default:
                throw new UnsupportedEncodingException(ctx.resource(), ctx.fileOffset(),
                        "Mini-block compression " + e.getCompressionCase() + " not supported");
        }
    }

    /**
     * Decodes {@code n} fixed-width values of {@code w} bytes of one mini-block chunk straight into {@code dst}
     * at {@code dstOff}. Flat, inline bit-packing, byte-stream-split, RLE, general compression and fixed-size
     * lists without item validity write in place (bit-packing writes whole blocks of 1024 values: the caller
     * leaves room past the end); anything else decodes on the heap and is copied once.
     */
    static void miniBlockInto(CompressiveEncoding e, List<Buf> bufs, int n, Buf ctx, java.lang.foreign.MemorySegment dst, long dstOff,
                              int w) {
        checkCount(ctx, n);
        long bytes = (long) n * w;
        switch (e.getCompressionCase()) {
            case FLAT -> {
                if (checkBits(ctx, e.getFlat().getBitsPerValue()) == w * 8) {
                    Buf b = need(bufs, 0, ctx);
                    b.check(0, bytes);
                    java.lang.foreign.MemorySegment.copy(b.seg(), 0, dst, dstOff, bytes);
                    return;
                }
            }
            case INLINE_BITPACKING -> {
                int t = typeBits(ctx, e.getInlineBitpacking().getUncompressedBitsPerValue());
                if (t == w * 8) {
                    Buf b = need(bufs, 0, ctx);
                    if (n > 1024) {
                        throw b.corrupt(0, "Inline bit-packed chunk of " + n + " values (max 1024)");
                    }
                    int bw = (int) b.uint(0, t / 8);
                    if (bw > t) {
                        throw b.corrupt(0, "Impossible bit width " + bw + " for " + t + "-bit values");
                    }
                    if (bw == 0) {
                        dst.asSlice(dstOff, bytes).fill((byte) 0);
                    } else {
                        Codecs.unpack1024Into(t, bw, b, t / 8, dst, dstOff);
                    }
                    return;
                }
            }
            case BYTE_STREAM_SPLIT -> {
                int bits = checkBits(ctx, flatBits(ctx, e.getByteStreamSplit().getValues()));
                if (bits == w * 8 && (w == 2 || w == 4 || w == 8)) {
                    Buf b = need(bufs, 0, ctx);
                    b.check(0, bytes);
                    io.javelin.encoding.kernel.Kernels.get().bssDecode(w, b.seg(), 0, n, dst, dstOff);
                    return;
                }
            }
            case RLE -> {
                int bits = checkBits(ctx, flatBits(ctx, e.getRle().getValues()));
                if (bits == w * 8 && (w == 1 || w == 2 || w == 4 || w == 8 || w == 16)) {
                    Buf values = need(bufs, 0, ctx);
                    Buf lengths = need(bufs, 1, ctx);
                    long runs = lengths.size();
                    if (values.size() < runs * w) {
                        throw values.corrupt(0, "RLE values buffer of " + values.size() + " bytes for " + runs + " runs");
                    }
                    if (n > 255 * runs) {
                        throw lengths.corrupt(0, "RLE of " + runs + " runs cannot hold " + n + " values");
                    }
                    long pos = io.javelin.encoding.kernel.Kernels.get().expandRle(w, values.seg(), 0, lengths.seg(), 0, runs,
                            dst.asSlice(dstOff, bytes), 0, n);
                    if (pos < n) {
                        throw lengths.corrupt(0, "RLE runs cover " + pos + " of " + n + " values");
                    }
                    return;
                }
            }
            case GENERAL -> {
                List<Buf> rest = new ArrayList<>(bufs);
                rest.set(0, decompress(e.getGeneral().getCompression(), need(bufs, 0, ctx)));
                miniBlockInto(e.getGeneral().getValues(), rest, n, ctx, dst, dstOff, w);
                return;
            }
            case FIXED_SIZE_LIST -> {
                long dim = e.getFixedSizeList().getItemsPerValue();
                if (!e.getFixedSizeList().getHasValidity() && dim > 0 && w % dim == 0 && dim * n <= MAX_VALUES) {
                    miniBlockInto(e.getFixedSizeList().getValues(), bufs, (int) (dim * n), ctx, dst, dstOff, (int) (w / dim));
                    return;
                }
            }
            default -> {
            }
        }
        Values v = miniBlock(e, bufs, n, ctx);
        if (!(v instanceof Values.Fixed f) || f.bitsPerValue() != w * 8 || f.itemValidity() != null || f.data().length < bytes) {
            throw ctx.corrupt(0, "Mini-block values do not match the column's " + (w * 8) + "-bit values");
        }
        java.lang.foreign.MemorySegment.copy(java.lang.foreign.MemorySegment.ofArray(f.data()), 0, dst, dstOff, bytes);
    }

    /** True if the encoding tree holds a fixed-size list with item validity (not in Arrow layout as decoded). */
    static boolean hasItemValidity(CompressiveEncoding e) {
        return switch (e.getCompressionCase()) {
            case FIXED_SIZE_LIST -> e.getFixedSizeList().getHasValidity() || hasItemValidity(e.getFixedSizeList().getValues());
            case GENERAL -> hasItemValidity(e.getGeneral().getValues());
            default -> false;
        };
    }

    static Values fslOf(Buf ctx, Values inner, int dim, int n, byte[] validity) {
        if (!(inner instanceof Values.Fixed f) || f.bitsPerValue() % 8 != 0) {
            throw ctx.corrupt(0, "Fixed-size list over non byte-aligned values");
        }
        byte[] iv = validity;
        if (f.itemValidity() != null) {
            iv = f.itemValidity(); // nested FSL: inner validity (approximation: outer layer ignored)
        }
        return new Values.Fixed(f.data(), f.bitsPerValue() * dim, n, iv, dim * f.itemsPerValue());
    }

    static Values constant(Buf ctx, byte[] v, int n) {
        if (v.length == 0) {
            return new Values.Fixed(new byte[n], 8, n);
        }
        byte[] out = new byte[Math.multiplyExact(v.length, n)];
        for (int i = 0; i < n; i++) {
            System.arraycopy(v, 0, out, i * v.length, v.length);
        }
        return new Values.Fixed(out, v.length * 8, n);
    }

    private static Buf checked(Buf b, long pos, long len) {
        b.check(pos, len);
        return b;
    }

    static long flatBits(Buf ctx, CompressiveEncoding e) {
        if (e.getCompressionCase() != CompressiveEncoding.CompressionCase.FLAT) {
            throw new UnsupportedEncodingException(ctx.resource(), ctx.fileOffset(), "Expected flat, got " + e.getCompressionCase());
        }
        return e.getFlat().getBitsPerValue();
    }

    static int typeBits(Buf ctx, long t) {
        if (t != 8 && t != 16 && t != 32 && t != 64) {
            throw ctx.corrupt(0, "Impossible bit-packing type width " + t);
        }
        return (int) t;
    }

    static Buf need(List<Buf> bufs, int i, Buf ctx) {
        if (i >= bufs.size()) {
            throw ctx.corrupt(0, "Missing buffer " + i + " (have " + bufs.size() + ")");
        }
        return bufs.get(i);
    }

    static Values.Fixed fixed(Buf b, long pos, int bits, long n) {
        long bytes = bits == 1 ? (n + 7) / 8 : n * (bits / 8);
        return new Values.Fixed(b.bytes(pos, bytes), bits, (int) n);
    }

    static Values.Var variableChunk(Buf b, int w, int n) {
        long[] off = new long[n + 1];
        b.check(0, (long) (n + 1) * w);
        long base = b.uint(0, w);
        long prev = 0;
        for (int i = 0; i <= n; i++) {
            long o = b.uint((long) i * w, w) - base;
            if (o < prev || base + o > b.size() || o < 0) {
                throw b.corrupt((long) i * w, "Variable offset " + (o + base) + " out of order or past the chunk of " + b.size());
            }
            off[i] = o;
            prev = o;
        }
        return new Values.Var(off, b.bytes(base, off[n]));
    }

    static Values rle(Buf values, Buf lengths, int bits, long n, Buf ctx) {
        if (bits % 8 != 0) {
            throw ctx.corrupt(0, "RLE of " + bits + "-bit values");
        }
        int w = bits / 8;
        long runs = lengths.size();
        if (values.size() < runs * w) {
            throw values.corrupt(0, "RLE values buffer of " + values.size() + " bytes for " + runs + " runs");
        }
        if (n > 255 * runs) {
            throw lengths.corrupt(0, "RLE of " + runs + " runs cannot hold " + n + " values");
        }
        byte[] out = new byte[Math.toIntExact(n * w)];
        long pos;
        if (w == 1 || w == 2 || w == 4 || w == 8 || w == 16) {
            pos = io.javelin.encoding.kernel.Kernels.get().expandRle(w, values.seg(), 0, lengths.seg(), 0, runs,
                    java.lang.foreign.MemorySegment.ofArray(out), 0, n);
        } else {
            pos = 0;
            for (long r = 0; r < runs && pos < n; r++) {
                int len = lengths.u8(r);
                byte[] v = values.bytes(r * w, w);
                for (int k = 0; k < len && pos < n; k++, pos++) {
                    System.arraycopy(v, 0, out, (int) (pos * w), w);
                }
            }
        }
        if (pos < n) {
            throw lengths.corrupt(0, "RLE runs cover " + pos + " of " + n + " values");
        }
        return new Values.Fixed(out, bits, (int) n);
    }

    static Values byteStreamSplit(Buf b, int bits, int n) {
        int w = bits / 8;
        if (w == 2 || w == 4 || w == 8) {
            b.check(0, (long) n * w);
            byte[] out = new byte[Math.toIntExact((long) n * w)];
            io.javelin.encoding.kernel.Kernels.get().bssDecode(w, b.seg(), 0, n, java.lang.foreign.MemorySegment.ofArray(out), 0);
            return new Values.Fixed(out, bits, n);
        }
        byte[] src = b.bytes(0, (long) n * w);
        byte[] out = new byte[src.length];
        for (int j = 0; j < w; j++) {
            for (int i = 0; i < n; i++) {
                out[i * w + j] = src[j * n + i];
            }
        }
        return new Values.Fixed(out, bits, n);
    }

    static Buf decompress(BufferCompression c, Buf b) {
        byte[] out;
        if (c.getScheme() == CompressionScheme.COMPRESSION_ALGORITHM_ZSTD) {
            out = Codecs.zstd(b);
        } else if (c.getScheme() == CompressionScheme.COMPRESSION_ALGORITHM_LZ4) {
            out = Codecs.lz4(b);
        } else {
            throw new UnsupportedEncodingException(b.resource(), b.fileOffset(), "Compression scheme " + c.getScheme());
        }
        return Buf.ofArray(b.resource(), b.fileOffset(), out);
    }

    // ---------------------------------------------------------------- block

    /** Decodes a block-compressed buffer of {@code n} values. */
    static Values block(CompressiveEncoding e, Buf b, long n) {
        checkCount(b, n);
        switch (e.getCompressionCase()) {
            case FLAT:
                return fixed(b, 0, checkBits(b, e.getFlat().getBitsPerValue()), n);
            case INLINE_BITPACKING: {
                int t = typeBits(b, e.getInlineBitpacking().getUncompressedBitsPerValue());
                byte[] out = new byte[Math.toIntExact(n * t / 8)];
                long pos = 0;
                for (long done = 0; done < n; done += 1024) {
                    int w = (int) b.uint(pos, t / 8);
                    if (w > t) {
                        throw b.corrupt(pos, "Impossible bit width " + w + " for " + t + "-bit values");
                    }
                    pos += t / 8;
                    int take = (int) Math.min(1024, n - done);
                    if (w > 0 && take == 1024) {
                        Codecs.unpack1024Into(t, w, b, pos, out, done * t / 8);
                    } else if (w > 0) {
                        byte[] blk = Codecs.unpack1024(t, w, checked(b, pos, 128L * w), pos);
                        System.arraycopy(blk, 0, out, (int) (done * t / 8), take * t / 8);
                    }
                    pos += 128L * w;
                }
                return new Values.Fixed(out, t, (int) n);
            }
            case OUT_OF_LINE_BITPACKING: {
                int t = typeBits(b, e.getOutOfLineBitpacking().getUncompressedBitsPerValue());
                long wl = flatBits(b, e.getOutOfLineBitpacking().getValues());
                if (wl < 0 || wl > t) {
                    throw b.corrupt(0, "Impossible bit width " + wl + " for " + t + "-bit values");
                }
                int w = (int) wl;
                long whole = n / 1024;
                long r = n % 1024;
                long words = b.size() / (t / 8);
                boolean rawTail = r > 0 && words == whole * 1024 * w / t + r;
                byte[] out = new byte[Math.toIntExact(n * t / 8)];
                long pos = 0;
                long blocks = whole + ((r > 0 && !rawTail) ? 1 : 0);
                for (long k = 0; k < blocks; k++) {
                    int take = (int) Math.min(1024, n - k * 1024);
                    if (w > 0 && take == 1024) {
                        Codecs.unpack1024Into(t, w, b, pos, out, k * 1024 * t / 8);
                    } else if (w > 0) {
                        byte[] blk = Codecs.unpack1024(t, w, checked(b, pos, 128L * w), pos);
                        System.arraycopy(blk, 0, out, (int) (k * 1024 * t / 8), take * t / 8);
                    }
                    pos += 128L * w;
                }
                if (rawTail) {
                    byte[] tail = b.bytes(pos, r * t / 8);
                    System.arraycopy(tail, 0, out, (int) (whole * 1024 * t / 8), tail.length);
                }
                return new Values.Fixed(out, t, (int) n);
            }
            case RLE: {
                long vbytes = b.u64(0);
                if (vbytes < 0 || vbytes > b.size() - 8) {
                    throw b.corrupt(0, "RLE values length " + vbytes + " past the buffer");
                }
                int bits = checkBits(b, flatBits(b, e.getRle().getValues()));
                return rle(b.slice(8, vbytes), b.slice(8 + vbytes, b.size() - 8 - vbytes), bits, n, b);
            }
            case GENERAL:
                return block(e.getGeneral().getValues(), decompress(e.getGeneral().getCompression(), b), n);
            case VARIABLE: {
                int w = (int) b.u32(0);
                if (w != 32 && w != 64) {
                    throw b.corrupt(0, "Variable block offset width " + w);
                }
                int ow = w / 8;
                long bytesStart = b.uint(ow, ow);
                long[] off = new long[Math.toIntExact(n + 1)];
                long base = b.uint(2L * ow, ow);
                for (int i = 0; i <= n; i++) {
                    off[i] = b.uint(2L * ow + (long) i * ow, ow) - base;
                    if (off[i] < 0 || (i > 0 && off[i] < off[i - 1])) {
                        throw b.corrupt(2L * ow + (long) i * ow, "Variable block offsets out of order");
                    }
                }
                return new Values.Var(off, b.bytes(bytesStart, off[(int) n]));
            }
            case CONSTANT:
                return constant(b, e.getConstant().getValue().toByteArray(), (int) n);
            case FIXED_SIZE_LIST: {
                long dim = e.getFixedSizeList().getItemsPerValue();
                if (dim <= 0 || dim * n > MAX_VALUES) {
                    throw b.corrupt(0, "Impossible fixed-size-list dimension " + dim);
                }
                return fslOf(b, block(e.getFixedSizeList().getValues(), b, dim * n), (int) dim, (int) n, null);
            }
            default:
                throw new UnsupportedEncodingException(b.resource(), b.fileOffset(), "Block compression " + e.getCompressionCase()
                        + " not supported");
        }
    }

    /** Decodes {@code n} rep or def levels. */
    static short[] levels(CompressiveEncoding e, Buf b, long n) {
        Values v = block(e, b, n);
        if (!(v instanceof Values.Fixed f) || (f.bitsPerValue() != 16 && f.bitsPerValue() != 8)) {
            throw b.corrupt(0, "Levels must be 8 or 16-bit integers");
        }
        short[] out = new short[(int) n];
        byte[] d = f.data();
        for (int i = 0; i < n; i++) {
            out[i] = f.bitsPerValue() == 16 ? (short) ((d[2 * i] & 0xFF) | (d[2 * i + 1] & 0xFF) << 8) : (short) (d[i] & 0xFF);
        }
        return out;
    }

    static short[] rawLevels(Buf b) {
        int n = (int) (b.size() / 2);
        short[] out = new short[n];
        for (int i = 0; i < n; i++) {
            out[i] = (short) b.u16(2L * i);
        }
        return out;
    }
}
