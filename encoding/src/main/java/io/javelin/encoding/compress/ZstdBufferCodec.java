package io.javelin.encoding.compress;

import io.airlift.compress.v3.MalformedInputException;
import io.airlift.compress.v3.zstd.ZstdCompressor;
import io.airlift.compress.v3.zstd.ZstdJavaCompressor;
import io.airlift.compress.v3.zstd.ZstdJavaDecompressor;
import io.airlift.compress.v3.zstd.ZstdJavaInputStream;
import io.airlift.compress.v3.zstd.ZstdNativeCompressor;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Lance's zstd framing: {@code u64 LE uncompressed_len} followed by one zstd frame. Buffers written by
 * old Lance versions are a bare zstd stream; like upstream, a buffer is treated as bare when it is
 * shorter than 8 bytes or starts with the zstd magic {@code 0xFD2FB528} and has bit 0x10 of the frame
 * header descriptor clear. Bare streams have no trusted size, so they are decoded by streaming with
 * the caller's limit.
 */
final class ZstdBufferCodec implements BufferCodec {

    static final int MAGIC = 0xFD2FB528;
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final int PREFIX = 8;

    private final int level;
    private final boolean allowNative;

    ZstdBufferCodec(int level, boolean allowNative) {
        this.level = level;
        this.allowNative = allowNative;
    }

    @Override
    public String name() {
        return "zstd";
    }

    static boolean isBareStream(MemorySegment framed) {
        if (framed.byteSize() < PREFIX) {
            return true;
        }
        return framed.get(U32, 0) == MAGIC && (framed.get(ValueLayout.JAVA_BYTE, 4) & 0x10) == 0;
    }

    @Override
    public long declaredLength(MemorySegment framed) {
        if (framed.byteSize() == 0) {
            return 0;
        }
        if (isBareStream(framed)) {
            return frameContentSize(framed);
        }
        return framed.get(U64, 0);
    }

    /** Frame_Content_Size of a bare frame (RFC 8878 §3.1.1.1), or -1 when absent or unreadable. */
    static long frameContentSize(MemorySegment frame) {
        if (frame.byteSize() < 5 || frame.get(U32, 0) != MAGIC) {
            return -1;
        }
        int fhd = frame.get(ValueLayout.JAVA_BYTE, 4) & 0xFF;
        int fcsFlag = fhd >>> 6;
        boolean singleSegment = (fhd & 0x20) != 0;
        int dictIdSize = switch (fhd & 3) {
            case 0 -> 0;
            case 1 -> 1;
            case 2 -> 2;
            default -> 4;
        };
        int fcsSize = switch (fcsFlag) {
            case 0 -> singleSegment ? 1 : 0;
            case 1 -> 2;
            case 2 -> 4;
            default -> 8;
        };
        if (fcsSize == 0) {
            return -1;
        }
        long pos = 5 + (singleSegment ? 0 : 1) + dictIdSize;
        if (pos + fcsSize > frame.byteSize()) {
            return -1;
        }
        long v = 0;
        for (int i = 0; i < fcsSize; i++) {
            v |= (frame.get(ValueLayout.JAVA_BYTE, pos + i) & 0xFFL) << (8 * i);
        }
        return fcsSize == 2 ? v + 256 : v;
    }

    private long checkedPrefix(MemorySegment framed, long limit) {
        long n = framed.get(U64, 0);
        if (n < 0 || n > limit) {
            throw new CodecException("zstd", 0, "Declared uncompressed size " + Long.toUnsignedString(n)
                    + " exceeds the limit " + limit);
        }
        return n;
    }

    @Override
    public MemorySegment decompress(MemorySegment framed, long maxDecompressedBytes, Arena arena) {
        if (framed.byteSize() == 0) {
            return arena.allocate(1).asSlice(0, 0);
        }
        if (isBareStream(framed)) {
            byte[] bytes = decompressBare(framed, maxDecompressedBytes);
            MemorySegment out = arena.allocate(Math.max(bytes.length, 1)).asSlice(0, bytes.length);
            MemorySegment.copy(MemorySegment.ofArray(bytes), 0, out, 0, bytes.length);
            return out;
        }
        long n = checkedPrefix(framed, maxDecompressedBytes);
        MemorySegment out = arena.allocate(Math.max(n, 1)).asSlice(0, n);
        decompressFrame(framed.asSlice(PREFIX), out, n);
        return out;
    }

    @Override
    public long decompress(MemorySegment framed, MemorySegment dst) {
        if (framed.byteSize() == 0) {
            return 0;
        }
        if (isBareStream(framed)) {
            byte[] bytes = decompressBare(framed, dst.byteSize());
            MemorySegment.copy(MemorySegment.ofArray(bytes), 0, dst, 0, bytes.length);
            return bytes.length;
        }
        long n = checkedPrefix(framed, dst.byteSize());
        decompressFrame(framed.asSlice(PREFIX), dst.asSlice(0, n), n);
        return n;
    }

    private static void decompressFrame(MemorySegment frame, MemorySegment out, long expected) {
        long written;
        try {
            written = new ZstdJavaDecompressor().decompress(frame, out);
        } catch (MalformedInputException e) {
            throw new CodecException("zstd", PREFIX + e.getOffset(), "Malformed frame: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            throw new CodecException("zstd", -1, "Malformed frame: " + e, e);
        }
        if (written != expected) {
            throw new CodecException("zstd", PREFIX, "Frame decompressed to " + written + " bytes, the prefix declares " + expected);
        }
    }

    private static byte[] decompressBare(MemorySegment framed, long limit) {
        if (framed.byteSize() < 4 || framed.get(U32, 0) != MAGIC) {
            throw new CodecException("zstd", 0, "Buffer of " + framed.byteSize() + " bytes is neither length-prefixed nor a zstd frame");
        }
        long declared = frameContentSize(framed);
        if (declared > limit) {
            throw new CodecException("zstd", 0, "Frame content size " + declared + " exceeds the limit " + limit);
        }
        int cap = (int) Math.min(Integer.MAX_VALUE - 16, limit);
        byte[] buf = new byte[(int) Math.min(cap, declared >= 0 ? declared : Math.max(65536, 4 * framed.byteSize()))];
        int total = 0;
        try (ZstdJavaInputStream in = new ZstdJavaInputStream(new ByteArrayInputStream(framed.toArray(ValueLayout.JAVA_BYTE)))) {
            while (true) {
                if (total == buf.length) {
                    if (buf.length >= cap) {
                        if (in.read() >= 0) {
                            throw new CodecException("zstd", -1, "Bare zstd stream decompresses past the limit " + limit);
                        }
                        break;
                    }
                    buf = java.util.Arrays.copyOf(buf, (int) Math.min(cap, Math.max(16, 2L * buf.length)));
                }
                int n = in.read(buf, total, buf.length - total);
                if (n < 0) {
                    break;
                }
                total += n;
            }
        } catch (CodecException e) {
            throw e;
        } catch (IOException | RuntimeException e) {
            throw new CodecException("zstd", -1, "Malformed bare zstd stream: " + e, e);
        }
        return total == buf.length ? buf : java.util.Arrays.copyOf(buf, total);
    }

    private ZstdCompressor compressor() {
        if (allowNative && level != 0 && level != 3 && ZstdNativeCompressor.isEnabled()) {
            return new ZstdNativeCompressor(level);
        }
        return new ZstdJavaCompressor();
    }

    @Override
    public long maxCompressedLength(long uncompressedBytes) {
        return PREFIX + new ZstdJavaCompressor().maxCompressedLength(Math.toIntExact(uncompressedBytes));
    }

    @Override
    public long compress(MemorySegment src, MemorySegment dst) {
        Math.toIntExact(src.byteSize());
        int n = compressor().compress(src, dst.asSlice(PREFIX));
        dst.set(U64, 0, src.byteSize());
        return PREFIX + n;
    }
}
