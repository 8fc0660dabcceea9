package io.javelin.encoding.writer;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * A growable little-endian byte buffer on the heap, the writer's scratch and page buffer. Pages are
 * bounded by the page size, so the heap holds at most a few pages per column.
 */
public final class Bytes {
    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private byte[] data;
    private int size;

    public Bytes() {
        this(64);
    }

    public Bytes(int capacity) {
        data = new byte[Math.max(16, capacity)];
    }

    public static Bytes wrap(byte[] bytes) {
        Bytes b = new Bytes(0);
        b.data = bytes;
        b.size = bytes.length;
        return b;
    }

    public int size() {
        return size;
    }

    public byte[] array() {
        return data;
    }

    public void clear() {
        size = 0;
    }

    public void ensure(int extra) {
        long need = (long) size + extra;
        if (need > data.length) {
            if (need > Integer.MAX_VALUE - 16) {
                throw new LanceWriteException("Page buffer exceeds 2 GiB: " + need + " bytes");
            }
            data = Arrays.copyOf(data, (int) Math.min(Integer.MAX_VALUE - 16, Math.max(need, (long) data.length * 2)));
        }
    }

    public Bytes u8(int v) {
        ensure(1);
        data[size++] = (byte) v;
        return this;
    }

    public Bytes u16(int v) {
        ensure(2);
        data[size] = (byte) v;
        data[size + 1] = (byte) (v >>> 8);
        size += 2;
        return this;
    }

    public Bytes u32(long v) {
        ensure(4);
        for (int i = 0; i < 4; i++) {
            data[size + i] = (byte) (v >>> (8 * i));
        }
        size += 4;
        return this;
    }

    public Bytes u64(long v) {
        ensure(8);
        for (int i = 0; i < 8; i++) {
            data[size + i] = (byte) (v >>> (8 * i));
        }
        size += 8;
        return this;
    }

    /** Writes the low {@code width} bytes of {@code v} little-endian. */
    public Bytes uint(long v, int width) {
        ensure(width);
        for (int i = 0; i < width; i++) {
            data[size + i] = (byte) (v >>> (8 * i));
        }
        size += width;
        return this;
    }

    public Bytes put(byte[] src) {
        return put(src, 0, src.length);
    }

    public Bytes put(byte[] src, int off, int len) {
        ensure(len);
        System.arraycopy(src, off, data, size, len);
        size += len;
        return this;
    }

    public Bytes put(Bytes src, int off, int len) {
        return put(src.data, off, len);
    }

    public Bytes put(MemorySegment src, long off, int len) {
        ensure(len);
        MemorySegment.copy(src, ValueLayout.JAVA_BYTE, off, data, size, len);
        size += len;
        return this;
    }

    /** Marks {@code len} bytes already written into {@link #array()} past {@link #size()} as used. */
    public void skip(int len) {
        size += len;
    }

    public Bytes zeros(int len) {
        ensure(len);
        Arrays.fill(data, size, size + len, (byte) 0);
        size += len;
        return this;
    }

    public Bytes fill(int len, byte value) {
        ensure(len);
        Arrays.fill(data, size, size + len, value);
        size += len;
        return this;
    }

    /** Pads with {@code fill} to a multiple of {@code alignment}. */
    public Bytes padTo(int alignment, byte fill) {
        int pad = (int) ((alignment - (size % alignment)) % alignment);
        return fill(pad, fill);
    }

    public int getU8(int at) {
        return data[at] & 0xFF;
    }

    public int getU16(int at) {
        return (data[at] & 0xFF) | (data[at + 1] & 0xFF) << 8;
    }

    public long getU32(int at) {
        return Integer.toUnsignedLong((int) getUInt(at, 4));
    }

    public long getU64(int at) {
        return getUInt(at, 8);
    }

    public long getUInt(int at, int width) {
        long v = 0;
        for (int i = 0; i < width; i++) {
            v |= (long) (data[at + i] & 0xFF) << (8 * i);
        }
        return v;
    }

    public void setU32(int at, long v) {
        for (int i = 0; i < 4; i++) {
            data[at + i] = (byte) (v >>> (8 * i));
        }
    }

    public MemorySegment segment() {
        return MemorySegment.ofArray(data).asSlice(0, size);
    }

    public byte[] toArray() {
        return Arrays.copyOf(data, size);
    }

    public ByteBuffer toByteBuffer() {
        return ByteBuffer.wrap(data, 0, size);
    }

    static ValueLayout.OfShort u16Layout() {
        return U16;
    }

    static ValueLayout.OfInt u32Layout() {
        return U32;
    }

    static ValueLayout.OfLong u64Layout() {
        return U64;
    }
}
