package io.javelin.encoding.kernel;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorSpecies;

/**
 * Vector API kernels. Loaded reflectively by {@link Kernels} only when jdk.incubator.vector is in the
 * boot layer, so nothing here is linked on a JVM without it. Everything not overridden here is the
 * scalar code of {@link ScalarKernels}, which is also used for loop tails.
 *
 * <p>Vectorized: FastLanes pack/unpack (the lane dimension: for a fixed row, all lanes read and write
 * contiguous words), maxBitWidth, level thresholds and counts, RLE expansion of long runs and run
 * counting, byte stream split (zero-extending byte loads + shifts), popcount, unaligned bit copies,
 * offset rebasing/widening, and dictionary index validation. The dictionary copy itself stays scalar:
 * the Vector API can only gather from Java arrays, not from memory segments.
 *
 * <p>Heap segments must be backed by a {@code byte[]} (a Vector API restriction).
 */
final class VectorKernels extends ScalarKernels {

    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    /**
     * The machine's preferred shape, or a narrower one when {@link SimdOptions#maxBits()} asks for it (tests
     * use this to run the AVX2 / NEON code paths on an AVX-512 machine).
     */
    private static final VectorShape SHAPE = shape(SimdOptions.current().maxBits());
    private static final VectorSpecies<Byte> BYTES = VectorSpecies.of(byte.class, SHAPE);
    private static final VectorSpecies<Short> SHORTS = VectorSpecies.of(short.class, SHAPE);
    private static final VectorSpecies<Integer> INTS = VectorSpecies.of(int.class, SHAPE);
    private static final VectorSpecies<Long> LONGS = VectorSpecies.of(long.class, SHAPE);
    /** Byte species with as many lanes as SHORTS / INTS / LONGS, for zero-extending loads. */
    private static final VectorSpecies<Byte> BYTES_PER_SHORT = byteSpecies(SHORTS.length());
    private static final VectorSpecies<Byte> BYTES_PER_INT = byteSpecies(INTS.length());
    private static final VectorSpecies<Byte> BYTES_PER_LONG = byteSpecies(LONGS.length());
    /** Int species with as many lanes as LONGS, for widening offsets. */
    private static final VectorSpecies<Integer> INTS_PER_LONG =
            VectorSpecies.of(int.class, VectorShape.forBitSize(LONGS.length() * 32));
    /** FastLanes needs every lane group (1024 / T lanes) to be a whole number of vectors. */
    private static final boolean FASTLANES_FITS = BYTES.length() <= 128 && SHORTS.length() <= 64
            && INTS.length() <= 32 && LONGS.length() <= 16;

    /** Byte stream split needs a byte species with exactly as many lanes as the value species. */
    private static final boolean BSS2 = BYTES_PER_SHORT.length() == SHORTS.length();
    private static final boolean BSS4 = BYTES_PER_INT.length() == INTS.length();
    private static final boolean BSS8 = BYTES_PER_LONG.length() == LONGS.length();

    private static VectorShape shape(int maxBits) {
        VectorShape preferred = VectorShape.preferredShape();
        if (preferred.vectorBitSize() <= maxBits) {
            return preferred;
        }
        return VectorShape.forBitSize(Math.max(128, Integer.highestOneBit(maxBits)));
    }

    private static VectorSpecies<Byte> byteSpecies(int lanes) {
        return VectorSpecies.of(byte.class, VectorShape.forBitSize(Math.max(64, lanes * 8)));
    }

    @Override
    public String name() {
        return "vector(" + SHORTS.vectorBitSize() + "-bit)";
    }

    // ------------------------------------------------------------------ levels

    @Override
    public long defLevelsToValidity(MemorySegment levels, long levelsOffset, long count, MemorySegment bitmap, long bitmapOffset) {
        return levelsToValidity(2, levels, levelsOffset, count, 1, bitmap, bitmapOffset);
    }

    @Override
    public long levelsToValidity(int levelBytes, MemorySegment levels, long levelsOffset, long count, int threshold,
                                 MemorySegment bitmap, long bitmapOffset) {
        checkLevelBytes(levelBytes);
        int max = levelBytes == 1 ? 0xFF : 0xFFFF;
        if (threshold <= 0 || threshold > max) {
            // all invalid or all valid: the scalar loop handles these without unsigned-compare corner cases
            return levelsToValidityFrom(levelBytes, levels, levelsOffset, 0, count, threshold, bitmap, bitmapOffset);
        }
        long invalid = 0;
        long i = 0;
        if (levelBytes == 2 && SHORTS.length() <= 64) {
            int lanes = SHORTS.length(); // a multiple of 8, so each step fills whole bitmap bytes
            long bound = count - (count % lanes);
            short t = (short) threshold;
            for (; i < bound; i += lanes) {
                ShortVector v = ShortVector.fromMemorySegment(SHORTS, levels, levelsOffset + 2 * i, LE);
                long bits = v.compare(VectorOperators.ULT, t).toLong();
                invalid += lanes - Long.bitCount(bits);
                storeBits(bitmap, bitmapOffset + (i >>> 3), bits, lanes);
            }
        } else if (levelBytes == 1 && BYTES.length() <= 64) {
            int lanes = BYTES.length();
            long bound = count - (count % lanes);
            byte t = (byte) threshold;
            for (; i < bound; i += lanes) {
                ByteVector v = ByteVector.fromMemorySegment(BYTES, levels, levelsOffset + i, LE);
                long bits = v.compare(VectorOperators.ULT, t).toLong();
                invalid += lanes - Long.bitCount(bits);
                storeBits(bitmap, bitmapOffset + (i >>> 3), bits, lanes);
            }
        }
        return invalid + levelsToValidityFrom(levelBytes, levels, levelsOffset, i, count, threshold, bitmap, bitmapOffset);
    }

    private static void storeBits(MemorySegment bitmap, long at, long bits, int lanes) {
        if (lanes == 64) {
            bitmap.set(U64, at, bits);
        } else if (lanes == 32) {
            bitmap.set(U32, at, (int) bits);
        } else {
            for (int b = 0; b < lanes; b += 8) {
                bitmap.set(U8, at + (b >>> 3), (byte) (bits >>> b));
            }
        }
    }

    @Override
    public long countLevelsBelow(int levelBytes, MemorySegment levels, long levelsOffset, long count, int threshold) {
        checkLevelBytes(levelBytes);
        int max = levelBytes == 1 ? 0xFF : 0xFFFF;
        if (threshold <= 0 || threshold > max) {
            return countLevelsBelowFrom(levelBytes, levels, levelsOffset, 0, count, threshold);
        }
        long n = 0;
        long i = 0;
        if (levelBytes == 2) {
            int lanes = SHORTS.length();
            long bound = count - (count % lanes);
            short t = (short) threshold;
            for (; i < bound; i += lanes) {
                n += ShortVector.fromMemorySegment(SHORTS, levels, levelsOffset + 2 * i, LE).compare(VectorOperators.ULT, t).trueCount();
            }
        } else {
            int lanes = BYTES.length();
            long bound = count - (count % lanes);
            byte t = (byte) threshold;
            for (; i < bound; i += lanes) {
                n += ByteVector.fromMemorySegment(BYTES, levels, levelsOffset + i, LE).compare(VectorOperators.ULT, t).trueCount();
            }
        }
        return n + countLevelsBelowFrom(levelBytes, levels, levelsOffset, i, count, threshold);
    }

    // ------------------------------------------------------------------ FastLanes

    @Override
    public void unpack(int typeBits, int bitWidth, MemorySegment packed, long packedOffset, MemorySegment out, long outOffset) {
        checkFastLanes(typeBits, bitWidth);
        if (bitWidth == 0 || !FASTLANES_FITS) {
            unpackScalar(typeBits, bitWidth, packed, packedOffset, out, outOffset);
            return;
        }
        switch (typeBits) {
            case 8 -> unpack8(bitWidth, packed, packedOffset, out, outOffset);
            case 16 -> unpack16(bitWidth, packed, packedOffset, out, outOffset);
            case 32 -> unpack32(bitWidth, packed, packedOffset, out, outOffset);
            default -> unpack64(bitWidth, packed, packedOffset, out, outOffset);
        }
    }

    @Override
    public void pack(int typeBits, int bitWidth, MemorySegment values, long valuesOffset, MemorySegment packed, long packedOffset) {
        checkFastLanes(typeBits, bitWidth);
        if (bitWidth == 0 || !FASTLANES_FITS) {
            packScalar(typeBits, bitWidth, values, valuesOffset, packed, packedOffset);
            return;
        }
        switch (typeBits) {
            case 8 -> pack8(bitWidth, values, valuesOffset, packed, packedOffset);
            case 16 -> pack16(bitWidth, values, valuesOffset, packed, packedOffset);
            case 32 -> pack32(bitWidth, values, valuesOffset, packed, packedOffset);
            default -> pack64(bitWidth, values, valuesOffset, packed, packedOffset);
        }
    }

    private static void unpack8(int w, MemorySegment packed, long po, MemorySegment out, long oo) {
        final int lanes = 128;
        final int step = BYTES.length();
        final byte mask = w == 8 ? (byte)-1 : (byte)((1 << w) - 1);
        for (int lb = 0; lb < lanes; lb += step) {
            for (int row = 0; row < 8; row++) {
                int bit = row * w;
                int word = bit / 8;
                int shift = bit % 8;
                ByteVector v = ByteVector.fromMemorySegment(BYTES, packed, po + 1L * (lanes * word + lb), LE);
                if (shift != 0) {
                    v = v.lanewise(VectorOperators.LSHR, shift);
                }
                if (shift + w > 8) {
                    ByteVector next = ByteVector.fromMemorySegment(BYTES, packed, po + 1L * (lanes * (word + 1) + lb), LE);
                    v = v.or(next.lanewise(VectorOperators.LSHL, 8 - shift));
                }
                if (w != 8) {
                    v = v.and(mask);
                }
                v.intoMemorySegment(out, oo + 1L * flIndex(row, lb), LE);
            }
        }
    }

    private static void pack8(int w, MemorySegment values, long vo, MemorySegment packed, long po) {
        final int lanes = 128;
        final int step = BYTES.length();
        final byte mask = w == 8 ? (byte)-1 : (byte)((1 << w) - 1);
        final ByteVector zero = ByteVector.zero(BYTES);
        for (int lb = 0; lb < lanes; lb += step) {
            ByteVector tmp = zero;
            for (int row = 0; row < 8; row++) {
                ByteVector v = ByteVector.fromMemorySegment(BYTES, values, vo + 1L * flIndex(row, lb), LE);
                if (w != 8) {
                    v = v.and(mask);
                }
                int bit = row * w;
                int word = bit / 8;
                int shift = bit % 8;
                tmp = shift == 0 ? tmp.or(v) : tmp.or(v.lanewise(VectorOperators.LSHL, shift));
                if (shift + w >= 8) {
                    tmp.intoMemorySegment(packed, po + 1L * (lanes * word + lb), LE);
                    tmp = shift + w > 8 ? v.lanewise(VectorOperators.LSHR, 8 - shift) : zero;
                }
            }
        }
    }

    private static void unpack16(int w, MemorySegment packed, long po, MemorySegment out, long oo) {
        final int lanes = 64;
        final int step = SHORTS.length();
        final short mask = w == 16 ? (short)-1 : (short)((1 << w) - 1);
        for (int lb = 0; lb < lanes; lb += step) {
            for (int row = 0; row < 16; row++) {
                int bit = row * w;
                int word = bit / 16;
                int shift = bit % 16;
                ShortVector v = ShortVector.fromMemorySegment(SHORTS, packed, po + 2L * (lanes * word + lb), LE);
                if (shift != 0) {
                    v = v.lanewise(VectorOperators.LSHR, shift);
                }
                if (shift + w > 16) {
                    ShortVector next = ShortVector.fromMemorySegment(SHORTS, packed, po + 2L * (lanes * (word + 1) + lb), LE);
                    v = v.or(next.lanewise(VectorOperators.LSHL, 16 - shift));
                }
                if (w != 16) {
                    v = v.and(mask);
                }
                v.intoMemorySegment(out, oo + 2L * flIndex(row, lb), LE);
            }
        }
    }

    private static void pack16(int w, MemorySegment values, long vo, MemorySegment packed, long po) {
        final int lanes = 64;
        final int step = SHORTS.length();
        final short mask = w == 16 ? (short)-1 : (short)((1 << w) - 1);
        final ShortVector zero = ShortVector.zero(SHORTS);
        for (int lb = 0; lb < lanes; lb += step) {
            ShortVector tmp = zero;
            for (int row = 0; row < 16; row++) {
                ShortVector v = ShortVector.fromMemorySegment(SHORTS, values, vo + 2L * flIndex(row, lb), LE);
                if (w != 16) {
                    v = v.and(mask);
                }
                int bit = row * w;
                int word = bit / 16;
                int shift = bit % 16;
                tmp = shift == 0 ? tmp.or(v) : tmp.or(v.lanewise(VectorOperators.LSHL, shift));
                if (shift + w >= 16) {
                    tmp.intoMemorySegment(packed, po + 2L * (lanes * word + lb), LE);
                    tmp = shift + w > 16 ? v.lanewise(VectorOperators.LSHR, 16 - shift) : zero;
                }
            }
        }
    }

    private static void unpack32(int w, MemorySegment packed, long po, MemorySegment out, long oo) {
        final int lanes = 32;
        final int step = INTS.length();
        final int mask = w == 32 ? -1 : ((1 << w) - 1);
        for (int lb = 0; lb < lanes; lb += step) {
            for (int row = 0; row < 32; row++) {
                int bit = row * w;
                int word = bit / 32;
                int shift = bit % 32;
                IntVector v = IntVector.fromMemorySegment(INTS, packed, po + 4L * (lanes * word + lb), LE);
                if (shift != 0) {
                    v = v.lanewise(VectorOperators.LSHR, shift);
                }
                if (shift + w > 32) {
                    IntVector next = IntVector.fromMemorySegment(INTS, packed, po + 4L * (lanes * (word + 1) + lb), LE);
                    v = v.or(next.lanewise(VectorOperators.LSHL, 32 - shift));
                }
                if (w != 32) {
                    v = v.and(mask);
                }
                v.intoMemorySegment(out, oo + 4L * flIndex(row, lb), LE);
            }
        }
    }

    private static void pack32(int w, MemorySegment values, long vo, MemorySegment packed, long po) {
        final int lanes = 32;
        final int step = INTS.length();
        final int mask = w == 32 ? -1 : ((1 << w) - 1);
        final IntVector zero = IntVector.zero(INTS);
        for (int lb = 0; lb < lanes; lb += step) {
            IntVector tmp = zero;
            for (int row = 0; row < 32; row++) {
                IntVector v = IntVector.fromMemorySegment(INTS, values, vo + 4L * flIndex(row, lb), LE);
                if (w != 32) {
                    v = v.and(mask);
                }
                int bit = row * w;
                int word = bit / 32;
                int shift = bit % 32;
                tmp = shift == 0 ? tmp.or(v) : tmp.or(v.lanewise(VectorOperators.LSHL, shift));
                if (shift + w >= 32) {
                    tmp.intoMemorySegment(packed, po + 4L * (lanes * word + lb), LE);
                    tmp = shift + w > 32 ? v.lanewise(VectorOperators.LSHR, 32 - shift) : zero;
                }
            }
        }
    }

    private static void unpack64(int w, MemorySegment packed, long po, MemorySegment out, long oo) {
        final int lanes = 16;
        final int step = LONGS.length();
        final long mask = w == 64 ? -1 : ((1L << w) - 1);
        for (int lb = 0; lb < lanes; lb += step) {
            for (int row = 0; row < 64; row++) {
                int bit = row * w;
                int word = bit / 64;
                int shift = bit % 64;
                LongVector v = LongVector.fromMemorySegment(LONGS, packed, po + 8L * (lanes * word + lb), LE);
                if (shift != 0) {
                    v = v.lanewise(VectorOperators.LSHR, shift);
                }
                if (shift + w > 64) {
                    LongVector next = LongVector.fromMemorySegment(LONGS, packed, po + 8L * (lanes * (word + 1) + lb), LE);
                    v = v.or(next.lanewise(VectorOperators.LSHL, 64 - shift));
                }
                if (w != 64) {
                    v = v.and(mask);
                }
                v.intoMemorySegment(out, oo + 8L * flIndex(row, lb), LE);
            }
        }
    }

    private static void pack64(int w, MemorySegment values, long vo, MemorySegment packed, long po) {
        final int lanes = 16;
        final int step = LONGS.length();
        final long mask = w == 64 ? -1 : ((1L << w) - 1);
        final LongVector zero = LongVector.zero(LONGS);
        for (int lb = 0; lb < lanes; lb += step) {
            LongVector tmp = zero;
            for (int row = 0; row < 64; row++) {
                LongVector v = LongVector.fromMemorySegment(LONGS, values, vo + 8L * flIndex(row, lb), LE);
                if (w != 64) {
                    v = v.and(mask);
                }
                int bit = row * w;
                int word = bit / 64;
                int shift = bit % 64;
                tmp = shift == 0 ? tmp.or(v) : tmp.or(v.lanewise(VectorOperators.LSHL, shift));
                if (shift + w >= 64) {
                    tmp.intoMemorySegment(packed, po + 8L * (lanes * word + lb), LE);
                    tmp = shift + w > 64 ? v.lanewise(VectorOperators.LSHR, 64 - shift) : zero;
                }
            }
        }
    }

    @Override
    public int maxBitWidth(int typeBits, MemorySegment values, long valuesOffset, int count) {
        checkFastLanes(typeBits, 0);
        long or = 0;
        int i = 0;
        switch (typeBits) {
            case 8 -> {
                int lanes = BYTES.length();
                ByteVector acc = ByteVector.zero(BYTES);
                for (int bound = count - count % lanes; i < bound; i += lanes) {
                    acc = acc.or(ByteVector.fromMemorySegment(BYTES, values, valuesOffset + i, LE));
                }
                or = acc.reduceLanes(VectorOperators.OR) & 0xFFL;
            }
            case 16 -> {
                int lanes = SHORTS.length();
                ShortVector acc = ShortVector.zero(SHORTS);
                for (int bound = count - count % lanes; i < bound; i += lanes) {
                    acc = acc.or(ShortVector.fromMemorySegment(SHORTS, values, valuesOffset + 2L * i, LE));
                }
                or = acc.reduceLanes(VectorOperators.OR) & 0xFFFFL;
            }
            case 32 -> {
                int lanes = INTS.length();
                IntVector acc = IntVector.zero(INTS);
                for (int bound = count - count % lanes; i < bound; i += lanes) {
                    acc = acc.or(IntVector.fromMemorySegment(INTS, values, valuesOffset + 4L * i, LE));
                }
                or = acc.reduceLanes(VectorOperators.OR) & 0xFFFF_FFFFL;
            }
            default -> {
                int lanes = LONGS.length();
                LongVector acc = LongVector.zero(LONGS);
                for (int bound = count - count % lanes; i < bound; i += lanes) {
                    acc = acc.or(LongVector.fromMemorySegment(LONGS, values, valuesOffset + 8L * i, LE));
                }
                or = acc.reduceLanes(VectorOperators.OR);
            }
        }
        int bytes = typeBits >>> 3;
        for (; i < count; i++) {
            or |= readT(values, valuesOffset + (long) i * bytes, typeBits);
        }
        return 64 - Long.numberOfLeadingZeros(or);
    }

    // ------------------------------------------------------------------ RLE

    @Override
    public long expandRle(int valueBytes, MemorySegment values, long valuesOffset, MemorySegment runLengths,
                          long runLengthsOffset, long numRuns, MemorySegment out, long outOffset, long maxValues) {
        checkValueBytes(valueBytes);
        if (valueBytes == 16) {
            return super.expandRle(valueBytes, values, valuesOffset, runLengths, runLengthsOffset, numRuns, out, outOffset, maxValues);
        }
        int vectorBytes = BYTES.length();
        int bits = valueBytes * 8;
        long written = 0;
        for (long run = 0; run < numRuns && written < maxValues; run++) {
            long n = Math.min(runLengths.get(U8, runLengthsOffset + run) & 0xFF, maxValues - written);
            long dst = outOffset + written * valueBytes;
            long v = readT(values, valuesOffset + run * valueBytes, bits);
            long bytes = n * valueBytes;
            long j = 0;
            if (bytes >= vectorBytes) {
                ByteVector pattern = switch (valueBytes) {
                    case 1 -> ByteVector.broadcast(BYTES, (byte) v);
                    case 2 -> ShortVector.broadcast(SHORTS, (short) v).reinterpretAsBytes();
                    case 4 -> IntVector.broadcast(INTS, (int) v).reinterpretAsBytes();
                    default -> LongVector.broadcast(LONGS, v).reinterpretAsBytes();
                };
                for (long bound = bytes - vectorBytes; j <= bound; j += vectorBytes) {
                    pattern.intoMemorySegment(out, dst + j, LE);
                }
            }
            for (; j < bytes; j += valueBytes) {
                writeT(out, dst + j, bits, v);
            }
            written += n;
        }
        return written;
    }

    /** Compares each value with its predecessor a vector at a time (two overlapping unaligned loads). */
    @Override
    public long countRuns(int valueBytes, MemorySegment values, long valuesOffset, long count) {
        checkValueBytes(valueBytes);
        if (count == 0 || valueBytes == 16) {
            return super.countRuns(valueBytes, values, valuesOffset, count);
        }
        long changes = 0;
        long i = 1;
        switch (valueBytes) {
            case 1 -> {
                int lanes = BYTES.length();
                for (; i + lanes <= count; i += lanes) {
                    ByteVector a = ByteVector.fromMemorySegment(BYTES, values, valuesOffset + i, LE);
                    ByteVector b = ByteVector.fromMemorySegment(BYTES, values, valuesOffset + i - 1, LE);
                    changes += a.compare(VectorOperators.NE, b).trueCount();
                }
            }
            case 2 -> {
                int lanes = SHORTS.length();
                for (; i + lanes <= count; i += lanes) {
                    ShortVector a = ShortVector.fromMemorySegment(SHORTS, values, valuesOffset + 2 * i, LE);
                    ShortVector b = ShortVector.fromMemorySegment(SHORTS, values, valuesOffset + 2 * (i - 1), LE);
                    changes += a.compare(VectorOperators.NE, b).trueCount();
                }
            }
            case 4 -> {
                int lanes = INTS.length();
                for (; i + lanes <= count; i += lanes) {
                    IntVector a = IntVector.fromMemorySegment(INTS, values, valuesOffset + 4 * i, LE);
                    IntVector b = IntVector.fromMemorySegment(INTS, values, valuesOffset + 4 * (i - 1), LE);
                    changes += a.compare(VectorOperators.NE, b).trueCount();
                }
            }
            default -> {
                int lanes = LONGS.length();
                for (; i + lanes <= count; i += lanes) {
                    LongVector a = LongVector.fromMemorySegment(LONGS, values, valuesOffset + 8 * i, LE);
                    LongVector b = LongVector.fromMemorySegment(LONGS, values, valuesOffset + 8 * (i - 1), LE);
                    changes += a.compare(VectorOperators.NE, b).trueCount();
                }
            }
        }
        for (; i < count; i++) {
            if (!sameAsPrevious(valueBytes, values, valuesOffset, i)) {
                changes++;
            }
        }
        return 1 + changes;
    }

    // ------------------------------------------------------------------ byte stream split

    private static boolean bssLanesFit(int width) {
        return width == 2 ? BSS2 : width == 4 ? BSS4 : BSS8;
    }

    @Override
    public void bssDecode(int width, MemorySegment src, long srcOffset, long count, MemorySegment out, long outOffset) {
        checkBssWidth(width);
        long i = 0;
        switch (bssLanesFit(width) ? width : 0) {
            case 0 -> {
                // no byte species of the right lane count: all scalar
            }
            case 2 -> {
                int lanes = SHORTS.length();
                for (long bound = count - count % lanes; i < bound; i += lanes) {
                    ShortVector acc = ShortVector.zero(SHORTS);
                    for (int j = 0; j < 2; j++) {
                        ShortVector b = (ShortVector) ByteVector.fromMemorySegment(BYTES_PER_SHORT, src, srcOffset + j * count + i, LE)
                                .convertShape(VectorOperators.ZERO_EXTEND_B2S, SHORTS, 0);
                        acc = acc.or(b.lanewise(VectorOperators.LSHL, 8 * j));
                    }
                    acc.intoMemorySegment(out, outOffset + 2 * i, LE);
                }
            }
            case 4 -> {
                int lanes = INTS.length();
                for (long bound = count - count % lanes; i < bound; i += lanes) {
                    IntVector acc = IntVector.zero(INTS);
                    for (int j = 0; j < 4; j++) {
                        IntVector b = (IntVector) ByteVector.fromMemorySegment(BYTES_PER_INT, src, srcOffset + j * count + i, LE)
                                .convertShape(VectorOperators.ZERO_EXTEND_B2I, INTS, 0);
                        acc = acc.or(b.lanewise(VectorOperators.LSHL, 8 * j));
                    }
                    acc.intoMemorySegment(out, outOffset + 4 * i, LE);
                }
            }
            default -> {
                int lanes = LONGS.length();
                for (long bound = count - count % lanes; i < bound; i += lanes) {
                    LongVector acc = LongVector.zero(LONGS);
                    for (int j = 0; j < 8; j++) {
                        LongVector b = (LongVector) ByteVector.fromMemorySegment(BYTES_PER_LONG, src, srcOffset + j * count + i, LE)
                                .convertShape(VectorOperators.ZERO_EXTEND_B2L, LONGS, 0);
                        acc = acc.or(b.lanewise(VectorOperators.LSHL, 8 * j));
                    }
                    acc.intoMemorySegment(out, outOffset + 8 * i, LE);
                }
            }
        }
        bssDecodeFrom(width, src, srcOffset, i, count, out, outOffset);
    }

    @Override
    public void bssEncode(int width, MemorySegment values, long valuesOffset, long count, MemorySegment dst, long dstOffset) {
        checkBssWidth(width);
        long i = 0;
        switch (bssLanesFit(width) ? width : 0) {
            case 0 -> {
                // no byte species of the right lane count: all scalar
            }
            case 2 -> {
                int lanes = SHORTS.length();
                for (long bound = count - count % lanes; i < bound; i += lanes) {
                    ShortVector v = ShortVector.fromMemorySegment(SHORTS, values, valuesOffset + 2 * i, LE);
                    for (int j = 0; j < 2; j++) {
                        ((ByteVector) v.lanewise(VectorOperators.LSHR, 8 * j).convertShape(VectorOperators.S2B, BYTES_PER_SHORT, 0))
                                .intoMemorySegment(dst, dstOffset + j * count + i, LE);
                    }
                }
            }
            case 4 -> {
                int lanes = INTS.length();
                for (long bound = count - count % lanes; i < bound; i += lanes) {
                    IntVector v = IntVector.fromMemorySegment(INTS, values, valuesOffset + 4 * i, LE);
                    for (int j = 0; j < 4; j++) {
                        ((ByteVector) v.lanewise(VectorOperators.LSHR, 8 * j).convertShape(VectorOperators.I2B, BYTES_PER_INT, 0))
                                .intoMemorySegment(dst, dstOffset + j * count + i, LE);
                    }
                }
            }
            default -> {
                int lanes = LONGS.length();
                for (long bound = count - count % lanes; i < bound; i += lanes) {
                    LongVector v = LongVector.fromMemorySegment(LONGS, values, valuesOffset + 8 * i, LE);
                    for (int j = 0; j < 8; j++) {
                        ((ByteVector) v.lanewise(VectorOperators.LSHR, 8 * j).convertShape(VectorOperators.L2B, BYTES_PER_LONG, 0))
                                .intoMemorySegment(dst, dstOffset + j * count + i, LE);
                    }
                }
            }
        }
        bssEncodeFrom(width, values, valuesOffset, i, count, dst, dstOffset);
    }

    // ------------------------------------------------------------------ dictionary gather

    /**
     * Validates the indices a vector at a time (unsigned compare against the dictionary size), then
     * copies with the unchecked scalar loop: the Vector API cannot gather from a memory segment. On an
     * invalid index the checked scalar loop runs again to report the exact position.
     */
    @Override
    public void gather(int valueBytes, MemorySegment dict, long dictOffset, long dictCount, int indexBytes,
                       MemorySegment indices, long indicesOffset, long count, MemorySegment out, long outOffset) {
        checkValueBytes(valueBytes);
        checkIndexBytes(indexBytes);
        if (!allIndicesBelow(indexBytes, indices, indicesOffset, count, dictCount)) {
            gatherFrom(valueBytes, dict, dictOffset, dictCount, indexBytes, indices, indicesOffset, 0, count, out, outOffset);
            return;
        }
        gatherLoop(valueBytes, dict, dictOffset, dictCount, indexBytes, indices, indicesOffset, 0, count, out, outOffset, false);
    }

    private static boolean allIndicesBelow(int indexBytes, MemorySegment indices, long indicesOffset, long count, long dictCount) {
        long maxIndex = indexBytes == 1 ? 0xFF : indexBytes == 2 ? 0xFFFF : 0xFFFF_FFFFL;
        if (dictCount > maxIndex) {
            return true;
        }
        long i = 0;
        switch (indexBytes) {
            case 1 -> {
                int lanes = BYTES.length();
                byte limit = (byte) dictCount;
                for (long bound = count - count % lanes; i < bound; i += lanes) {
                    if (ByteVector.fromMemorySegment(BYTES, indices, indicesOffset + i, LE).compare(VectorOperators.UGE, limit).anyTrue()) {
                        return false;
                    }
                }
            }
            case 2 -> {
                int lanes = SHORTS.length();
                short limit = (short) dictCount;
                for (long bound = count - count % lanes; i < bound; i += lanes) {
                    if (ShortVector.fromMemorySegment(SHORTS, indices, indicesOffset + 2 * i, LE).compare(VectorOperators.UGE, limit).anyTrue()) {
                        return false;
                    }
                }
            }
            default -> {
                int lanes = INTS.length();
                int limit = (int) dictCount;
                for (long bound = count - count % lanes; i < bound; i += lanes) {
                    if (IntVector.fromMemorySegment(INTS, indices, indicesOffset + 4 * i, LE).compare(VectorOperators.UGE, limit).anyTrue()) {
                        return false;
                    }
                }
            }
        }
        for (; i < count; i++) {
            if (readIndex(indexBytes, indices, indicesOffset, i) >= dictCount) {
                return false;
            }
        }
        return true;
    }

    // ------------------------------------------------------------------ bitmaps

    @Override
    public long countSetBits(MemorySegment bitmap, long bitOffset, long numBits) {
        if (numBits <= 0) {
            return 0;
        }
        int head = (int) ((8 - (bitOffset & 7)) & 7);
        long total = 0;
        long bit = bitOffset;
        long n = numBits;
        if (head > 0) {
            int k = (int) Math.min(head, n);
            total += super.countSetBits(bitmap, bit, k);
            bit += k;
            n -= k;
        }
        int chunkBits = LONGS.length() * 64;
        if (n >= chunkBits) {
            LongVector acc = LongVector.zero(LONGS);
            long b = bit >>> 3;
            for (; n >= chunkBits; n -= chunkBits, b += chunkBits >>> 3) {
                acc = acc.add(LongVector.fromMemorySegment(LONGS, bitmap, b, LE).lanewise(VectorOperators.BIT_COUNT));
            }
            total += acc.reduceLanes(VectorOperators.ADD);
            bit = b << 3;
        }
        return total + super.countSetBits(bitmap, bit, n);
    }

    @Override
    public void copyBits(MemorySegment src, long srcBitOffset, MemorySegment dst, long dstBitOffset, long numBits) {
        int lanes = LONGS.length();
        long chunkBits = 64L * lanes;
        // only worth it for long unaligned copies; aligned ones are a plain memory copy already
        if (numBits < 2 * chunkBits + 16 || ((srcBitOffset - dstBitOffset) & 7) == 0) {
            super.copyBits(src, srcBitOffset, dst, dstBitOffset, numBits);
            return;
        }
        long srcBit = srcBitOffset;
        long dstBit = dstBitOffset;
        long n = numBits;
        int head = (int) ((8 - (dstBit & 7)) & 7);
        if (head > 0) {
            super.copyBits(src, srcBit, dst, dstBit, head);
            srcBit += head;
            dstBit += head;
            n -= head;
        }
        int sh = (int) (srcBit & 7);
        long s = srcBit >>> 3;
        long d = dstBit >>> 3;
        // each step reads 8*lanes + 8 bytes starting at s: all hold bits still to copy while n >= chunkBits + 64
        while (n >= chunkBits + 64) {
            LongVector lo = LongVector.fromMemorySegment(LONGS, src, s, LE);
            LongVector hi = LongVector.fromMemorySegment(LONGS, src, s + 1, LE);
            // lane k: word(s + 8k) >>> sh | byte(s + 8k + 8) << (64 - sh); that byte is the top byte of hi's lane k
            LongVector next = hi.lanewise(VectorOperators.LSHR, 56).lanewise(VectorOperators.LSHL, 64 - sh);
            lo.lanewise(VectorOperators.LSHR, sh).or(next).intoMemorySegment(dst, d, LE);
            s += 8L * lanes;
            d += 8L * lanes;
            n -= chunkBits;
        }
        super.copyBits(src, (s << 3) + sh, dst, d << 3, n);
    }

    // ------------------------------------------------------------------ offsets

    @Override
    public void rebaseOffsets32to32(MemorySegment src, long srcOffset, long count, int delta, MemorySegment dst, long dstOffset) {
        int lanes = INTS.length();
        long i = 0;
        for (long bound = count - count % lanes; i < bound; i += lanes) {
            IntVector.fromMemorySegment(INTS, src, srcOffset + 4 * i, LE).add(delta).intoMemorySegment(dst, dstOffset + 4 * i, LE);
        }
        rebase32to32From(src, srcOffset, i, count, delta, dst, dstOffset);
    }

    @Override
    public void rebaseOffsets32to64(MemorySegment src, long srcOffset, long count, long delta, MemorySegment dst, long dstOffset) {
        int lanes = LONGS.length();
        long i = 0;
        for (long bound = count - count % lanes; i < bound; i += lanes) {
            ((LongVector) IntVector.fromMemorySegment(INTS_PER_LONG, src, srcOffset + 4 * i, LE)
                    .convertShape(VectorOperators.ZERO_EXTEND_I2L, LONGS, 0))
                    .add(delta).intoMemorySegment(dst, dstOffset + 8 * i, LE);
        }
        rebase32to64From(src, srcOffset, i, count, delta, dst, dstOffset);
    }

    @Override
    public void rebaseOffsets64to64(MemorySegment src, long srcOffset, long count, long delta, MemorySegment dst, long dstOffset) {
        int lanes = LONGS.length();
        long i = 0;
        for (long bound = count - count % lanes; i < bound; i += lanes) {
            LongVector.fromMemorySegment(LONGS, src, srcOffset + 8 * i, LE).add(delta).intoMemorySegment(dst, dstOffset + 8 * i, LE);
        }
        rebase64to64From(src, srcOffset, i, count, delta, dst, dstOffset);
    }
}
