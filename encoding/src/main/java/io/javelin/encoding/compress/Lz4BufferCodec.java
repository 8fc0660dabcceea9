package io.javelin.encoding.compress;

import io.airlift.compress.v3.MalformedInputException;
import io.airlift.compress.v3.lz4.Lz4JavaCompressor;
import io.airlift.compress.v3.lz4.Lz4JavaDecompressor;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Lance's lz4 framing: a 4-byte little-endian uncompressed size, then one LZ4 <b>block</b> (what the
 * Rust {@code lz4::block::compress(prepend_size = true)} writes). Not the LZ4 frame format.
 */
final class Lz4BufferCodec implements BufferCodec {

    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final int PREFIX = 4;

    @Override
    public String name() {
        return "lz4";
    }

    @Override
    public long declaredLength(MemorySegment framed) {
        if (framed.byteSize() < PREFIX) {
            throw new CodecException("lz4", 0, "Buffer of " + framed.byteSize() + " bytes is too short for the size prefix");
        }
        return framed.get(U32, 0) & 0xFFFF_FFFFL;
    }

    private long checkedPrefix(MemorySegment framed, long limit) {
        long n = declaredLength(framed);
        if (n > Integer.MAX_VALUE || n > limit) {
            throw new CodecException("lz4", 0, "Declared uncompressed size " + n + " exceeds the limit " + limit);
        }
        return n;
    }

    @Override
    public MemorySegment decompress(MemorySegment framed, long maxDecompressedBytes, Arena arena) {
        long n = checkedPrefix(framed, maxDecompressedBytes);
        MemorySegment out = arena.allocate(Math.max(n, 1)).asSlice(0, n);
        decompressBlock(framed, out, n);
        return out;
    }

    @Override
    public long decompress(MemorySegment framed, MemorySegment dst) {
        long n = checkedPrefix(framed, dst.byteSize());
        decompressBlock(framed, dst.asSlice(0, n), n);
        return n;
    }

    private static void decompressBlock(MemorySegment framed, MemorySegment out, long expected) {
        long written;
        try {
            written = new Lz4JavaDecompressor().decompress(framed.asSlice(PREFIX), out);
        } catch (MalformedInputException e) {
            throw new CodecException("lz4", PREFIX + e.getOffset(), "Malformed block: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            throw new CodecException("lz4", -1, "Malformed block: " + e, e);
        }
        if (written != expected) {
            throw new CodecException("lz4", PREFIX, "Block decompressed to " + written + " bytes, the prefix declares " + expected);
        }
    }

    @Override
    public long maxCompressedLength(long uncompressedBytes) {
        return PREFIX + new Lz4JavaCompressor().maxCompressedLength(Math.toIntExact(uncompressedBytes));
    }

    @Override
    public long compress(MemorySegment src, MemorySegment dst) {
        int n = new Lz4JavaCompressor().compress(src, dst.asSlice(PREFIX));
        dst.set(U32, 0, Math.toIntExact(src.byteSize()));
        return PREFIX + n;
    }
}
