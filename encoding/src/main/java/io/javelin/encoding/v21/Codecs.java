package io.javelin.encoding.v21;

import io.javelin.encoding.CorruptFileException;
import io.javelin.encoding.arrow.Values;
import io.javelin.encoding.compress.BufferCodec;
import io.javelin.encoding.compress.BufferCompression;
import io.javelin.encoding.compress.CodecException;
import io.javelin.encoding.compress.FsstSymbolTable;
import io.javelin.encoding.io.Buf;
import io.javelin.encoding.kernel.KernelInputException;
import io.javelin.encoding.kernel.Kernels;
import io.javelin.objectstore.memory.OffHeap;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The bridge from the structural decoders to the shared kernels (FastLanes unpack, FSST, zstd, lz4).
 * Every call into {@code io.javelin.encoding.kernel} / {@code io.javelin.encoding.compress} goes
 * through here, and their typed exceptions become {@link CorruptFileException}s with file offsets.
 */
public final class Codecs {

    /** Largest buffer a decompression may produce (bounded allocations on corrupt input). */
    public static final long MAX_DECOMPRESSED = 1L << 28;

    private Codecs() {
    }

    /**
     * Unpacks one FastLanes block of 1024 values of {@code typeBits} bits packed at {@code width} bits,
     * starting at {@code pos} of {@code src} ({@code 128 * width} bytes), into {@code 1024 * typeBits / 8}
     * little-endian bytes.
     */
    public static byte[] unpack1024(int typeBits, int width, Buf src, long pos) {
        src.check(pos, Kernels.packedBytes(width));
        long[] out = new long[1024 * typeBits / 64];
        try {
            Kernels.get().unpack(typeBits, width, src.seg(), pos, MemorySegment.ofArray(out), 0);
        } catch (KernelInputException | IndexOutOfBoundsException e) {
            throw src.corrupt(pos, "Bad bit-packed block: " + e.getMessage());
        }
        return MemorySegment.ofArray(out).toArray(ValueLayout.JAVA_BYTE);
    }

    /**
     * Unpacks one FastLanes block straight into {@code out} at byte {@code outPos}, which must have room
     * for all 1024 values ({@code 128 * typeBits} bytes).
     */
    public static void unpack1024Into(int typeBits, int width, Buf src, long pos, byte[] out, long outPos) {
        src.check(pos, Kernels.packedBytes(width));
        try {
            Kernels.get().unpack(typeBits, width, src.seg(), pos, MemorySegment.ofArray(out), outPos);
        } catch (KernelInputException | IndexOutOfBoundsException e) {
            throw src.corrupt(pos, "Bad bit-packed block: " + e.getMessage());
        }
    }

    /** As {@link #unpack1024Into(int, int, Buf, long, byte[], long)} into any segment (room for 1024 values). */
    public static void unpack1024Into(int typeBits, int width, Buf src, long pos, MemorySegment out, long outPos) {
        src.check(pos, Kernels.packedBytes(width));
        try {
            Kernels.get().unpack(typeBits, width, src.seg(), pos, out, outPos);
        } catch (KernelInputException | IndexOutOfBoundsException e) {
            throw src.corrupt(pos, "Bad bit-packed block: " + e.getMessage());
        }
    }

    /** The parsed FSST symbol table of a protobuf field (parsed once per distinct table, as in fsstDecode). */
    public static FsstSymbolTable fsstTable(Buf ctx, com.google.protobuf.ByteString table) {
        ParsedTable last = lastTable;
        if (last != null && last.bytes() == table) {
            return last.table();
        }
        Buf tb = Buf.ofArray(ctx.resource(), ctx.fileOffset(), table.toByteArray());
        try {
            FsstSymbolTable parsed = FsstSymbolTable.parse(tb.seg(), 0);
            lastTable = new ParsedTable(table, parsed);
            return parsed;
        } catch (CodecException e) {
            throw tb.corrupt(Math.max(0, e.offset()), "Bad FSST data: " + e.getMessage());
        }
    }

    /** Decodes FSST-compressed strings with a 2312-byte Lance symbol table. */
    public static Values.Var fsstDecode(Buf symbolTable, Values.Var compressed) {
        try {
            return fsstDecode(symbolTable, FsstSymbolTable.parse(symbolTable.seg(), 0), compressed);
        } catch (CodecException e) {
            throw symbolTable.corrupt(Math.max(0, e.offset()), "Bad FSST data: " + e.getMessage());
        }
    }

    /** The last symbol table parsed, by the identity of its protobuf bytes (mini-block chunks of a page share one). */
    private record ParsedTable(com.google.protobuf.ByteString bytes, FsstSymbolTable table) {
    }

    private static volatile ParsedTable lastTable;

    /** Decodes FSST strings whose table is {@code table} (a protobuf field): parsed once per distinct table. */
    public static Values.Var fsstDecode(Buf ctx, com.google.protobuf.ByteString table, Values.Var compressed) {
        ParsedTable last = lastTable;
        FsstSymbolTable parsed;
        if (last != null && last.bytes() == table) {
            parsed = last.table();
        } else {
            Buf tb = Buf.ofArray(ctx.resource(), ctx.fileOffset(), table.toByteArray());
            try {
                parsed = FsstSymbolTable.parse(tb.seg(), 0);
            } catch (CodecException e) {
                throw tb.corrupt(Math.max(0, e.offset()), "Bad FSST data: " + e.getMessage());
            }
            lastTable = new ParsedTable(table, parsed);
        }
        try {
            return fsstDecode(ctx, parsed, compressed);
        } catch (CodecException e) {
            throw ctx.corrupt(Math.max(0, e.offset()), "Bad FSST data: " + e.getMessage());
        }
    }

    private static Values.Var fsstDecode(Buf symbolTable, FsstSymbolTable table, Values.Var compressed) {
        int n = compressed.count();
        long[] off = new long[n + 1];
        byte[] out = table.decodeAll(compressed.data(), compressed.offsets(), n, off, MAX_DECOMPRESSED);
        int len = (int) off[n];
        return new Values.Var(off, out.length == len ? out : java.util.Arrays.copyOf(out, len));
    }

    /** Decompresses a whole zstd buffer (u64 length prefix or raw frame). */
    public static byte[] zstd(Buf src) {
        return decompress(BufferCompression.zstd(), src);
    }

    /** Decompresses an LZ4 block with a u32 length prefix. */
    public static byte[] lz4(Buf src) {
        return decompress(BufferCompression.lz4(), src);
    }

    private static byte[] decompress(BufferCodec codec, Buf src) {
        try {
            long declared = codec.declaredLength(src.seg());
            if (declared >= 0) {
                if (declared > MAX_DECOMPRESSED) {
                    throw src.corrupt(0, codec.name() + " buffer declares " + declared + " bytes");
                }
                byte[] out = new byte[(int) declared];
                long n = codec.decompress(src.seg(), MemorySegment.ofArray(out));
                if (n != declared) {
                    throw src.corrupt(0, codec.name() + " buffer decoded " + n + " of " + declared + " bytes");
                }
                return out;
            }
            try (Arena arena = OffHeap.newArena("decompress")) {
                return codec.decompress(src.seg(), MAX_DECOMPRESSED, arena).toArray(ValueLayout.JAVA_BYTE);
            }
        } catch (CodecException e) {
            throw src.corrupt(Math.max(0, e.offset()), "Bad " + codec.name() + " data: " + e.getMessage());
        }
    }
}
