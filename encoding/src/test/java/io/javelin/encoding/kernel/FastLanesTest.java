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
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class FastLanesTest {

    private static final int[] ORDER = {0, 4, 2, 6, 1, 5, 3, 7};

    static Stream<Arguments> typeAndWidth() {
        return KernelTestSupport.kernels().stream().flatMap(k -> IntStream.of(8, 16, 32, 64)
                .boxed().flatMap(t -> IntStream.rangeClosed(0, t).mapToObj(w -> Arguments.of(k, t, w))));
    }

    // ---- independent reference: each lane's packed words form one LSB-first bit stream, row r at bits [rW, rW+W)

    private static int logicalIndex(int row, int lane) {
        return ORDER[row / 8] * 16 + (row % 8) * 128 + lane;
    }

    private static long[] referenceUnpack(int t, int w, byte[] packed) {
        int lanes = 1024 / t;
        long[] out = new long[1024];
        for (int lane = 0; lane < lanes; lane++) {
            for (int row = 0; row < t; row++) {
                long v = 0;
                for (int k = 0; k < w; k++) {
                    int b = row * w + k; // bit of the lane stream
                    int word = b / t;
                    int bitInWord = b % t;
                    int byteIndex = (lanes * word + lane) * (t / 8) + bitInWord / 8;
                    int bit = (packed[byteIndex] >> (bitInWord % 8)) & 1;
                    v |= (long) bit << k;
                }
                out[logicalIndex(row, lane)] = v;
            }
        }
        return out;
    }

    private static byte[] referencePack(int t, int w, long[] values) {
        int lanes = 1024 / t;
        byte[] packed = new byte[128 * w];
        for (int lane = 0; lane < lanes; lane++) {
            for (int row = 0; row < t; row++) {
                long v = values[logicalIndex(row, lane)];
                for (int k = 0; k < w; k++) {
                    if ((v >>> k & 1) != 0) {
                        int b = row * w + k;
                        int word = b / t;
                        int bitInWord = b % t;
                        int byteIndex = (lanes * word + lane) * (t / 8) + bitInWord / 8;
                        packed[byteIndex] |= (byte) (1 << (bitInWord % 8));
                    }
                }
            }
        }
        return packed;
    }

    private static long get(MemorySegment s, long off, int t) {
        return ScalarKernels.readT(s, off, t);
    }

    private static long[] readValues(MemorySegment s, long off, int t) {
        long[] v = new long[1024];
        for (int i = 0; i < 1024; i++) {
            v[i] = get(s, off + (long) i * (t / 8), t);
        }
        return v;
    }

    @ParameterizedTest(name = "{0} T={1} W={2}")
    @MethodSource("typeAndWidth")
    void unpackMatchesBitStreamReference(Kernels kernels, int t, int w) {
        Random random = new Random(31L * t + w);
        try (Arena arena = OffHeap.newArena("fastlanes-test")) {
            MemorySegment packed = fillRandom(arena.allocate(128L * w + 3), random);
            MemorySegment out = arena.allocate(128L * t + 10).fill((byte) 0x77);
            kernels.unpack(t, w, packed, 3, out, 5);
            byte[] packedBytes = bytes(packed.asSlice(3));
            assertThat(readValues(out, 5, t)).isEqualTo(referenceUnpack(t, w, packedBytes));
            assertThat(out.get(ValueLayout.JAVA_BYTE, 4)).as("byte before output untouched").isEqualTo((byte) 0x77);
            assertThat(out.get(ValueLayout.JAVA_BYTE, 128L * t + 5)).as("byte after output untouched").isEqualTo((byte) 0x77);
        }
    }

    @ParameterizedTest(name = "{0} T={1} W={2}")
    @MethodSource("typeAndWidth")
    void packMatchesReferenceAndRoundTrips(Kernels kernels, int t, int w) {
        Random random = new Random(17L * t + w);
        long mask = w == 64 ? -1L : (1L << w) - 1;
        try (Arena arena = OffHeap.newArena("fastlanes-test")) {
            MemorySegment values = arena.allocate(128L * t + 1);
            long[] expected = new long[1024];
            for (int i = 0; i < 1024; i++) {
                long v = random.nextLong() & mask;
                // a few maximal values so the top bit of the width is exercised
                if (i % 97 == 0) {
                    v = mask;
                }
                expected[i] = v;
                ScalarKernels.writeT(values, 1 + (long) i * (t / 8), t, v);
            }
            MemorySegment packed = arena.allocate(128L * w + 9).fill((byte) 0x33);
            kernels.pack(t, w, values, 1, packed, 7);
            assertThat(bytes(packed.asSlice(7, 128L * w))).isEqualTo(referencePack(t, w, expected));
            assertThat(packed.get(ValueLayout.JAVA_BYTE, 6)).isEqualTo((byte) 0x33);
            assertThat(packed.get(ValueLayout.JAVA_BYTE, 128L * w + 7)).isEqualTo((byte) 0x33);

            MemorySegment out = arena.allocate(128L * t + 2);
            kernels.unpack(t, w, packed, 7, out, 2);
            assertThat(readValues(out, 2, t)).isEqualTo(expected);
            assertThat(kernels.maxBitWidth(t, values, 1, 1024)).isEqualTo(w);
        }
    }

    @ParameterizedTest(name = "{0} T={1} W={2}")
    @MethodSource("typeAndWidth")
    void packDropsBitsAboveTheWidth(Kernels kernels, int t, int w) {
        Random random = new Random(5L * t + w);
        long mask = w == 64 ? -1L : (1L << w) - 1;
        try (Arena arena = OffHeap.newArena("fastlanes-test")) {
            MemorySegment values = fillRandom(arena.allocate(128L * t), random);
            MemorySegment packed = arena.allocate(128L * w);
            kernels.pack(t, w, values, 0, packed, 0);
            MemorySegment out = arena.allocate(128L * t);
            kernels.unpack(t, w, packed, 0, out, 0);
            long[] in = readValues(values, 0, t);
            long[] back = readValues(out, 0, t);
            for (int i = 0; i < 1024; i++) {
                assertThat(back[i]).as("value %d", i).isEqualTo(in[i] & mask);
            }
        }
    }

    @Test
    void knownAnswerT8W1() {
        // T=8 W=1: 128 lanes, one packed byte per lane; row r of lane l is bit r of byte l, logical index r*128+l.
        for (Kernels kernels : KernelTestSupport.kernels()) {
            try (Arena arena = OffHeap.newArena("fastlanes-test")) {
                MemorySegment values = arena.allocate(1024);
                values.set(ValueLayout.JAVA_BYTE, 5 * 128 + 3, (byte) 1); // row 5, lane 3
                values.set(ValueLayout.JAVA_BYTE, 1, (byte) 1);           // row 0, lane 1
                values.set(ValueLayout.JAVA_BYTE, 7 * 128 + 127, (byte) 1); // row 7, lane 127
                MemorySegment packed = arena.allocate(128);
                kernels.pack(8, 1, values, 0, packed, 0);
                byte[] expected = new byte[128];
                expected[3] = 0x20;
                expected[1] = 0x01;
                expected[127] = (byte) 0x80;
                assertThat(bytes(packed)).as(kernels.name()).isEqualTo(expected);
                MemorySegment out = arena.allocate(1024);
                kernels.unpack(8, 1, packed, 0, out, 0);
                assertThat(bytes(out)).isEqualTo(bytes(values));
            }
        }
    }

    @Test
    void knownAnswerT8W3() {
        // T=8 W=3: lane l has words packed[l], packed[128+l], packed[256+l]; row r at bits [3r, 3r+3).
        // Row 2 (bits 6..8) of lane 9 = 0b111 spills: bits 6,7 of byte 9 and bit 0 of byte 128+9.
        for (Kernels kernels : KernelTestSupport.kernels()) {
            try (Arena arena = OffHeap.newArena("fastlanes-test")) {
                MemorySegment values = arena.allocate(1024);
                values.set(ValueLayout.JAVA_BYTE, 2 * 128 + 9, (byte) 7);
                values.set(ValueLayout.JAVA_BYTE, 7 * 128 + 0, (byte) 5); // row 7: bits 21..23 = word 2 bits 5..7
                MemorySegment packed = arena.allocate(384);
                kernels.pack(8, 3, values, 0, packed, 0);
                byte[] expected = new byte[384];
                expected[9] = (byte) 0xC0;
                expected[128 + 9] = 0x01;
                expected[256] = (byte) 0xA0;
                assertThat(bytes(packed)).as(kernels.name()).isEqualTo(expected);
            }
        }
    }

    @Test
    void knownAnswerT32W3() {
        // T=32 W=3: 32 lanes of u32. Row 10, lane 5: logical index ORDER[1]*16 + 2*128 + 5 = 325,
        // bits [30, 33) of lane 5: bit 30 of word 0 (u32 #5, bytes 20..23) and bit 0 of word 1 (u32 #37).
        for (Kernels kernels : KernelTestSupport.kernels()) {
            try (Arena arena = OffHeap.newArena("fastlanes-test")) {
                MemorySegment values = arena.allocate(4096);
                values.set(ScalarKernels.U32, 4L * 325, 5);
                values.set(ScalarKernels.U32, 0, 7); // row 0 lane 0
                MemorySegment packed = arena.allocate(384);
                kernels.pack(32, 3, values, 0, packed, 0);
                byte[] expected = new byte[384];
                expected[0] = 0x07;
                expected[23] = 0x40;
                expected[148] = 0x01;
                assertThat(bytes(packed)).as(kernels.name()).isEqualTo(expected);
                MemorySegment out = arena.allocate(4096);
                kernels.unpack(32, 3, packed, 0, out, 0);
                assertThat(out.get(ScalarKernels.U32, 4L * 325)).isEqualTo(5);
                assertThat(out.get(ScalarKernels.U32, 0)).isEqualTo(7);
            }
        }
    }

    @Test
    void knownAnswerT16FullWidthIsStillTransposed() {
        // W == T: row r is word r, packed[64*r + l]. Row 9, lane 2: index ORDER[1]*16 + 128 + 2 = 194 -> u16 #578.
        for (Kernels kernels : KernelTestSupport.kernels()) {
            try (Arena arena = OffHeap.newArena("fastlanes-test")) {
                MemorySegment values = arena.allocate(2048);
                values.set(ScalarKernels.U16, 2L * 194, (short) 0xABCD);
                MemorySegment packed = arena.allocate(2048);
                kernels.pack(16, 16, values, 0, packed, 0);
                byte[] expected = new byte[2048];
                expected[1156] = (byte) 0xCD;
                expected[1157] = (byte) 0xAB;
                assertThat(bytes(packed)).as(kernels.name()).isEqualTo(expected);
            }
        }
    }

    @Test
    void maxBitWidthOfOddCounts() {
        for (Kernels kernels : KernelTestSupport.kernels()) {
            try (Arena arena = OffHeap.newArena("fastlanes-test")) {
                for (int t : new int[] {8, 16, 32, 64}) {
                    MemorySegment values = arena.allocate(8L * 1100);
                    assertThat(kernels.maxBitWidth(t, values, 3, 1025)).isZero();
                    for (int bit = 0; bit < t; bit++) {
                        long pos = 3 + (long) (bit * 37 % 1025) * (t / 8);
                        ScalarKernels.writeT(values, pos, t, 1L << bit);
                        assertThat(kernels.maxBitWidth(t, values, 3, 1025)).as("T=%d bit=%d", t, bit).isEqualTo(bit + 1);
                    }
                    // a value past count does not count
                    ScalarKernels.writeT(values, 3 + 1025L * (t / 8), t, -1L);
                    assertThat(kernels.maxBitWidth(t, values, 3, 1025)).isEqualTo(t);
                    assertThat(kernels.maxBitWidth(t, values, 3, 7)).isLessThanOrEqualTo(t);
                }
            }
        }
    }

    @Test
    void rejectsBadWidths() {
        for (Kernels kernels : KernelTestSupport.kernels()) {
            MemorySegment s = MemorySegment.ofArray(new byte[16384]);
            assertThatThrownBy(() -> kernels.unpack(12, 3, s, 0, s, 0)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> kernels.unpack(8, 9, s, 0, s, 0)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> kernels.pack(32, -1, s, 0, s, 0)).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void byteArrayHeapSegmentsWork() {
        // Vector loads accept heap segments only when they wrap a byte[]: the kernels' contract.
        for (Kernels kernels : KernelTestSupport.kernels()) {
            MemorySegment in = MemorySegment.ofArray(new byte[8192]);
            for (int i = 0; i < 1024; i++) {
                in.set(ScalarKernels.U64, 8L * i, i * 3L);
            }
            MemorySegment packed = MemorySegment.ofArray(new byte[128 * 12]);
            kernels.pack(64, 12, in, 0, packed, 0);
            MemorySegment back = MemorySegment.ofArray(new byte[8192]);
            kernels.unpack(64, 12, packed, 0, back, 0);
            assertThat(bytes(back)).as(kernels.name()).isEqualTo(bytes(in));
        }
    }

    /**
     * One InlineBitpacking(64) mini-block chunk of the {@code id} column (row ids 3000..4023) cut out of a
     * 2.1 file written by official Lance 7.0.0 (golden types_v2_1): a u64 header word W = 12, then
     * 1024 * 12 / 64 packed u64 words.
     */
    @Test
    void unpacksAChunkWrittenByLance() throws java.io.IOException {
        byte[] chunk;
        try (java.io.InputStream in = FastLanesTest.class.getResourceAsStream("lance700-bitpacked-u64-w12.bin")) {
            assertThat(in).isNotNull();
            chunk = in.readAllBytes();
        }
        for (Kernels kernels : KernelTestSupport.kernels()) {
            try (Arena arena = OffHeap.newArena("fastlanes-test")) {
                MemorySegment packed = arena.allocate(chunk.length);
                MemorySegment.copy(MemorySegment.ofArray(chunk), 0, packed, 0, chunk.length);
                MemorySegment out = arena.allocate(8 * 1024);
                int width = kernels.unpackInlineChunk(64, packed, 0, out, 0);
                assertThat(width).isEqualTo(12);
                assertThat(Kernels.inlineChunkBytes(64, width)).isEqualTo(chunk.length);
                for (int i = 0; i < 1024; i++) {
                    assertThat(out.get(ScalarKernels.U64, 8L * i)).as("%s value %d", kernels.name(), i).isEqualTo(3000L + i);
                }
                assertThat(kernels.maxBitWidth(64, out, 0, 1024)).isEqualTo(12);
                MemorySegment repacked = arena.allocate(128 * 12);
                kernels.pack(64, 12, out, 0, repacked, 0);
                assertThat(bytes(repacked)).as("our packing is byte-identical to Lance's").isEqualTo(java.util.Arrays.copyOfRange(chunk, 8, chunk.length));
            }
        }
    }

    @Test
    void inlineChunkWithAnImpossibleWidthIsReported() {
        for (Kernels kernels : KernelTestSupport.kernels()) {
            try (Arena arena = OffHeap.newArena("fastlanes-test")) {
                MemorySegment chunk = arena.allocate(2 + 128L * 16);
                MemorySegment out = arena.allocate(2048);
                chunk.set(ScalarKernels.U16, 0, (short) 17);
                assertThatThrownBy(() -> kernels.unpackInlineChunk(16, chunk, 0, out, 0))
                        .isInstanceOf(KernelInputException.class).hasMessageContaining("17");
                chunk.set(ScalarKernels.U16, 0, (short) 0);
                out.fill((byte) 1);
                assertThat(kernels.unpackInlineChunk(16, chunk, 0, out, 0)).isZero();
                assertThat(bytes(out)).containsOnly((byte) 0);
            }
        }
    }
}
