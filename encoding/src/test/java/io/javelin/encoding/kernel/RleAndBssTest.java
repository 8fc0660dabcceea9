package io.javelin.encoding.kernel;

import static io.javelin.encoding.kernel.KernelTestSupport.bytes;
import static io.javelin.encoding.kernel.KernelTestSupport.fillRandom;
import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.objectstore.memory.OffHeap;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class RleAndBssTest {

    static Stream<Arguments> rleCases() {
        return KernelTestSupport.kernelsAndSizes().flatMap(a -> Stream.of(1, 2, 4, 8, 16)
                .map(w -> Arguments.of(a.get()[0], a.get()[1], w)));
    }

    static Stream<Arguments> bssCases() {
        return KernelTestSupport.kernelsAndSizes().flatMap(a -> Stream.of(2, 4, 8)
                .map(w -> Arguments.of(a.get()[0], a.get()[1], w)));
    }

    /** Values drawn from a small alphabet with long runs, some longer than 255. */
    private static byte[][] runnyValues(Random random, int n, int width) {
        byte[][] alphabet = new byte[3][width];
        for (byte[] a : alphabet) {
            random.nextBytes(a);
        }
        alphabet[2] = alphabet[0].clone();
        alphabet[2][width - 1] ^= 1; // differs from alphabet[0] in the last byte only
        byte[][] values = new byte[n][];
        int i = 0;
        while (i < n) {
            byte[] v = alphabet[random.nextInt(3)];
            int run = random.nextInt(10) == 0 ? 200 + random.nextInt(400) : 1 + random.nextInt(5);
            for (int j = 0; j < run && i < n; j++) {
                values[i++] = v;
            }
        }
        return values;
    }

    @ParameterizedTest(name = "{0} n={1} width={2}")
    @MethodSource("rleCases")
    void rleEncodeExpandMatchesReference(Kernels kernels, long count, int width) {
        int n = (int) count;
        Random random = new Random(n * 7L + width);
        byte[][] values = runnyValues(random, n, width);
        // reference: maximal runs, then split at 255
        List<byte[]> refValues = new ArrayList<>();
        List<Integer> refLengths = new ArrayList<>();
        long maximalRuns = 0;
        for (int i = 0; i < n; i++) {
            boolean newRun = i == 0 || !Arrays.equals(values[i], values[i - 1]);
            if (newRun) {
                maximalRuns++;
            }
            if (newRun || refLengths.getLast() == 255) {
                refValues.add(values[i]);
                refLengths.add(1);
            } else {
                refLengths.set(refLengths.size() - 1, refLengths.getLast() + 1);
            }
        }
        try (Arena arena = OffHeap.newArena("rle-test")) {
            MemorySegment in = arena.allocate((long) n * width + 3);
            for (int i = 0; i < n; i++) {
                MemorySegment.copy(MemorySegment.ofArray(values[i]), 0, in, 3 + (long) i * width, width);
            }
            assertThat(kernels.countRuns(width, in, 3, n)).isEqualTo(maximalRuns);
            long entries = kernels.countRleEntries(width, in, 3, n);
            assertThat(entries).isEqualTo(refValues.size());
            MemorySegment runValues = arena.allocate(entries * width + 1);
            MemorySegment runLengths = arena.allocate(entries + 1);
            assertThat(kernels.encodeRle(width, in, 3, n, runValues, 1, runLengths, 1)).isEqualTo(entries);
            for (int r = 0; r < entries; r++) {
                assertThat(bytes(runValues.asSlice(1 + (long) r * width, width))).isEqualTo(refValues.get(r));
                assertThat(runLengths.get(ValueLayout.JAVA_BYTE, 1 + r) & 0xFF).isEqualTo(refLengths.get(r));
            }
            MemorySegment out = arena.allocate((long) n * width + 5 + width).fill((byte) 0x5A);
            assertThat(kernels.expandRle(width, runValues, 1, runLengths, 1, entries, out, 5, n)).isEqualTo(n);
            assertThat(bytes(out.asSlice(5, (long) n * width))).isEqualTo(bytes(in.asSlice(3)));
            assertThat(out.get(ValueLayout.JAVA_BYTE, 4)).isEqualTo((byte) 0x5A);
            assertThat(out.get(ValueLayout.JAVA_BYTE, 5 + (long) n * width)).isEqualTo((byte) 0x5A);
            // maxValues stops early, mid-run
            if (n > 3) {
                MemorySegment partial = arena.allocate((long) n * width + width).fill((byte) 0x5A);
                long stop = n / 2 + 1;
                assertThat(kernels.expandRle(width, runValues, 1, runLengths, 1, entries, partial, 0, stop)).isEqualTo(stop);
                assertThat(bytes(partial.asSlice(0, stop * width))).isEqualTo(bytes(in.asSlice(3, stop * width)));
                assertThat(partial.get(ValueLayout.JAVA_BYTE, stop * width)).isEqualTo((byte) 0x5A);
            }
        }
    }

    @ParameterizedTest(name = "{0} n={1}")
    @MethodSource("io.javelin.encoding.kernel.KernelTestSupport#kernelsAndSizes")
    void rleStopsWhenRunsRunOutAndZeroLengthRunsAreSkipped(Kernels kernels, long count) {
        try (Arena arena = OffHeap.newArena("rle-test")) {
            int runs = (int) count;
            MemorySegment values = arena.allocate(4L * runs + 1);
            MemorySegment lengths = arena.allocate(runs + 1);
            List<Integer> expected = new ArrayList<>();
            Random random = new Random(count);
            for (int r = 0; r < runs; r++) {
                values.set(ScalarKernels.U32, 4L * r, r);
                int len = random.nextInt(4) == 0 ? 0 : random.nextInt(300) % 256;
                lengths.set(ValueLayout.JAVA_BYTE, r, (byte) len);
                for (int j = 0; j < len; j++) {
                    expected.add(r);
                }
            }
            MemorySegment out = arena.allocate(4L * expected.size() + 4);
            long written = kernels.expandRle(4, values, 0, lengths, 0, runs, out, 0, Long.MAX_VALUE);
            assertThat(written).isEqualTo(expected.size());
            for (int i = 0; i < expected.size(); i++) {
                assertThat(out.get(ScalarKernels.U32, 4L * i)).isEqualTo(expected.get(i));
            }
        }
    }

    @ParameterizedTest(name = "{0} n={1} width={2}")
    @MethodSource("bssCases")
    void byteStreamSplitMatchesDefinition(Kernels kernels, long count, int width) {
        Random random = new Random(count * 13 + width);
        try (Arena arena = OffHeap.newArena("bss-test")) {
            MemorySegment values = fillRandom(arena.allocate(count * width + 7), random);
            MemorySegment split = arena.allocate(count * width + 2).fill((byte) 0x11);
            kernels.bssEncode(width, values, 7, count, split, 1);
            for (long i = 0; i < count; i++) {
                for (int j = 0; j < width; j++) {
                    assertThat(split.get(ValueLayout.JAVA_BYTE, 1 + j * count + i))
                            .isEqualTo(values.get(ValueLayout.JAVA_BYTE, 7 + i * width + j));
                }
            }
            assertThat(split.get(ValueLayout.JAVA_BYTE, 0)).isEqualTo((byte) 0x11);
            assertThat(split.get(ValueLayout.JAVA_BYTE, 1 + count * width)).isEqualTo((byte) 0x11);
            MemorySegment back = arena.allocate(count * width + 3).fill((byte) 0x22);
            kernels.bssDecode(width, split, 1, count, back, 3);
            assertThat(bytes(back.asSlice(3))).isEqualTo(bytes(values.asSlice(7)));
            assertThat(back.get(ValueLayout.JAVA_BYTE, 2)).isEqualTo((byte) 0x22);
        }
    }
}
