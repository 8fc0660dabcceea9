package io.javelin.encoding.kernel;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Plain-loop kernels: the reference implementation and the fallback without the Vector API. Every
 * method is written straight from the format's definition; {@link VectorKernels} overrides the hot
 * ones and must agree with these bit for bit.
 */
public class ScalarKernels implements Kernels {

    static final ValueLayout.OfByte U8 = ValueLayout.JAVA_BYTE;
    static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** FastLanes row-group order (file-format.md §9.3). */
    static final int[] FL_ORDER = {0, 4, 2, 6, 1, 5, 3, 7};

    @Override
    public String name() {
        return "scalar";
    }

    // ------------------------------------------------------------------ levels

    @Override
    public long defLevelsToValidity(MemorySegment levels, long levelsOffset, long count, MemorySegment bitmap, long bitmapOffset) {
        return defLevelsToValidityFrom(levels, levelsOffset, 0, count, bitmap, bitmapOffset);
    }

    /** Handles levels [start, count); {@code start} must be a multiple of 8. */
    static long defLevelsToValidityFrom(MemorySegment levels, long levelsOffset, long start, long count,
                                        MemorySegment bitmap, long bitmapOffset) {
        return levelsToValidityFrom(2, levels, levelsOffset, start, count, 1, bitmap, bitmapOffset);
    }

    @Override
    public long levelsToValidity(int levelBytes, MemorySegment levels, long levelsOffset, long count, int threshold,
                                 MemorySegment bitmap, long bitmapOffset) {
        checkLevelBytes(levelBytes);
        return levelsToValidityFrom(levelBytes, levels, levelsOffset, 0, count, threshold, bitmap, bitmapOffset);
    }

    /** Handles levels [start, count); {@code start} must be a multiple of 8. */
    static long levelsToValidityFrom(int levelBytes, MemorySegment levels, long levelsOffset, long start, long count,
                                     int threshold, MemorySegment bitmap, long bitmapOffset) {
        long invalid = 0;
        for (long i = start; i < count; i += 8) {
            int bits = 0;
            long end = Math.min(8, count - i);
            for (int j = 0; j < end; j++) {
                int level = readLevel(levelBytes, levels, levelsOffset, i + j);
                if (level < threshold) {
                    bits |= 1 << j;
                } else {
                    invalid++;
                }
            }
            bitmap.set(U8, bitmapOffset + (i >>> 3), (byte) bits);
        }
        return invalid;
    }

    static int readLevel(int levelBytes, MemorySegment levels, long levelsOffset, long i) {
        return levelBytes == 1
                ? levels.get(U8, levelsOffset + i) & 0xFF
                : levels.get(U16, levelsOffset + 2 * i) & 0xFFFF;
    }

    static void checkLevelBytes(int levelBytes) {
        if (levelBytes != 1 && levelBytes != 2) {
            throw new IllegalArgumentException("Level width must be 1 or 2 bytes: " + levelBytes);
        }
    }

    @Override
    public long countLevelsBelow(int levelBytes, MemorySegment levels, long levelsOffset, long count, int threshold) {
        checkLevelBytes(levelBytes);
        return countLevelsBelowFrom(levelBytes, levels, levelsOffset, 0, count, threshold);
    }

    static long countLevelsBelowFrom(int levelBytes, MemorySegment levels, long levelsOffset, long start, long count,
                                     int threshold) {
        long n = 0;
        for (long i = start; i < count; i++) {
            if (readLevel(levelBytes, levels, levelsOffset, i) < threshold) {
                n++;
            }
        }
        return n;
    }

    @Override
    public void convertLevels(int fromBytes, MemorySegment src, long srcOffset, long count, int toBytes,
                              MemorySegment dst, long dstOffset) {
        checkLevelBytes(fromBytes);
        checkLevelBytes(toBytes);
        convertLevelsFrom(fromBytes, src, srcOffset, 0, count, toBytes, dst, dstOffset);
    }

    static void convertLevelsFrom(int fromBytes, MemorySegment src, long srcOffset, long start, long count, int toBytes,
                                  MemorySegment dst, long dstOffset) {
        for (long i = start; i < count; i++) {
            int level = readLevel(fromBytes, src, srcOffset, i);
            if (toBytes == 1) {
                dst.set(U8, dstOffset + i, (byte) level);
            } else {
                dst.set(U16, dstOffset + 2 * i, (short) level);
            }
        }
    }

    // ------------------------------------------------------------------ FastLanes

    static void checkFastLanes(int typeBits, int bitWidth) {
        if (typeBits != 8 && typeBits != 16 && typeBits != 32 && typeBits != 64) {
            throw new IllegalArgumentException("FastLanes type width must be 8, 16, 32 or 64 bits: " + typeBits);
        }
        if (bitWidth < 0 || bitWidth > typeBits) {
            throw new IllegalArgumentException("Bit width " + bitWidth + " outside 0.." + typeBits);
        }
    }

    /** Zero-extended T-bit little-endian read. */
    static long readT(MemorySegment s, long off, int typeBits) {
        return switch (typeBits) {
            case 8 -> s.get(U8, off) & 0xFFL;
            case 16 -> s.get(U16, off) & 0xFFFFL;
            case 32 -> s.get(U32, off) & 0xFFFF_FFFFL;
            default -> s.get(U64, off);
        };
    }

    /** Writes the low T bits of {@code v}. */
    static void writeT(MemorySegment s, long off, int typeBits, long v) {
        switch (typeBits) {
            case 8 -> s.set(U8, off, (byte) v);
            case 16 -> s.set(U16, off, (short) v);
            case 32 -> s.set(U32, off, (int) v);
            default -> s.set(U64, off, v);
        }
    }

    /** Logical index of (row, lane) in a FastLanes block. */
    static int flIndex(int row, int lane) {
        return FL_ORDER[row >>> 3] * 16 + (row & 7) * 128 + lane;
    }

    @Override
    public void unpack(int typeBits, int bitWidth, MemorySegment packed, long packedOffset, MemorySegment out, long outOffset) {
        checkFastLanes(typeBits, bitWidth);
        unpackScalar(typeBits, bitWidth, packed, packedOffset, out, outOffset);
    }

    /**
     * Row-major FastLanes loops: for a fixed row every lane reads word {@code LANES * (row*W/T) + lane}
     * (and the next word when the row spills over) with the same shift, and writes contiguous outputs
     * {@code flIndex(row, 0) + lane}. Same formula as file-format.md §9.3, in the order that lets C2
     * keep the loops tight.
     */
    static void unpackScalar(int t, int w, MemorySegment packed, long packedOffset, MemorySegment out, long outOffset) {
        if (w == 0) {
            out.asSlice(outOffset, 128L * t).fill((byte) 0);
            return;
        }
        switch (t) {
            case 8 -> unpackRows8(w, packed, packedOffset, out, outOffset);
            case 16 -> unpackRows16(w, packed, packedOffset, out, outOffset);
            case 32 -> unpackRows32(w, packed, packedOffset, out, outOffset);
            default -> unpackRows64(w, packed, packedOffset, out, outOffset);
        }
    }

    static void packScalar(int t, int w, MemorySegment values, long valuesOffset, MemorySegment packed, long packedOffset) {
        if (w == 0) {
            return;
        }
        switch (t) {
            case 8 -> packRows8(w, values, valuesOffset, packed, packedOffset);
            case 16 -> packRows16(w, values, valuesOffset, packed, packedOffset);
            case 32 -> packRows32(w, values, valuesOffset, packed, packedOffset);
            default -> packRows64(w, values, valuesOffset, packed, packedOffset);
        }
    }

    private static void unpackRows8(int w, MemorySegment packed, long po, MemorySegment out, long oo) {
        final int lanes = 128;
        final int mask = w == 8 ? -1 : (1 << w) - 1;
        for (int row = 0; row < 8; row++) {
            int bit = row * w;
            int shift = bit % 8;
            long src = po + 1L * lanes * (bit / 8);
            long dst = oo + 1L * flIndex(row, 0);
            if (shift + w > 8) {
                long src2 = src + 1L * lanes;
                int up = 8 - shift;
                for (int lane = 0; lane < lanes; lane++) {
                    int v = ((packed.get(U8, src + 1L * lane) & 0xFF) >>> shift) | ((packed.get(U8, src2 + 1L * lane) & 0xFF) << up);
                    out.set(U8, dst + 1L * lane, (byte) (v & mask));
                }
            } else {
                for (int lane = 0; lane < lanes; lane++) {
                    out.set(U8, dst + 1L * lane, (byte) (((packed.get(U8, src + 1L * lane) & 0xFF) >>> shift) & mask));
                }
            }
        }
    }

    private static void packRows8(int w, MemorySegment values, long vo, MemorySegment packed, long po) {
        final int lanes = 128;
        final int mask = w == 8 ? -1 : (1 << w) - 1;
        for (int row = 0; row < 8; row++) {
            int bit = row * w;
            int shift = bit % 8;
            long dst = po + 1L * lanes * (bit / 8);
            long src = vo + 1L * flIndex(row, 0);
            boolean first = shift == 0;
            boolean spills = shift + w > 8;
            int down = 8 - shift;
            for (int lane = 0; lane < lanes; lane++) {
                int v = (values.get(U8, src + 1L * lane) & 0xFF) & mask;
                int word = first ? v : (packed.get(U8, dst + 1L * lane) & 0xFF) | (v << shift);
                packed.set(U8, dst + 1L * lane, (byte) word);
                if (spills) {
                    packed.set(U8, dst + 1L * (lanes + lane), (byte) (v >>> down));
                }
            }
        }
    }

    private static void unpackRows16(int w, MemorySegment packed, long po, MemorySegment out, long oo) {
        final int lanes = 64;
        final int mask = w == 16 ? -1 : (1 << w) - 1;
        for (int row = 0; row < 16; row++) {
            int bit = row * w;
            int shift = bit % 16;
            long src = po + 2L * lanes * (bit / 16);
            long dst = oo + 2L * flIndex(row, 0);
            if (shift + w > 16) {
                long src2 = src + 2L * lanes;
                int up = 16 - shift;
                for (int lane = 0; lane < lanes; lane++) {
                    int v = ((packed.get(U16, src + 2L * lane) & 0xFFFF) >>> shift) | ((packed.get(U16, src2 + 2L * lane) & 0xFFFF) << up);
                    out.set(U16, dst + 2L * lane, (short) (v & mask));
                }
            } else {
                for (int lane = 0; lane < lanes; lane++) {
                    out.set(U16, dst + 2L * lane, (short) (((packed.get(U16, src + 2L * lane) & 0xFFFF) >>> shift) & mask));
                }
            }
        }
    }

    private static void packRows16(int w, MemorySegment values, long vo, MemorySegment packed, long po) {
        final int lanes = 64;
        final int mask = w == 16 ? -1 : (1 << w) - 1;
        for (int row = 0; row < 16; row++) {
            int bit = row * w;
            int shift = bit % 16;
            long dst = po + 2L * lanes * (bit / 16);
            long src = vo + 2L * flIndex(row, 0);
            boolean first = shift == 0;
            boolean spills = shift + w > 16;
            int down = 16 - shift;
            for (int lane = 0; lane < lanes; lane++) {
                int v = (values.get(U16, src + 2L * lane) & 0xFFFF) & mask;
                int word = first ? v : (packed.get(U16, dst + 2L * lane) & 0xFFFF) | (v << shift);
                packed.set(U16, dst + 2L * lane, (short) word);
                if (spills) {
                    packed.set(U16, dst + 2L * (lanes + lane), (short) (v >>> down));
                }
            }
        }
    }

    private static void unpackRows32(int w, MemorySegment packed, long po, MemorySegment out, long oo) {
        final int lanes = 32;
        final int mask = w == 32 ? -1 : (1 << w) - 1;
        for (int row = 0; row < 32; row++) {
            int bit = row * w;
            int shift = bit % 32;
            long src = po + 4L * lanes * (bit / 32);
            long dst = oo + 4L * flIndex(row, 0);
            if (shift + w > 32) {
                long src2 = src + 4L * lanes;
                int up = 32 - shift;
                for (int lane = 0; lane < lanes; lane++) {
                    int v = (packed.get(U32, src + 4L * lane) >>> shift) | (packed.get(U32, src2 + 4L * lane) << up);
                    out.set(U32, dst + 4L * lane, (v & mask));
                }
            } else {
                for (int lane = 0; lane < lanes; lane++) {
                    out.set(U32, dst + 4L * lane, ((packed.get(U32, src + 4L * lane) >>> shift) & mask));
                }
            }
        }
    }

    private static void packRows32(int w, MemorySegment values, long vo, MemorySegment packed, long po) {
        final int lanes = 32;
        final int mask = w == 32 ? -1 : (1 << w) - 1;
        for (int row = 0; row < 32; row++) {
            int bit = row * w;
            int shift = bit % 32;
            long dst = po + 4L * lanes * (bit / 32);
            long src = vo + 4L * flIndex(row, 0);
            boolean first = shift == 0;
            boolean spills = shift + w > 32;
            int down = 32 - shift;
            for (int lane = 0; lane < lanes; lane++) {
                int v = values.get(U32, src + 4L * lane) & mask;
                int word = first ? v : packed.get(U32, dst + 4L * lane) | (v << shift);
                packed.set(U32, dst + 4L * lane, word);
                if (spills) {
                    packed.set(U32, dst + 4L * (lanes + lane), (v >>> down));
                }
            }
        }
    }

    private static void unpackRows64(int w, MemorySegment packed, long po, MemorySegment out, long oo) {
        final int lanes = 16;
        final long mask = w == 64 ? -1L : (1L << w) - 1;
        for (int row = 0; row < 64; row++) {
            int bit = row * w;
            int shift = bit % 64;
            long src = po + 8L * lanes * (bit / 64);
            long dst = oo + 8L * flIndex(row, 0);
            if (shift + w > 64) {
                long src2 = src + 8L * lanes;
                int up = 64 - shift;
                for (int lane = 0; lane < lanes; lane++) {
                    long v = (packed.get(U64, src + 8L * lane) >>> shift) | (packed.get(U64, src2 + 8L * lane) << up);
                    out.set(U64, dst + 8L * lane, (v & mask));
                }
            } else {
                for (int lane = 0; lane < lanes; lane++) {
                    out.set(U64, dst + 8L * lane, ((packed.get(U64, src + 8L * lane) >>> shift) & mask));
                }
            }
        }
    }

    private static void packRows64(int w, MemorySegment values, long vo, MemorySegment packed, long po) {
        final int lanes = 16;
        final long mask = w == 64 ? -1L : (1L << w) - 1;
        for (int row = 0; row < 64; row++) {
            int bit = row * w;
            int shift = bit % 64;
            long dst = po + 8L * lanes * (bit / 64);
            long src = vo + 8L * flIndex(row, 0);
            boolean first = shift == 0;
            boolean spills = shift + w > 64;
            int down = 64 - shift;
            for (int lane = 0; lane < lanes; lane++) {
                long v = values.get(U64, src + 8L * lane) & mask;
                long word = first ? v : packed.get(U64, dst + 8L * lane) | (v << shift);
                packed.set(U64, dst + 8L * lane, word);
                if (spills) {
                    packed.set(U64, dst + 8L * (lanes + lane), (v >>> down));
                }
            }
        }
    }

    @Override
    public void pack(int typeBits, int bitWidth, MemorySegment values, long valuesOffset, MemorySegment packed, long packedOffset) {
        checkFastLanes(typeBits, bitWidth);
        packScalar(typeBits, bitWidth, values, valuesOffset, packed, packedOffset);
    }

    @Override
    public int maxBitWidth(int typeBits, MemorySegment values, long valuesOffset, int count) {
        checkFastLanes(typeBits, 0);
        long or = 0;
        int bytes = typeBits >>> 3;
        for (int i = 0; i < count; i++) {
            or |= readT(values, valuesOffset + (long) i * bytes, typeBits);
        }
        return 64 - Long.numberOfLeadingZeros(or);
    }

    // ------------------------------------------------------------------ RLE

    static void checkValueBytes(int valueBytes) {
        if (valueBytes != 1 && valueBytes != 2 && valueBytes != 4 && valueBytes != 8 && valueBytes != 16) {
            throw new IllegalArgumentException("Value width must be 1, 2, 4, 8 or 16 bytes: " + valueBytes);
        }
    }

    @Override
    public long expandRle(int valueBytes, MemorySegment values, long valuesOffset, MemorySegment runLengths,
                          long runLengthsOffset, long numRuns, MemorySegment out, long outOffset, long maxValues) {
        checkValueBytes(valueBytes);
        long written = 0;
        for (long run = 0; run < numRuns && written < maxValues; run++) {
            long n = Math.min(runLengths.get(U8, runLengthsOffset + run) & 0xFF, maxValues - written);
            long dst = outOffset + written * valueBytes;
            long src = valuesOffset + run * valueBytes;
            switch (valueBytes) {
                case 1 -> {
                    byte v = values.get(U8, src);
                    for (long i = 0; i < n; i++) {
                        out.set(U8, dst + i, v);
                    }
                }
                case 2 -> {
                    short v = values.get(U16, src);
                    for (long i = 0; i < n; i++) {
                        out.set(U16, dst + 2 * i, v);
                    }
                }
                case 4 -> {
                    int v = values.get(U32, src);
                    for (long i = 0; i < n; i++) {
                        out.set(U32, dst + 4 * i, v);
                    }
                }
                case 8 -> {
                    long v = values.get(U64, src);
                    for (long i = 0; i < n; i++) {
                        out.set(U64, dst + 8 * i, v);
                    }
                }
                default -> {
                    long lo = values.get(U64, src);
                    long hi = values.get(U64, src + 8);
                    for (long i = 0; i < n; i++) {
                        out.set(U64, dst + 16 * i, lo);
                        out.set(U64, dst + 16 * i + 8, hi);
                    }
                }
            }
            written += n;
        }
        return written;
    }

    /** Whether values i and i-1 are equal. */
    static boolean sameAsPrevious(int valueBytes, MemorySegment values, long valuesOffset, long i) {
        long a = valuesOffset + i * valueBytes;
        long b = a - valueBytes;
        return switch (valueBytes) {
            case 1 -> values.get(U8, a) == values.get(U8, b);
            case 2 -> values.get(U16, a) == values.get(U16, b);
            case 4 -> values.get(U32, a) == values.get(U32, b);
            case 8 -> values.get(U64, a) == values.get(U64, b);
            default -> values.get(U64, a) == values.get(U64, b) && values.get(U64, a + 8) == values.get(U64, b + 8);
        };
    }

    @Override
    public long countRuns(int valueBytes, MemorySegment values, long valuesOffset, long count) {
        checkValueBytes(valueBytes);
        if (count == 0) {
            return 0;
        }
        long runs = 1;
        for (long i = 1; i < count; i++) {
            if (!sameAsPrevious(valueBytes, values, valuesOffset, i)) {
                runs++;
            }
        }
        return runs;
    }

    @Override
    public long countRleEntries(int valueBytes, MemorySegment values, long valuesOffset, long count) {
        checkValueBytes(valueBytes);
        long entries = 0;
        long runLength = 0;
        for (long i = 0; i < count; i++) {
            if (i == 0 || runLength == 255 || !sameAsPrevious(valueBytes, values, valuesOffset, i)) {
                entries++;
                runLength = 0;
            }
            runLength++;
        }
        return entries;
    }

    @Override
    public long encodeRle(int valueBytes, MemorySegment values, long valuesOffset, long count,
                          MemorySegment runValues, long runValuesOffset, MemorySegment runLengths, long runLengthsOffset) {
        checkValueBytes(valueBytes);
        long runs = 0;
        int runLength = 0;
        for (long i = 0; i < count; i++) {
            if (i == 0 || runLength == 255 || !sameAsPrevious(valueBytes, values, valuesOffset, i)) {
                if (i > 0) {
                    runLengths.set(U8, runLengthsOffset + runs - 1, (byte) runLength);
                }
                MemorySegment.copy(values, valuesOffset + i * valueBytes, runValues, runValuesOffset + runs * valueBytes, valueBytes);
                runs++;
                runLength = 0;
            }
            runLength++;
        }
        if (count > 0) {
            runLengths.set(U8, runLengthsOffset + runs - 1, (byte) runLength);
        }
        return runs;
    }

    // ------------------------------------------------------------------ byte stream split

    static void checkBssWidth(int width) {
        if (width != 2 && width != 4 && width != 8) {
            throw new IllegalArgumentException("Byte stream split width must be 2, 4 or 8: " + width);
        }
    }

    @Override
    public void bssDecode(int width, MemorySegment src, long srcOffset, long count, MemorySegment out, long outOffset) {
        checkBssWidth(width);
        bssDecodeFrom(width, src, srcOffset, 0, count, out, outOffset);
    }

    static void bssDecodeFrom(int width, MemorySegment src, long srcOffset, long start, long count, MemorySegment out, long outOffset) {
        for (long i = start; i < count; i++) {
            long v = 0;
            for (int j = 0; j < width; j++) {
                v |= (src.get(U8, srcOffset + j * count + i) & 0xFFL) << (8 * j);
            }
            writeT(out, outOffset + i * width, width * 8, v);
        }
    }

    @Override
    public void bssEncode(int width, MemorySegment values, long valuesOffset, long count, MemorySegment dst, long dstOffset) {
        checkBssWidth(width);
        bssEncodeFrom(width, values, valuesOffset, 0, count, dst, dstOffset);
    }

    static void bssEncodeFrom(int width, MemorySegment values, long valuesOffset, long start, long count, MemorySegment dst, long dstOffset) {
        for (long i = start; i < count; i++) {
            long v = readT(values, valuesOffset + i * width, width * 8);
            for (int j = 0; j < width; j++) {
                dst.set(U8, dstOffset + j * count + i, (byte) (v >>> (8 * j)));
            }
        }
    }

    // ------------------------------------------------------------------ dictionary gather

    static void checkIndexBytes(int indexBytes) {
        if (indexBytes != 1 && indexBytes != 2 && indexBytes != 4) {
            throw new IllegalArgumentException("Index width must be 1, 2 or 4 bytes: " + indexBytes);
        }
    }

    static long readIndex(int indexBytes, MemorySegment indices, long indicesOffset, long i) {
        return switch (indexBytes) {
            case 1 -> indices.get(U8, indicesOffset + i) & 0xFFL;
            case 2 -> indices.get(U16, indicesOffset + 2 * i) & 0xFFFFL;
            default -> indices.get(U32, indicesOffset + 4 * i) & 0xFFFF_FFFFL;
        };
    }

    @Override
    public void gather(int valueBytes, MemorySegment dict, long dictOffset, long dictCount, int indexBytes,
                       MemorySegment indices, long indicesOffset, long count, MemorySegment out, long outOffset) {
        checkValueBytes(valueBytes);
        checkIndexBytes(indexBytes);
        gatherFrom(valueBytes, dict, dictOffset, dictCount, indexBytes, indices, indicesOffset, 0, count, out, outOffset);
    }

    static void gatherFrom(int valueBytes, MemorySegment dict, long dictOffset, long dictCount, int indexBytes,
                           MemorySegment indices, long indicesOffset, long start, long count, MemorySegment out, long outOffset) {
        gatherLoop(valueBytes, dict, dictOffset, dictCount, indexBytes, indices, indicesOffset, start, count, out, outOffset, true);
    }

    /** The copy loop, one per value width; {@code check = false} when the caller validated every index. */
    static void gatherLoop(int valueBytes, MemorySegment dict, long dictOffset, long dictCount, int indexBytes,
                           MemorySegment indices, long indicesOffset, long start, long count, MemorySegment out,
                           long outOffset, boolean check) {
        switch (valueBytes) {
            case 1 -> {
                for (long i = start; i < count; i++) {
                    long k = checkedIndex(indexBytes, indices, indicesOffset, i, dictCount, check);
                    out.set(U8, outOffset + i, dict.get(U8, dictOffset + k));
                }
            }
            case 2 -> {
                for (long i = start; i < count; i++) {
                    long k = checkedIndex(indexBytes, indices, indicesOffset, i, dictCount, check);
                    out.set(U16, outOffset + 2 * i, dict.get(U16, dictOffset + 2 * k));
                }
            }
            case 4 -> {
                for (long i = start; i < count; i++) {
                    long k = checkedIndex(indexBytes, indices, indicesOffset, i, dictCount, check);
                    out.set(U32, outOffset + 4 * i, dict.get(U32, dictOffset + 4 * k));
                }
            }
            case 8 -> {
                for (long i = start; i < count; i++) {
                    long k = checkedIndex(indexBytes, indices, indicesOffset, i, dictCount, check);
                    out.set(U64, outOffset + 8 * i, dict.get(U64, dictOffset + 8 * k));
                }
            }
            default -> {
                for (long i = start; i < count; i++) {
                    long k = checkedIndex(indexBytes, indices, indicesOffset, i, dictCount, check);
                    out.set(U64, outOffset + 16 * i, dict.get(U64, dictOffset + 16 * k));
                    out.set(U64, outOffset + 16 * i + 8, dict.get(U64, dictOffset + 16 * k + 8));
                }
            }
        }
    }

    private static long checkedIndex(int indexBytes, MemorySegment indices, long indicesOffset, long i, long dictCount,
                                     boolean check) {
        long k = readIndex(indexBytes, indices, indicesOffset, i);
        if (check && k >= dictCount) {
            throw new IndexOutOfDictionaryException(i, k, dictCount);
        }
        return k;
    }

    static void checkOffsetBytes(int offsetBytes) {
        if (offsetBytes != 4 && offsetBytes != 8) {
            throw new IllegalArgumentException("Offset width must be 4 or 8 bytes: " + offsetBytes);
        }
    }

    static long readOffset(int offsetBytes, MemorySegment offsets, long offsetsOffset, long k) {
        return offsetBytes == 4 ? offsets.get(U32, offsetsOffset + 4 * k) : offsets.get(U64, offsetsOffset + 8 * k);
    }

    @Override
    public long gatherVariableLength(int offsetBytes, MemorySegment dictOffsets, long dictOffsetsOffset, long dictCount,
                                     int indexBytes, MemorySegment indices, long indicesOffset, long count) {
        checkOffsetBytes(offsetBytes);
        checkIndexBytes(indexBytes);
        long base = readOffset(offsetBytes, dictOffsets, dictOffsetsOffset, 0);
        long total = 0;
        for (long i = 0; i < count; i++) {
            long k = readIndex(indexBytes, indices, indicesOffset, i);
            if (k >= dictCount) {
                throw new IndexOutOfDictionaryException(i, k, dictCount);
            }
            long start = readOffset(offsetBytes, dictOffsets, dictOffsetsOffset, k);
            long end = readOffset(offsetBytes, dictOffsets, dictOffsetsOffset, k + 1);
            if (start < base || end < start) {
                throw new KernelInputException("Dictionary offsets of entry " + k + " go backwards: [" + start + ", "
                        + end + ") with base " + base, i);
            }
            total += end - start;
        }
        return total;
    }

    @Override
    public void gatherVariable(int offsetBytes, MemorySegment dictOffsets, long dictOffsetsOffset, long dictCount,
                               MemorySegment dictData, long dictDataOffset, int indexBytes, MemorySegment indices,
                               long indicesOffset, long count, int outOffsetBytes, MemorySegment outOffsets,
                               long outOffsetsOffset, long outBase, MemorySegment outData, long outDataOffset) {
        checkOffsetBytes(offsetBytes);
        checkOffsetBytes(outOffsetBytes);
        checkIndexBytes(indexBytes);
        long base = readOffset(offsetBytes, dictOffsets, dictOffsetsOffset, 0);
        long pos = outBase;
        writeOffset(outOffsetBytes, outOffsets, outOffsetsOffset, 0, pos);
        for (long i = 0; i < count; i++) {
            long k = readIndex(indexBytes, indices, indicesOffset, i);
            if (k >= dictCount) {
                throw new IndexOutOfDictionaryException(i, k, dictCount);
            }
            long start = readOffset(offsetBytes, dictOffsets, dictOffsetsOffset, k);
            long end = readOffset(offsetBytes, dictOffsets, dictOffsetsOffset, k + 1);
            long len = end - start;
            if (start < base || len < 0) {
                throw new KernelInputException("Dictionary offsets of entry " + k + " go backwards: [" + start + ", "
                        + end + ") with base " + base, i);
            }
            MemorySegment.copy(dictData, dictDataOffset + start - base, outData, outDataOffset + pos - outBase, len);
            pos += len;
            if (outOffsetBytes == 4 && pos > Integer.MAX_VALUE) {
                throw new KernelInputException("Gathered values reach offset " + pos + ", past 32-bit offsets", i);
            }
            writeOffset(outOffsetBytes, outOffsets, outOffsetsOffset, i + 1, pos);
        }
    }

    static void writeOffset(int offsetBytes, MemorySegment offsets, long offsetsOffset, long i, long value) {
        if (offsetBytes == 4) {
            offsets.set(U32, offsetsOffset + 4 * i, (int) value);
        } else {
            offsets.set(U64, offsetsOffset + 8 * i, value);
        }
    }

    // ------------------------------------------------------------------ bitmaps

    /** Reads {@code k <= 8} bits starting at {@code bitPos}, touching only the bytes holding them. */
    static int readBitsSmall(MemorySegment seg, long bitPos, int k) {
        long byteIndex = bitPos >>> 3;
        int sh = (int) (bitPos & 7);
        int v = (seg.get(U8, byteIndex) & 0xFF) >>> sh;
        if (sh + k > 8) {
            v |= (seg.get(U8, byteIndex + 1) & 0xFF) << (8 - sh);
        }
        return v & ((1 << k) - 1);
    }

    /** Writes {@code k} bits that lie within one byte. */
    static void writeBitsInByte(MemorySegment seg, long bitPos, int k, int bits) {
        long byteIndex = bitPos >>> 3;
        int sh = (int) (bitPos & 7);
        int m = ((1 << k) - 1) << sh;
        int b = seg.get(U8, byteIndex);
        seg.set(U8, byteIndex, (byte) ((b & ~m) | ((bits << sh) & m)));
    }

    @Override
    public void copyBits(MemorySegment src, long srcBitOffset, MemorySegment dst, long dstBitOffset, long numBits) {
        long n = numBits;
        if (n <= 0) {
            return;
        }
        long srcBit = srcBitOffset;
        long dstBit = dstBitOffset;
        int head = (int) ((8 - (dstBit & 7)) & 7);
        if (head > 0) {
            int k = (int) Math.min(head, n);
            writeBitsInByte(dst, dstBit, k, readBitsSmall(src, srcBit, k));
            srcBit += k;
            dstBit += k;
            n -= k;
        }
        long s = srcBit >>> 3;
        int sh = (int) (srcBit & 7);
        long d = dstBit >>> 3;
        if (sh == 0) {
            long bytes = n >>> 3;
            MemorySegment.copy(src, s, dst, d, bytes);
            s += bytes;
            d += bytes;
            n -= bytes << 3;
        } else {
            while (n >= 64) {
                long w = (src.get(U64, s) >>> sh) | ((src.get(U8, s + 8) & 0xFFL) << (64 - sh));
                dst.set(U64, d, w);
                s += 8;
                d += 8;
                n -= 64;
            }
            while (n >= 8) {
                int b = ((src.get(U8, s) & 0xFF) >>> sh) | ((src.get(U8, s + 1) & 0xFF) << (8 - sh));
                dst.set(U8, d, (byte) b);
                s++;
                d++;
                n -= 8;
            }
        }
        if (n > 0) {
            writeBitsInByte(dst, d << 3, (int) n, readBitsSmall(src, (s << 3) + sh, (int) n));
        }
    }

    @Override
    public long countSetBits(MemorySegment bitmap, long bitOffset, long numBits) {
        long n = numBits;
        if (n <= 0) {
            return 0;
        }
        long bit = bitOffset;
        long total = 0;
        int head = (int) ((8 - (bit & 7)) & 7);
        if (head > 0) {
            int k = (int) Math.min(head, n);
            total += Integer.bitCount(readBitsSmall(bitmap, bit, k));
            bit += k;
            n -= k;
        }
        long b = bit >>> 3;
        while (n >= 64) {
            total += Long.bitCount(bitmap.get(U64, b));
            b += 8;
            n -= 64;
        }
        while (n >= 8) {
            total += Integer.bitCount(bitmap.get(U8, b) & 0xFF);
            b++;
            n -= 8;
        }
        if (n > 0) {
            total += Integer.bitCount(readBitsSmall(bitmap, b << 3, (int) n));
        }
        return total;
    }

    @Override
    public void fillBits(MemorySegment bitmap, long bitOffset, long numBits, boolean value) {
        long n = numBits;
        if (n <= 0) {
            return;
        }
        long bit = bitOffset;
        int ones = value ? 0xFF : 0;
        int head = (int) ((8 - (bit & 7)) & 7);
        if (head > 0) {
            int k = (int) Math.min(head, n);
            writeBitsInByte(bitmap, bit, k, ones);
            bit += k;
            n -= k;
        }
        long bytes = n >>> 3;
        if (bytes > 0) {
            bitmap.asSlice(bit >>> 3, bytes).fill((byte) ones);
            bit += bytes << 3;
            n -= bytes << 3;
        }
        if (n > 0) {
            writeBitsInByte(bitmap, bit, (int) n, ones);
        }
    }

    // ------------------------------------------------------------------ offsets

    @Override
    public void rebaseOffsets32to32(MemorySegment src, long srcOffset, long count, int delta, MemorySegment dst, long dstOffset) {
        rebase32to32From(src, srcOffset, 0, count, delta, dst, dstOffset);
    }

    static void rebase32to32From(MemorySegment src, long srcOffset, long start, long count, int delta, MemorySegment dst, long dstOffset) {
        for (long i = start; i < count; i++) {
            dst.set(U32, dstOffset + 4 * i, src.get(U32, srcOffset + 4 * i) + delta);
        }
    }

    @Override
    public void rebaseOffsets32to64(MemorySegment src, long srcOffset, long count, long delta, MemorySegment dst, long dstOffset) {
        rebase32to64From(src, srcOffset, 0, count, delta, dst, dstOffset);
    }

    static void rebase32to64From(MemorySegment src, long srcOffset, long start, long count, long delta, MemorySegment dst, long dstOffset) {
        for (long i = start; i < count; i++) {
            dst.set(U64, dstOffset + 8 * i, (src.get(U32, srcOffset + 4 * i) & 0xFFFF_FFFFL) + delta);
        }
    }

    @Override
    public void rebaseOffsets64to64(MemorySegment src, long srcOffset, long count, long delta, MemorySegment dst, long dstOffset) {
        rebase64to64From(src, srcOffset, 0, count, delta, dst, dstOffset);
    }

    static void rebase64to64From(MemorySegment src, long srcOffset, long start, long count, long delta, MemorySegment dst, long dstOffset) {
        for (long i = start; i < count; i++) {
            dst.set(U64, dstOffset + 8 * i, src.get(U64, srcOffset + 8 * i) + delta);
        }
    }
}
