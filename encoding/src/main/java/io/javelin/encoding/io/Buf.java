package io.javelin.encoding.io;

import io.javelin.encoding.CorruptFileException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * A bounds-checked little-endian view of file bytes that knows its file and absolute offset, so that
 * every out-of-range access becomes a {@link CorruptFileException} naming the position.
 */
public record Buf(String resource, long fileOffset, MemorySegment seg) {

    public static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    public static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    public static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    public static Buf of(String resource, ByteRange r) {
        return new Buf(resource, r.offset(), r.segment());
    }

    public static Buf ofArray(String resource, long fileOffset, byte[] bytes) {
        return new Buf(resource, fileOffset, MemorySegment.ofArray(bytes));
    }

    public long size() {
        return seg.byteSize();
    }

    public CorruptFileException corrupt(long pos, String message) {
        return new CorruptFileException(resource, fileOffset + pos, message);
    }

    public void check(long pos, long len) {
        if (pos < 0 || len < 0 || pos > seg.byteSize() || len > seg.byteSize() - pos) {
            throw corrupt(Math.max(0, pos), "Read [" + pos + ", +" + len + ") past the end of a " + seg.byteSize() + "-byte buffer");
        }
    }

    public int u8(long pos) {
        check(pos, 1);
        return Byte.toUnsignedInt(seg.get(ValueLayout.JAVA_BYTE, pos));
    }

    public int u16(long pos) {
        check(pos, 2);
        return Short.toUnsignedInt(seg.get(U16, pos));
    }

    public long u32(long pos) {
        check(pos, 4);
        return Integer.toUnsignedLong(seg.get(U32, pos));
    }

    public long u64(long pos) {
        check(pos, 8);
        return seg.get(U64, pos);
    }

    /** Little-endian unsigned value of {@code width} bytes (1, 2, 4 or 8). */
    public long uint(long pos, int width) {
        return switch (width) {
            case 1 -> u8(pos);
            case 2 -> u16(pos);
            case 4 -> u32(pos);
            case 8 -> u64(pos);
            default -> throw corrupt(pos, "Bad integer width " + width);
        };
    }

    public Buf slice(long pos, long len) {
        check(pos, len);
        return new Buf(resource, fileOffset + pos, seg.asSlice(pos, len));
    }

    public byte[] bytes(long pos, long len) {
        check(pos, len);
        if (len > Integer.MAX_VALUE - 16) {
            throw corrupt(pos, "Buffer of " + len + " bytes too large");
        }
        return seg.asSlice(pos, len).toArray(ValueLayout.JAVA_BYTE);
    }

    public byte[] toArray() {
        return bytes(0, seg.byteSize());
    }
}
