package io.javelin.encoding.kernel;

import static io.javelin.encoding.kernel.KernelTestSupport.bytes;
import static io.javelin.encoding.kernel.KernelTestSupport.fillRandom;
import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.objectstore.memory.OffHeap;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class BitsAndOffsetsTest {

    static Stream<Arguments> bitCases() {
        return KernelTestSupport.kernelsAndSizes().flatMap(a -> Stream.of(new int[] {0, 0}, new int[] {3, 0},
                        new int[] {0, 5}, new int[] {7, 1}, new int[] {13, 13}, new int[] {64, 9})
                .map(o -> Arguments.of(a.get()[0], a.get()[1], o[0], o[1])));
    }

    private static boolean bit(MemorySegment s, long i) {
        return (s.get(ValueLayout.JAVA_BYTE, i >>> 3) >> (i & 7) & 1) != 0;
    }

    @ParameterizedTest(name = "{0} n={1} src+{2} dst+{3}")
    @MethodSource("bitCases")
    void copyBitsMatchesBitByBit(Kernels kernels, long numBits, int srcBit, int dstBit) {
        Random random = new Random(numBits * 101 + srcBit * 7L + dstBit);
        try (Arena arena = OffHeap.newArena("bits-test")) {
            // exact-size source: a read past the last needed byte would throw
            long srcBytes = (srcBit + numBits + 7) / 8;
            MemorySegment src = fillRandom(arena.allocate(Math.max(srcBytes, 0)), random);
            long dstBytes = (dstBit + numBits + 7) / 8 + 2;
            MemorySegment dst = fillRandom(arena.allocate(dstBytes), random);
            MemorySegment before = arena.allocate(dstBytes);
            MemorySegment.copy(dst, 0, before, 0, dstBytes);
            kernels.copyBits(src, srcBit, dst, dstBit, numBits);
            for (long i = 0; i < dstBytes * 8; i++) {
                boolean expected = i >= dstBit && i < dstBit + numBits ? bit(src, srcBit + i - dstBit) : bit(before, i);
                assertThat(bit(dst, i)).as("bit %d", i).isEqualTo(expected);
            }
            long ones = 0;
            for (long i = 0; i < numBits; i++) {
                ones += bit(src, srcBit + i) ? 1 : 0;
            }
            assertThat(kernels.countSetBits(src, srcBit, numBits)).isEqualTo(ones);
        }
    }

    @ParameterizedTest(name = "{0} n={1} at+{2}")
    @MethodSource("bitCases")
    void fillBitsTouchesOnlyTheRange(Kernels kernels, long numBits, int at, int ignored) {
        Random random = new Random(numBits + at);
        try (Arena arena = OffHeap.newArena("bits-test")) {
            long size = (at + numBits + 7) / 8 + 1;
            for (boolean value : new boolean[] {true, false}) {
                MemorySegment s = fillRandom(arena.allocate(size), random);
                MemorySegment before = arena.allocate(size);
                MemorySegment.copy(s, 0, before, 0, size);
                kernels.fillBits(s, at, numBits, value);
                for (long i = 0; i < size * 8; i++) {
                    boolean expected = i >= at && i < at + numBits ? value : bit(before, i);
                    assertThat(bit(s, i)).as("bit %d", i).isEqualTo(expected);
                }
            }
        }
    }

    @ParameterizedTest(name = "{0} n={1}")
    @MethodSource("io.javelin.encoding.kernel.KernelTestSupport#kernelsAndSizes")
    void rebaseOffsets(Kernels kernels, long count) {
        Random random = new Random(count);
        try (Arena arena = OffHeap.newArena("offsets-test")) {
            MemorySegment src32 = fillRandom(arena.allocate(4 * count + 1), random);
            MemorySegment src64 = fillRandom(arena.allocate(8 * count + 3), random);
            int delta32 = random.nextInt();
            long delta64 = random.nextLong();
            MemorySegment d32 = arena.allocate(4 * count + 2);
            kernels.rebaseOffsets32to32(src32, 1, count, delta32, d32, 2);
            MemorySegment d64 = arena.allocate(8 * count + 5);
            kernels.rebaseOffsets32to64(src32, 1, count, delta64, d64, 5);
            MemorySegment e64 = arena.allocate(8 * count + 1);
            kernels.rebaseOffsets64to64(src64, 3, count, delta64, e64, 1);
            for (long i = 0; i < count; i++) {
                int s = src32.get(ScalarKernels.U32, 1 + 4 * i);
                assertThat(d32.get(ScalarKernels.U32, 2 + 4 * i)).isEqualTo(s + delta32);
                assertThat(d64.get(ScalarKernels.U64, 5 + 8 * i)).isEqualTo(Integer.toUnsignedLong(s) + delta64);
                assertThat(e64.get(ScalarKernels.U64, 1 + 8 * i)).isEqualTo(src64.get(ScalarKernels.U64, 3 + 8 * i) + delta64);
            }
            // in place
            byte[] original = bytes(src32);
            kernels.rebaseOffsets32to32(src32, 1, count, 5, src32, 1);
            for (long i = 0; i < count; i++) {
                int s = MemorySegment.ofArray(original).get(ScalarKernels.U32, 1 + 4 * i);
                assertThat(src32.get(ScalarKernels.U32, 1 + 4 * i)).isEqualTo(s + 5);
            }
        }
    }
}
