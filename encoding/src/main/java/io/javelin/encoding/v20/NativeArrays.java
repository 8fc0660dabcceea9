package io.javelin.encoding.v20;

import io.javelin.encoding.arrow.Bits;
import io.javelin.encoding.arrow.DirectPage;
import io.javelin.encoding.io.Buf;
import io.javelin.encoding.io.SharedMemory;
import io.javelin.encoding.pb.v20.ArrayEncoding;
import io.javelin.encoding.pb.v20.Flat;
import io.javelin.encoding.v21.LeafKind;
import io.javelin.objectstore.memory.Buffer;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * The common 2.0 pages of a top-level leaf as {@link DirectPage}s without a heap detour: uncompressed flat
 * values (and fixed-size lists of them) are already in Arrow layout in the read buffer, so the page wraps
 * them where they were read; a validity bitmap is wrapped too (copied only when its last byte has bits
 * past the page); binary pages wrap their bytes and rebuild only the offsets (int64, from 0) natively.
 * Anything else (compression, dictionaries, FSST, all-null, constant) returns null: the heap decoder takes it.
 */
final class NativeArrays {

    private static final ValueLayout.OfLong LONG_LE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private NativeArrays() {
    }

    /**
     * The page of {@code n} values of {@code kind} encoded as {@code e}, or null when this class does not
     * cover the encoding. The page retains {@code memory} (the read buffers) while it wraps them.
     */
    static DirectPage decode(ArrayEncoding e, List<Buf> bufs, long n, Buf ctx, SharedMemory memory, LeafKind kind) {
        if (n <= 0 || n > ArrayDecoders.MAX_VALUES) {
            return null;
        }
        ArrayEncoding values = e;
        ArrayEncoding validity = null;
        if (e.hasNullable()) {
            var nl = e.getNullable();
            if (nl.hasNoNulls()) {
                values = nl.getNoNulls().getValues();
            } else if (nl.hasSomeNulls()) {
                values = nl.getSomeNulls().getValues();
                validity = nl.getSomeNulls().getValidity();
            } else {
                return null;
            }
        }
        Own own = new Own(memory);
        try {
            MemorySegment valid = validity == null ? null : bitmap(validity, bufs, (int) n, ctx, own);
            if (validity != null && valid == null) {
                return null;
            }
            DirectPage page = kind.variable() ? binary(values, bufs, (int) n, ctx, valid, own) : fixed(values, bufs, (int) n, ctx, kind, valid, own);
            return page;
        } finally {
            own.shared.release(); // the page holds its own reference (or none: everything goes now)
        }
    }

    /** The read buffers plus the native buffers built here, released together when the page goes. */
    private static final class Own {
        final List<Buffer> built = new ArrayList<>();
        final SharedMemory shared;

        Own(SharedMemory reads) {
            reads.retain();
            shared = new SharedMemory(() -> {
                built.forEach(Buffer::close);
                reads.release();
            });
        }

        MemorySegment allocate(long size) {
            Buffer b = Buffer.allocateUninitialized(Math.max(size, 1), "page");
            built.add(b);
            return b.segment().asSlice(0, size);
        }
    }

    /** The uncompressed flat buffer of {@code e} with {@code bits} per value, or null. */
    private static Flat plainFlat(ArrayEncoding e) {
        if (e.hasNullable() && e.getNullable().hasNoNulls()) {
            e = e.getNullable().getNoNulls().getValues();
        }
        if (!e.hasFlat()) {
            return null;
        }
        Flat f = e.getFlat();
        return f.hasCompression() && !f.getCompression().getScheme().isEmpty() ? null : f;
    }

    private static MemorySegment bitmap(ArrayEncoding e, List<Buf> bufs, int n, Buf ctx, Own own) {
        Flat f = plainFlat(e);
        if (f == null || f.getBitsPerValue() != 1) {
            return null;
        }
        Buf b = ArrayDecoders.buffer(bufs, f.getBuffer(), ctx);
        int bytes = Bits.bytesFor(n);
        b.check(0, bytes);
        if (!b.seg().isNative()) {
            return null;
        }
        MemorySegment bits = b.seg().asSlice(0, bytes);
        if ((n & 7) == 0) {
            return bits;
        }
        // bits past the page must read as clear (a batch ending at the page's end wraps the last byte),
        // and the read buffer is not ours to write: copy the (small) bitmap
        MemorySegment copy = own.allocate(bytes);
        MemorySegment.copy(bits, 0, copy, 0, bytes);
        copy.set(ValueLayout.JAVA_BYTE, bytes - 1, (byte) (copy.get(ValueLayout.JAVA_BYTE, bytes - 1) & ((1 << (n & 7)) - 1)));
        return copy;
    }

    private static DirectPage fixed(ArrayEncoding e, List<Buf> bufs, int n, Buf ctx, LeafKind kind, MemorySegment valid, Own own) {
        int dim = 1;
        if (e.hasFixedSizeList()) {
            long d = e.getFixedSizeList().getDimension();
            if (d <= 0 || d * n > ArrayDecoders.MAX_VALUES) {
                return null;
            }
            dim = (int) d;
            e = e.getFixedSizeList().getItems();
        }
        Flat f = plainFlat(e);
        if (f == null || f.getBitsPerValue() % 8 != 0 || f.getBitsPerValue() * dim != kind.bitsPerValue()) {
            return null;
        }
        Buf b = ArrayDecoders.buffer(bufs, f.getBuffer(), ctx);
        long bytes = (long) n * (kind.bitsPerValue() / 8);
        b.check(0, bytes);
        if (!b.seg().isNative()) {
            return null;
        }
        return DirectPage.fixed(n, kind.bitsPerValue(), kind.itemsPerValue(), b.seg().asSlice(0, bytes), valid, own.shared);
    }

    private static DirectPage binary(ArrayEncoding e, List<Buf> bufs, int n, Buf ctx, MemorySegment valid, Own own) {
        if (!e.hasBinary()) {
            return null;
        }
        var bin = e.getBinary();
        Flat ix = plainFlat(bin.getIndices());
        Flat by = plainFlat(bin.getBytes());
        if (ix == null || by == null || by.getBitsPerValue() != 8 || ix.getBitsPerValue() != 32 && ix.getBitsPerValue() != 64) {
            return null;
        }
        Buf ib = ArrayDecoders.buffer(bufs, ix.getBuffer(), ctx);
        Buf bb = ArrayDecoders.buffer(bufs, by.getBuffer(), ctx);
        if (!bb.seg().isNative()) {
            return null;
        }
        int w = (int) (ix.getBitsPerValue() / 8);
        ib.check(0, (long) n * w);
        long adj = bin.getNullAdjustment();
        MemorySegment off = own.allocate(8L * (n + 1));
        off.setAtIndex(LONG_LE, 0, 0);
        MemorySegment nulls = null; // validity from the null adjustment, built at the first null
        long prev = 0;
        for (int i = 0; i < n; i++) {
            long v = ib.uint((long) i * w, w);
            boolean isNull = adj > 0 && Long.compareUnsigned(v, adj) >= 0;
            if (isNull) {
                v -= adj;
                if (nulls == null) {
                    nulls = own.allocate(Bits.bytesFor(n));
                    nulls.fill((byte) 0);
                    setRange(nulls, i);
                }
            } else if (nulls != null) {
                nulls.set(ValueLayout.JAVA_BYTE, i >>> 3, (byte) (nulls.get(ValueLayout.JAVA_BYTE, i >>> 3) | (1 << (i & 7))));
            }
            if (v < prev) {
                throw ctx.corrupt(0, "Binary offsets out of order at " + i);
            }
            off.setAtIndex(LONG_LE, i + 1, v);
            prev = v;
        }
        bb.check(0, prev);
        MemorySegment validity = and(valid, nulls, n);
        return DirectPage.variable(n, off, bb.seg().asSlice(0, prev), validity, own.shared);
    }

    /** Sets bits {@code [0, count)}. */
    private static void setRange(MemorySegment bits, int count) {
        for (int k = 0; k < count; k++) {
            bits.set(ValueLayout.JAVA_BYTE, k >>> 3, (byte) (bits.get(ValueLayout.JAVA_BYTE, k >>> 3) | (1 << (k & 7))));
        }
    }

    /** The row validity from both sources (either may be null = all valid). */
    private static MemorySegment and(MemorySegment a, MemorySegment b, int n) {
        if (a == null || b == null) {
            return a == null ? b : a;
        }
        for (int i = 0; i < Bits.bytesFor(n); i++) {
            b.set(ValueLayout.JAVA_BYTE, i, (byte) (b.get(ValueLayout.JAVA_BYTE, i) & a.get(ValueLayout.JAVA_BYTE, i)));
        }
        return b;
    }
}
