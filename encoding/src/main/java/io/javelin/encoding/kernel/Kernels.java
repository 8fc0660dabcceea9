package io.javelin.encoding.kernel;

import java.lang.foreign.MemorySegment;

/**
 * Synchronous decode kernels over off-heap memory. Two implementations exist: {@link ScalarKernels}
 * (plain loops, always available) and {@code VectorKernels} (jdk.incubator.vector). The vector one is
 * chosen at class-load time when the incubator module is in the boot layer, unless the system
 * property {@code javelin.simd.disable=true} forces the scalar one.
 *
 * <p>Kernels never allocate, never block and know nothing of Reactor; callers bound-check inputs.
 */
public interface Kernels {

    /** The kernels this JVM uses. */
    static Kernels get() {
        return Holder.INSTANCE;
    }

    /** Short name of the implementation, e.g. "vector(512-bit)" or "scalar". */
    String name();

    /**
     * Turns {@code count} little-endian u16 definition levels into an Arrow validity bitmap: bit i is
     * set when level i is 0 (the value is present). {@code bitmap} must hold {@code ceil(count/8)}
     * bytes; bits past {@code count} in the last byte are cleared.
     *
     * @return the number of nulls (levels other than 0)
     */
    long defLevelsToValidity(MemorySegment levels, long levelsOffset, long count, MemorySegment bitmap, long bitmapOffset);

    /**
     * Generalised {@link #defLevelsToValidity}: {@code count} unsigned little-endian levels of
     * {@code levelBytes} (1 or 2) bytes; bit i is set when level i is below {@code threshold} (unsigned).
     * With {@code threshold = 1} this is {@link #defLevelsToValidity}. For a flat def-only column whose
     * layers are {@code [NULLABLE_ITEM, NULLABLE_ITEM, ...]} (structs), the validity of layer k (0 =
     * innermost) is {@code level < k + 1}. {@code threshold} above the type maximum marks everything
     * valid; 0 marks everything null. Bits past {@code count} in the last byte are cleared.
     *
     * @return the number of invalid entries (levels {@code >= threshold})
     */
    long levelsToValidity(int levelBytes, MemorySegment levels, long levelsOffset, long count, int threshold,
                          MemorySegment bitmap, long bitmapOffset);

    /**
     * Counts the unsigned little-endian levels of {@code levelBytes} (1 or 2) that are below
     * {@code threshold}: the number of values a def-only page really stores when nulls leave no slot.
     */
    long countLevelsBelow(int levelBytes, MemorySegment levels, long levelsOffset, long count, int threshold);

    /**
     * Narrows {@code count} u16 levels to u8 (or widens u8 to u16 when {@code fromBytes = 1}); used when
     * a bitpacked level block was unpacked at a different width than the unraveller consumes.
     * Narrowing keeps the low byte.
     */
    void convertLevels(int fromBytes, MemorySegment src, long srcOffset, long count, int toBytes,
                       MemorySegment dst, long dstOffset);

    // ---------------------------------------------------------------- FastLanes bit-packing

    /** Values in one FastLanes block. */
    int FASTLANES_BLOCK = 1024;

    /** Bytes of packed data (without the header word) for one block at {@code bitWidth}: {@code 128 * W}. */
    static long packedBytes(int bitWidth) {
        return 128L * bitWidth;
    }

    /**
     * Unpacks one FastLanes block of 1024 values of {@code typeBits} (8, 16, 32, 64) unsigned bits,
     * transposed layout of file-format.md §9.3. Reads {@code 128 * bitWidth} bytes at
     * {@code packedOffset} (the packed words without the header word) and writes {@code 1024 * typeBits / 8}
     * bytes of little-endian values at {@code outOffset}. {@code bitWidth == 0} writes zeros;
     * {@code bitWidth == typeBits} is still transposed.
     */
    void unpack(int typeBits, int bitWidth, MemorySegment packed, long packedOffset, MemorySegment out, long outOffset);

    /**
     * Inverse of {@link #unpack}: packs 1024 little-endian values of {@code typeBits} into
     * {@code 128 * bitWidth} bytes. Bits above {@code bitWidth} in a value are dropped (callers pick the
     * width with {@link #maxBitWidth}).
     */
    void pack(int typeBits, int bitWidth, MemorySegment values, long valuesOffset, MemorySegment packed, long packedOffset);

    /** Bytes of one InlineBitpacking mini-block chunk: the header word (W as one T-bit word) plus the packed data. */
    static long inlineChunkBytes(int typeBits, int bitWidth) {
        return typeBits / 8 + 128L * bitWidth;
    }

    /**
     * Decodes one InlineBitpacking mini-block chunk (file-format.md §9.3): reads the bit width W from the
     * little-endian T-bit header word at {@code chunkOffset}, then unpacks the 1024 values that follow.
     *
     * @return W, so the caller can check the chunk size against {@link #inlineChunkBytes}
     * @throws KernelInputException when the header's width exceeds {@code typeBits} (position 0)
     */
    default int unpackInlineChunk(int typeBits, MemorySegment chunk, long chunkOffset, MemorySegment out, long outOffset) {
        long w = switch (typeBits) {
            case 8 -> chunk.get(java.lang.foreign.ValueLayout.JAVA_BYTE, chunkOffset) & 0xFFL;
            case 16 -> chunk.get(ScalarKernels.U16, chunkOffset) & 0xFFFFL;
            case 32 -> chunk.get(ScalarKernels.U32, chunkOffset) & 0xFFFF_FFFFL;
            case 64 -> chunk.get(ScalarKernels.U64, chunkOffset);
            default -> throw new IllegalArgumentException("FastLanes type width must be 8, 16, 32 or 64 bits: " + typeBits);
        };
        if (w < 0 || w > typeBits) {
            throw new KernelInputException("Bitpacked chunk declares bit width " + Long.toUnsignedString(w)
                    + " for " + typeBits + "-bit values", 0);
        }
        unpack(typeBits, (int) w, chunk, chunkOffset + typeBits / 8, out, outOffset);
        return (int) w;
    }

    /** {@code typeBits - numberOfLeadingZeros(OR of the count values)}: the smallest width that holds them all. */
    int maxBitWidth(int typeBits, MemorySegment values, long valuesOffset, int count);

    // ---------------------------------------------------------------- RLE

    /**
     * Expands {@code numRuns} runs: {@code values[i]} (of {@code valueBytes} = 1, 2, 4, 8 or 16 bytes)
     * repeated {@code runLengths[i]} (u8) times, stopping after {@code maxValues} values.
     *
     * @return the number of values written ({@code <= maxValues})
     */
    long expandRle(int valueBytes, MemorySegment values, long valuesOffset, MemorySegment runLengths, long runLengthsOffset,
                   long numRuns, MemorySegment out, long outOffset, long maxValues);

    /** Number of maximal runs of equal adjacent values (not split at 255): the writer's RLE heuristic input. */
    long countRuns(int valueBytes, MemorySegment values, long valuesOffset, long count);

    /** Number of (value, u8 length) pairs {@link #encodeRle} writes: runs split so none exceeds 255. */
    long countRleEntries(int valueBytes, MemorySegment values, long valuesOffset, long count);

    /**
     * RLE-encodes {@code count} values into run values and u8 run lengths, splitting runs longer than
     * 255. The outputs must hold {@link #countRleEntries} entries.
     *
     * @return the number of runs written
     */
    long encodeRle(int valueBytes, MemorySegment values, long valuesOffset, long count,
                   MemorySegment runValues, long runValuesOffset, MemorySegment runLengths, long runLengthsOffset);

    // ---------------------------------------------------------------- byte stream split

    /**
     * Byte-stream-split decode: stream j (of {@code width} = 2, 4 or 8) holds byte j of every value,
     * {@code src[j*count + i]}; writes {@code count} little-endian values of {@code width} bytes.
     */
    void bssDecode(int width, MemorySegment src, long srcOffset, long count, MemorySegment out, long outOffset);

    /** Inverse of {@link #bssDecode}. */
    void bssEncode(int width, MemorySegment values, long valuesOffset, long count, MemorySegment dst, long dstOffset);

    // ---------------------------------------------------------------- dictionary gather

    /**
     * {@code out[i] = dict[indices[i]]} for fixed-width values of {@code valueBytes} (1, 2, 4, 8, 16) and
     * unsigned little-endian indices of {@code indexBytes} (1, 2, 4).
     *
     * @throws IndexOutOfDictionaryException when an index is {@code >= dictCount} (nothing is promised
     *         about the output then)
     */
    void gather(int valueBytes, MemorySegment dict, long dictOffset, long dictCount, int indexBytes,
                MemorySegment indices, long indicesOffset, long count, MemorySegment out, long outOffset);

    /**
     * First pass of a variable-width dictionary gather: the total number of bytes the {@code count}
     * selected values occupy. The dictionary has {@code dictCount + 1} offsets of {@code offsetBytes}
     * (4 = i32, 8 = i64), value k spanning {@code [offsets[k], offsets[k+1])}.
     *
     * @throws IndexOutOfDictionaryException on an index {@code >= dictCount}
     * @throws KernelInputException when the offsets of a selected entry go backwards
     */
    long gatherVariableLength(int offsetBytes, MemorySegment dictOffsets, long dictOffsetsOffset, long dictCount,
                              int indexBytes, MemorySegment indices, long indicesOffset, long count);

    /**
     * Second pass: writes {@code count + 1} output offsets of {@code outOffsetBytes} (4 or 8), starting at
     * {@code outBase}, and copies the bytes of each selected value, value k being read at
     * {@code dictData[dictDataOffset + offsets[k] - offsets[0] ...]}, to
     * {@code outData[outDataOffset + (outOffsets[i] - outBase) ...]}. {@code outData} must hold
     * {@link #gatherVariableLength} bytes.
     */
    void gatherVariable(int offsetBytes, MemorySegment dictOffsets, long dictOffsetsOffset, long dictCount,
                        MemorySegment dictData, long dictDataOffset, int indexBytes, MemorySegment indices,
                        long indicesOffset, long count, int outOffsetBytes, MemorySegment outOffsets,
                        long outOffsetsOffset, long outBase, MemorySegment outData, long outDataOffset);

    // ---------------------------------------------------------------- bitmaps

    /**
     * Copies {@code numBits} bits of an LSB-first bitmap from any bit offset to any bit offset. Bits of
     * {@code dst} outside the target range are preserved; reads never go past the last source byte that
     * holds a copied bit. Source and destination must not overlap.
     */
    void copyBits(MemorySegment src, long srcBitOffset, MemorySegment dst, long dstBitOffset, long numBits);

    /** Number of set bits among {@code numBits} bits of an LSB-first bitmap starting at {@code bitOffset}. */
    long countSetBits(MemorySegment bitmap, long bitOffset, long numBits);

    /** Sets ({@code value = true}) or clears {@code numBits} bits starting at {@code bitOffset}. */
    void fillBits(MemorySegment bitmap, long bitOffset, long numBits, boolean value);

    // ---------------------------------------------------------------- offsets

    /**
     * {@code dst[i] = src[i] + delta} over {@code count} i32 offsets (wrapping). To rebase chunk offsets
     * so they start at {@code newBase}, pass {@code delta = newBase - src[0]}. In place is allowed
     * ({@code src == dst}, same offset).
     */
    void rebaseOffsets32to32(MemorySegment src, long srcOffset, long count, int delta, MemorySegment dst, long dstOffset);

    /** {@code dst[i] = (src[i] as unsigned u32) + delta} as i64: rebase and widen. Not in place. */
    void rebaseOffsets32to64(MemorySegment src, long srcOffset, long count, long delta, MemorySegment dst, long dstOffset);

    /** {@code dst[i] = src[i] + delta} over {@code count} i64 offsets. In place is allowed. */
    void rebaseOffsets64to64(MemorySegment src, long srcOffset, long count, long delta, MemorySegment dst, long dstOffset);

    final class Holder {
        static final Kernels INSTANCE = load();

        private Holder() {
        }

        static boolean vectorModulePresent() {
            return ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent();
        }

        private static Kernels load() {
            if (vectorModulePresent() && SimdOptions.current().enabled()) {
                try {
                    return (Kernels) Class.forName("io.javelin.encoding.kernel.VectorKernels")
                            .getDeclaredConstructor().newInstance();
                } catch (ReflectiveOperationException | LinkageError e) {
                    // Fall through: the scalar kernels are always correct.
                }
            }
            return new ScalarKernels();
        }
    }
}
