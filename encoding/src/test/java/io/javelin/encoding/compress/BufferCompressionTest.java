package io.javelin.encoding.compress;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.javelin.objectstore.memory.OffHeap;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class BufferCompressionTest {

    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final String SAMPLE = "Lance javelin zstd interop: hello hello hello hello hello world!";

    /** {@code zstd -19 zin.txt}: single-segment frame with a 1-byte Frame_Content_Size and a checksum. */
    private static final int[] CLI_FRAME_WITH_SIZE = {
        0x28, 0xB5, 0x2F, 0xFD, 0x24, 0x40, 0x75, 0x01, 0x00, 0x74, 0x02, 0x4C, 0x61, 0x6E, 0x63, 0x65, 0x20, 0x6A,
        0x61, 0x76, 0x65, 0x6C, 0x69, 0x6E, 0x20, 0x7A, 0x73, 0x74, 0x64, 0x20, 0x69, 0x6E, 0x74, 0x65, 0x72, 0x6F,
        0x70, 0x3A, 0x20, 0x68, 0x65, 0x6C, 0x6C, 0x6F, 0x77, 0x6F, 0x72, 0x6C, 0x64, 0x21, 0x01, 0x00, 0xC9, 0x52,
        0x9E, 0x72, 0x05, 0x78, 0x32};
    /** {@code cat zin.txt | zstd -3}: no content size (streamed from stdin), window descriptor 0x58. */
    private static final int[] CLI_FRAME_WITHOUT_SIZE = {
        0x28, 0xB5, 0x2F, 0xFD, 0x04, 0x58, 0x75, 0x01, 0x00, 0x74, 0x02, 0x4C, 0x61, 0x6E, 0x63, 0x65, 0x20, 0x6A,
        0x61, 0x76, 0x65, 0x6C, 0x69, 0x6E, 0x20, 0x7A, 0x73, 0x74, 0x64, 0x20, 0x69, 0x6E, 0x74, 0x65, 0x72, 0x6F,
        0x70, 0x3A, 0x20, 0x68, 0x65, 0x6C, 0x6C, 0x6F, 0x77, 0x6F, 0x72, 0x6C, 0x64, 0x21, 0x01, 0x00, 0xC9, 0x52,
        0x9E, 0x72, 0x05, 0x78, 0x32};

    static Stream<Arguments> codecsAndSizes() {
        return Stream.of(BufferCompression.zstd(), BufferCompression.lz4())
                .flatMap(c -> Stream.of(0, 1, 7, 100, 4096, 65537, 300_000).map(n -> Arguments.of(c, n)));
    }

    private static byte[] textLike(int n, long seed) {
        Random random = new Random(seed);
        String[] words = {"lance", "javelin", "column", "page", "buffer", "the", "of", "and", "zstd", "lz4", "\u00e9t\u00e9", "\u6570\u636e"};
        StringBuilder sb = new StringBuilder();
        while (sb.length() < n) {
            sb.append(words[random.nextInt(words.length)]).append(random.nextInt(10) == 0 ? '\n' : ' ');
        }
        byte[] b = sb.toString().getBytes(StandardCharsets.UTF_8);
        return java.util.Arrays.copyOf(b, n);
    }

    private static MemorySegment segment(Arena arena, byte[] bytes) {
        MemorySegment s = arena.allocate(Math.max(1, bytes.length)).asSlice(0, bytes.length);
        MemorySegment.copy(MemorySegment.ofArray(bytes), 0, s, 0, bytes.length);
        return s;
    }

    private static byte[] bytes(int[] ints) {
        byte[] b = new byte[ints.length];
        for (int i = 0; i < ints.length; i++) {
            b[i] = (byte) ints[i];
        }
        return b;
    }

    private static byte[] resource(String name) throws IOException {
        try (InputStream in = BufferCompressionTest.class.getResourceAsStream(name)) {
            assertThat(in).as(name).isNotNull();
            return in.readAllBytes();
        }
    }

    @ParameterizedTest(name = "{0} n={1}")
    @MethodSource("codecsAndSizes")
    void roundTrips(BufferCodec codec, int n) {
        byte[] input = textLike(n, n);
        try (Arena arena = OffHeap.newArena("codec-test")) {
            MemorySegment src = segment(arena, input);
            MemorySegment framed = codec.compress(src, arena);
            assertThat(codec.declaredLength(framed)).isEqualTo(n);
            if (codec.name().equals("zstd")) {
                assertThat(framed.get(U64, 0)).as("u64 length prefix").isEqualTo(n);
                if (n > 0) {
                    assertThat(framed.get(U32, 8)).as("zstd magic after the prefix").isEqualTo(ZstdBufferCodec.MAGIC);
                }
            } else {
                assertThat(framed.get(U32, 0)).as("u32 length prefix").isEqualTo(n);
            }
            if (n >= 4096) {
                assertThat(framed.byteSize()).as("text compresses").isLessThan(n / 2);
            }
            MemorySegment out = codec.decompress(framed, n, arena);
            assertThat(out.toArray(ValueLayout.JAVA_BYTE)).isEqualTo(input);
            MemorySegment dst = arena.allocate(n + 10);
            assertThat(codec.decompress(framed, dst)).isEqualTo(n);
            assertThat(dst.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE)).isEqualTo(input);
            if (n > 0) {
                assertThatThrownBy(() -> codec.decompress(framed, n - 1, arena))
                        .isInstanceOf(CodecException.class).hasMessageContaining("limit");
            }
        }
    }

    @Test
    void zstdBareFramesFromTheCli() throws IOException {
        BufferCodec zstd = BufferCompression.zstd();
        try (Arena arena = OffHeap.newArena("codec-test")) {
            for (int[] frame : new int[][] {CLI_FRAME_WITH_SIZE, CLI_FRAME_WITHOUT_SIZE}) {
                MemorySegment framed = segment(arena, bytes(frame));
                assertThat(ZstdBufferCodec.isBareStream(framed)).isTrue();
                MemorySegment out = zstd.decompress(framed, 1000, arena);
                assertThat(new String(out.toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8)).isEqualTo(SAMPLE);
                assertThatThrownBy(() -> zstd.decompress(framed, 10, arena)).isInstanceOf(CodecException.class);
            }
            assertThat(zstd.declaredLength(segment(arena, bytes(CLI_FRAME_WITH_SIZE)))).isEqualTo(64);
            assertThat(zstd.declaredLength(segment(arena, bytes(CLI_FRAME_WITHOUT_SIZE)))).isEqualTo(-1);

            byte[] original = resource("cli-sample.txt");
            for (String name : new String[] {"cli-sample.txt.zst", "cli-sample-stream.zst"}) {
                MemorySegment bare = segment(arena, resource(name));
                assertThat(zstd.decompress(bare, 1 << 20, arena).toArray(ValueLayout.JAVA_BYTE)).as(name).isEqualTo(original);
                // the same CLI frame behind Lance's u64 prefix
                byte[] raw = resource(name);
                MemorySegment prefixed = arena.allocate(8 + raw.length);
                prefixed.set(U64, 0, original.length);
                MemorySegment.copy(MemorySegment.ofArray(raw), 0, prefixed, 8, raw.length);
                assertThat(zstd.decompress(prefixed, 1 << 20, arena).toArray(ValueLayout.JAVA_BYTE)).as(name).isEqualTo(original);
                // the prefix must match the frame
                prefixed.set(U64, 0, original.length + 1);
                assertThatThrownBy(() -> zstd.decompress(prefixed, 1 << 20, arena)).isInstanceOf(CodecException.class);
            }
        }
    }

    @Test
    void lz4HandMadeBlock() {
        // "abcabcabcabcXYZWV": token 0x35 (3 literals, match length 4+5), "abc", offset 3; then token 0x50 + 5 literals.
        byte[] block = {17, 0, 0, 0, 0x35, 'a', 'b', 'c', 0x03, 0x00, 0x50, 'X', 'Y', 'Z', 'W', 'V'};
        try (Arena arena = OffHeap.newArena("codec-test")) {
            MemorySegment out = BufferCompression.lz4().decompress(segment(arena, block), 100, arena);
            assertThat(new String(out.toArray(ValueLayout.JAVA_BYTE), StandardCharsets.US_ASCII)).isEqualTo("abcabcabcabcXYZWV");
            block[0] = 18; // prefix disagrees with the block
            assertThatThrownBy(() -> BufferCompression.lz4().decompress(segment(arena, block), 100, arena))
                    .isInstanceOf(CodecException.class);
        }
    }

    @Test
    void hugeDeclaredSizesAreRejectedBeforeAllocating() {
        try (Arena arena = OffHeap.newArena("codec-test")) {
            MemorySegment zstd = arena.allocate(64);
            zstd.set(U64, 0, 1L << 40);
            assertThatThrownBy(() -> BufferCompression.zstd().decompress(zstd, 1 << 20, arena))
                    .isInstanceOfSatisfying(CodecException.class, e -> assertThat(e.codec()).isEqualTo("zstd"));
            zstd.set(U64, 0, -1L);
            assertThatThrownBy(() -> BufferCompression.zstd().decompress(zstd, Long.MAX_VALUE, arena))
                    .isInstanceOf(CodecException.class);
            MemorySegment lz4 = arena.allocate(64);
            lz4.set(U32, 0, -1);
            assertThatThrownBy(() -> BufferCompression.lz4().decompress(lz4, Long.MAX_VALUE, arena))
                    .isInstanceOfSatisfying(CodecException.class, e -> assertThat(e.codec()).isEqualTo("lz4"));
            // bare zstd frame whose header claims 2^40 bytes
            MemorySegment bare = arena.allocate(32);
            bare.set(U32, 0, ZstdBufferCodec.MAGIC);
            bare.set(ValueLayout.JAVA_BYTE, 4, (byte) 0xE0); // FCS 8 bytes, single segment
            bare.set(U64, 5, 1L << 40);
            assertThatThrownBy(() -> BufferCompression.zstd().decompress(bare, 1 << 20, arena)).isInstanceOf(CodecException.class);
        }
    }

    @Test
    void truncatedAndGarbageInputIsACodecException() {
        Random random = new Random(42);
        try (Arena arena = OffHeap.newArena("codec-test")) {
            for (BufferCodec codec : new BufferCodec[] {BufferCompression.zstd(), BufferCompression.lz4()}) {
                byte[] input = textLike(20_000, 9);
                byte[] framed = codec.compress(segment(arena, input), arena).toArray(ValueLayout.JAVA_BYTE);
                // (an empty zstd buffer is a valid empty value upstream; lz4 needs its prefix)
                for (int cut : codec.name().equals("zstd") ? new int[] {1, 3, 5, 9, 12, framed.length / 2, framed.length - 1}
                        : new int[] {0, 1, 3, 5, 9, 12, framed.length / 2, framed.length - 1}) {
                    byte[] truncated = java.util.Arrays.copyOf(framed, cut);
                    assertThatThrownBy(() -> codec.decompress(segment(arena, truncated), 1 << 20, arena))
                            .as("%s cut at %d", codec.name(), cut).isInstanceOf(CodecException.class);
                }
                for (int trial = 0; trial < 300; trial++) {
                    byte[] mutated = framed.clone();
                    int flips = 1 + random.nextInt(8);
                    for (int f = 0; f < flips; f++) {
                        int at = trial % 3 == 0 ? random.nextInt(Math.min(40, mutated.length)) : random.nextInt(mutated.length);
                        mutated[at] = (byte) random.nextInt();
                    }
                    try {
                        MemorySegment out = codec.decompress(segment(arena, mutated), 1 << 20, arena);
                        assertThat(out.byteSize()).isLessThanOrEqualTo(1 << 20);
                    } catch (CodecException expected) {
                        assertThat(expected.codec()).isEqualTo(codec.name());
                    }
                }
                byte[] garbage = new byte[500];
                random.nextBytes(garbage);
                garbage[0] = 10; // small declared size for lz4 / prefix for zstd
                for (int i = 1; i < 8; i++) {
                    garbage[i] = 0;
                }
                try {
                    codec.decompress(segment(arena, garbage), 1 << 20, arena);
                } catch (CodecException expected) {
                    // fine: garbage may or may not decode
                }
            }
            assertThatThrownBy(() -> BufferCompression.lz4().decompress(segment(arena, new byte[3]), 100, arena))
                    .isInstanceOf(CodecException.class);
            assertThatThrownBy(() -> BufferCompression.zstd().decompress(segment(arena, new byte[] {1, 2, 3}), 100, arena))
                    .isInstanceOf(CodecException.class);
        }
    }

    @Test
    void prefixSmallerThanThePayloadNeverWritesPastTheOutput() {
        byte[] input = textLike(10_000, 5);
        try (Arena arena = OffHeap.newArena("codec-test")) {
            for (BufferCodec codec : new BufferCodec[] {BufferCompression.zstd(), BufferCompression.lz4()}) {
                MemorySegment framed = codec.compress(segment(arena, input), arena);
                if (codec.name().equals("zstd")) {
                    framed.set(U64, 0, 1000);
                } else {
                    framed.set(U32, 0, 1000);
                }
                // a guarded destination: the declared 1000 bytes, then a canary region
                MemorySegment dst = arena.allocate(2000).fill((byte) 0x5A);
                assertThatThrownBy(() -> codec.decompress(framed, dst)).as(codec.name()).isInstanceOf(CodecException.class);
                assertThatThrownBy(() -> codec.decompress(framed, 1 << 20, arena)).isInstanceOf(CodecException.class);
                for (long i = 1000; i < 2000; i++) {
                    assertThat(dst.get(ValueLayout.JAVA_BYTE, i)).as("%s canary byte %d", codec.name(), i).isEqualTo((byte) 0x5A);
                }
            }
        }
    }

    /**
     * Cross-implementation check without extra dependencies: aircompressor bundles the reference C
     * libraries (libzstd, liblz4). Blocks/frames they produce must decode through our pure-Java path with
     * Lance's framing, and ours must decode with them.
     */
    @Test
    void interoperatesWithTheReferenceCLibraries() {
        org.junit.jupiter.api.Assumptions.assumeTrue(io.airlift.compress.v3.zstd.ZstdNativeCompressor.isEnabled()
                && io.airlift.compress.v3.lz4.Lz4NativeCompressor.isEnabled(), "bundled native libraries not loadable here");
        try (Arena arena = OffHeap.newArena("codec-test")) {
            for (int n : new int[] {1, 1000, 100_000}) {
                byte[] input = textLike(n, n + 1);
                byte[] scratch = new byte[2 * n + 1024];

                // libzstd level 19 frame behind Lance's u64 prefix -> our decoder
                int z = new io.airlift.compress.v3.zstd.ZstdNativeCompressor(19).compress(input, 0, n, scratch, 8, scratch.length - 8);
                MemorySegment.ofArray(scratch).set(U64, 0, n);
                MemorySegment framed = segment(arena, java.util.Arrays.copyOf(scratch, 8 + z));
                assertThat(BufferCompression.zstd().decompress(framed, n, arena).toArray(ValueLayout.JAVA_BYTE)).isEqualTo(input);

                // liblz4 block behind Lance's u32 prefix -> our decoder
                int l = new io.airlift.compress.v3.lz4.Lz4NativeCompressor().compress(input, 0, n, scratch, 4, scratch.length - 4);
                MemorySegment.ofArray(scratch).set(U32, 0, n);
                framed = segment(arena, java.util.Arrays.copyOf(scratch, 4 + l));
                assertThat(BufferCompression.lz4().decompress(framed, n, arena).toArray(ValueLayout.JAVA_BYTE)).isEqualTo(input);

                // our frames -> reference decoders
                byte[] ours = BufferCompression.zstd().compress(segment(arena, input), arena).toArray(ValueLayout.JAVA_BYTE);
                byte[] back = new byte[n];
                assertThat(new io.airlift.compress.v3.zstd.ZstdNativeDecompressor().decompress(ours, 8, ours.length - 8, back, 0, n)).isEqualTo(n);
                assertThat(back).isEqualTo(input);
                ours = BufferCompression.lz4().compress(segment(arena, input), arena).toArray(ValueLayout.JAVA_BYTE);
                back = new byte[n];
                assertThat(new io.airlift.compress.v3.lz4.Lz4NativeDecompressor().decompress(ours, 4, ours.length - 4, back, 0, n)).isEqualTo(n);
                assertThat(back).isEqualTo(input);
            }
        }
    }

    @Test
    void emptyZstdBufferIsEmpty() {
        try (Arena arena = OffHeap.newArena("codec-test")) {
            assertThat(BufferCompression.zstd().decompress(arena.allocate(1).asSlice(0, 0), 10, arena).byteSize()).isZero();
        }
    }

    @Test
    void schemesAndNames() {
        assertThat(BufferCompression.forScheme(BufferCompression.SCHEME_ZSTD, 0).name()).isEqualTo("zstd");
        assertThat(BufferCompression.forScheme(BufferCompression.SCHEME_LZ4, 0).name()).isEqualTo("lz4");
        assertThat(BufferCompression.forName("ZSTD").name()).isEqualTo("zstd");
        assertThatThrownBy(() -> BufferCompression.forScheme(0, 0)).isInstanceOf(CodecException.class);
        assertThatThrownBy(() -> BufferCompression.forName("snappy")).isInstanceOf(CodecException.class);
    }

    @Test
    void zstdLevelsAllDecode() {
        byte[] input = textLike(50_000, 3);
        try (Arena arena = OffHeap.newArena("codec-test")) {
            for (int level : new int[] {0, 1, 3, 9, 19}) {
                for (boolean nativeAllowed : new boolean[] {false, true}) {
                    BufferCodec codec = BufferCompression.zstd(level, nativeAllowed);
                    MemorySegment framed = codec.compress(segment(arena, input), arena);
                    assertThat(BufferCompression.zstd().decompress(framed, input.length, arena).toArray(ValueLayout.JAVA_BYTE))
                            .isEqualTo(input);
                }
            }
        }
    }
}
