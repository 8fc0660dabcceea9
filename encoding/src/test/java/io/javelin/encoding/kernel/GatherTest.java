package io.javelin.encoding.kernel;

import static io.javelin.encoding.kernel.KernelTestSupport.bytes;
import static io.javelin.encoding.kernel.KernelTestSupport.fillRandom;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.javelin.objectstore.memory.OffHeap;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class GatherTest {

    static Stream<Arguments> fixedCases() {
        return KernelTestSupport.kernelsAndSizes().flatMap(a -> Stream.of(1, 2, 4, 8, 16)
                .flatMap(v -> Stream.of(1, 2, 4).map(ix -> Arguments.of(a.get()[0], a.get()[1], v, ix))));
    }

    static Stream<Arguments> variableCases() {
        return KernelTestSupport.kernelsAndSizes().flatMap(a -> Stream.of(4, 8)
                .flatMap(o -> Stream.of(1, 2, 4).flatMap(ix -> Stream.of(4, 8)
                        .map(oo -> Arguments.of(a.get()[0], a.get()[1], o, ix, oo)))));
    }

    private static void writeIndex(MemorySegment s, long off, int indexBytes, long i, long value) {
        switch (indexBytes) {
            case 1 -> s.set(ValueLayout.JAVA_BYTE, off + i, (byte) value);
            case 2 -> s.set(ScalarKernels.U16, off + 2 * i, (short) value);
            default -> s.set(ScalarKernels.U32, off + 4 * i, (int) value);
        }
    }

    @ParameterizedTest(name = "{0} n={1} value={2}B index={3}B")
    @MethodSource("fixedCases")
    void fixedGatherMatchesDefinition(Kernels kernels, long count, int valueBytes, int indexBytes) {
        Random random = new Random(count * 31 + valueBytes * 7L + indexBytes);
        int dictCount = indexBytes == 1 ? 1 + random.nextInt(255) : 1 + random.nextInt(700);
        try (Arena arena = OffHeap.newArena("gather-test")) {
            MemorySegment dict = fillRandom(arena.allocate((long) dictCount * valueBytes + 3), random);
            MemorySegment indices = arena.allocate(count * indexBytes + 1);
            long[] chosen = new long[(int) count];
            for (int i = 0; i < count; i++) {
                chosen[i] = i % 50 == 0 ? dictCount - 1 : random.nextInt(dictCount);
                writeIndex(indices, 1, indexBytes, i, chosen[i]);
            }
            MemorySegment out = arena.allocate(count * valueBytes + 2).fill((byte) 0x66);
            kernels.gather(valueBytes, dict, 3, dictCount, indexBytes, indices, 1, count, out, 1);
            for (int i = 0; i < count; i++) {
                assertThat(bytes(out.asSlice(1 + (long) i * valueBytes, valueBytes)))
                        .isEqualTo(bytes(dict.asSlice(3 + chosen[i] * valueBytes, valueBytes)));
            }
            assertThat(out.get(ValueLayout.JAVA_BYTE, 0)).isEqualTo((byte) 0x66);
            assertThat(out.get(ValueLayout.JAVA_BYTE, 1 + count * valueBytes)).isEqualTo((byte) 0x66);

            if (count > 0) {
                long bad = random.nextInt((int) count);
                long badIndex = indexBytes == 1 ? 255 : dictCount + random.nextInt(3);
                if (indexBytes == 1 && dictCount == 256) {
                    return;
                }
                writeIndex(indices, 1, indexBytes, bad, badIndex);
                assertThatThrownBy(() -> kernels.gather(valueBytes, dict, 3, dictCount, indexBytes, indices, 1, count, out, 1))
                        .isInstanceOfSatisfying(IndexOutOfDictionaryException.class, e -> {
                            assertThat(e.position()).isEqualTo(bad);
                            assertThat(e.index()).isEqualTo(badIndex);
                            assertThat(e.dictionaryCount()).isEqualTo(dictCount);
                        });
            }
        }
    }

    @Test
    void negativeLookingIndicesAreUnsignedAndRejected() {
        for (Kernels kernels : KernelTestSupport.kernels()) {
            try (Arena arena = OffHeap.newArena("gather-test")) {
                MemorySegment dict = arena.allocate(64);
                MemorySegment indices = arena.allocate(4L * 100);
                indices.set(ScalarKernels.U32, 4L * 77, 0xFFFF_FFFF);
                MemorySegment out = arena.allocate(8L * 100);
                assertThatThrownBy(() -> kernels.gather(8, dict, 0, 8, 4, indices, 0, 100, out, 0))
                        .isInstanceOfSatisfying(IndexOutOfDictionaryException.class, e -> {
                            assertThat(e.position()).isEqualTo(77);
                            assertThat(e.index()).isEqualTo(0xFFFF_FFFFL);
                        });
            }
        }
    }

    @ParameterizedTest(name = "{0} n={1} dictOffsets={2}B index={3}B outOffsets={4}B")
    @MethodSource("variableCases")
    void variableGatherMatchesDefinition(Kernels kernels, long count, int offsetBytes, int indexBytes, int outOffsetBytes) {
        Random random = new Random(count * 3 + offsetBytes * 5L + indexBytes * 11L + outOffsetBytes);
        int dictCount = 1 + random.nextInt(200);
        long firstOffset = 1000; // dictionary offsets need not start at 0
        try (Arena arena = OffHeap.newArena("gather-test")) {
            MemorySegment dictOffsets = arena.allocate((long) (dictCount + 1) * offsetBytes + 1);
            long[] starts = new long[dictCount + 1];
            long pos = firstOffset;
            for (int k = 0; k <= dictCount; k++) {
                starts[k] = pos;
                ScalarKernels.writeOffset(offsetBytes, dictOffsets, 1, k, pos);
                pos += random.nextInt(4) == 0 ? 0 : random.nextInt(20);
            }
            MemorySegment dictData = fillRandom(arena.allocate(pos - firstOffset + 2), random);
            MemorySegment indices = arena.allocate(count * indexBytes);
            long[] chosen = new long[(int) count];
            long expectedTotal = 0;
            for (int i = 0; i < count; i++) {
                chosen[i] = random.nextInt(dictCount);
                writeIndex(indices, 0, indexBytes, i, chosen[i]);
                expectedTotal += starts[(int) chosen[i] + 1] - starts[(int) chosen[i]];
            }
            long total = kernels.gatherVariableLength(offsetBytes, dictOffsets, 1, dictCount, indexBytes, indices, 0, count);
            assertThat(total).isEqualTo(expectedTotal);
            MemorySegment outOffsets = arena.allocate((count + 1) * outOffsetBytes);
            MemorySegment outData = arena.allocate(total + 1).fill((byte) 0x44);
            long outBase = 17;
            kernels.gatherVariable(offsetBytes, dictOffsets, 1, dictCount, dictData, 2, indexBytes, indices, 0, count,
                    outOffsetBytes, outOffsets, 0, outBase, outData, 1);
            long expectedPos = outBase;
            assertThat(ScalarKernels.readOffset(outOffsetBytes, outOffsets, 0, 0)).isEqualTo(outBase);
            for (int i = 0; i < count; i++) {
                int k = (int) chosen[i];
                long len = starts[k + 1] - starts[k];
                assertThat(bytes(outData.asSlice(1 + expectedPos - outBase, len)))
                        .isEqualTo(bytes(dictData.asSlice(2 + starts[k] - firstOffset, len)));
                expectedPos += len;
                assertThat(ScalarKernels.readOffset(outOffsetBytes, outOffsets, 0, i + 1)).isEqualTo(expectedPos);
            }
            assertThat(outData.get(ValueLayout.JAVA_BYTE, 0)).isEqualTo((byte) 0x44);

            if (count > 0) {
                writeIndex(indices, 0, indexBytes, count - 1, dictCount);
                assertThatThrownBy(() -> kernels.gatherVariableLength(offsetBytes, dictOffsets, 1, dictCount, indexBytes, indices, 0, count))
                        .isInstanceOf(IndexOutOfDictionaryException.class);
            }
        }
    }

    @Test
    void backwardsDictionaryOffsetsAreReported() {
        for (Kernels kernels : KernelTestSupport.kernels()) {
            try (Arena arena = OffHeap.newArena("gather-test")) {
                MemorySegment offsets = arena.allocate(16);
                offsets.set(ScalarKernels.U32, 0, 0);
                offsets.set(ScalarKernels.U32, 4, 10);
                offsets.set(ScalarKernels.U32, 8, 5);
                MemorySegment indices = arena.allocate(2);
                indices.set(ValueLayout.JAVA_BYTE, 1, (byte) 1);
                assertThatThrownBy(() -> kernels.gatherVariableLength(4, offsets, 0, 2, 1, indices, 0, 2))
                        .isInstanceOfSatisfying(KernelInputException.class, e -> assertThat(e.position()).isEqualTo(1));
            }
        }
    }
}
