package io.javelin.encoding.compress;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.javelin.objectstore.memory.OffHeap;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class FsstTest {

    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static MemorySegment segment(Arena arena, byte[] bytes) {
        MemorySegment s = arena.allocate(Math.max(1, bytes.length)).asSlice(0, bytes.length);
        MemorySegment.copy(MemorySegment.ofArray(bytes), 0, s, 0, bytes.length);
        return s;
    }

    /** A table written byte by byte from the layout description, not by {@link FsstSymbolTable#write}. */
    private static byte[] handBuiltTable() {
        byte[] t = new byte[2312];
        // header: n_symbols=3, terminator=0, suffix_lim=0, encoder_switch=1, magic "FSST" in bits 63..32
        t[0] = 3;
        t[3] = 1;
        t[4] = 0x54; // 'T'
        t[5] = 0x53; // 'S'
        t[6] = 0x53; // 'S'
        t[7] = 0x46; // 'F'
        byte[][] symbols = {utf8("ab"), utf8("c"), utf8("hello wo")};
        for (int i = 0; i < 3; i++) {
            System.arraycopy(symbols[i], 0, t, 8 + 8 * i, symbols[i].length);
            t[8 + 8 * 3 + i] = (byte) symbols[i].length;
        }
        t[8 + 8 + 3] = 0x7A; // garbage past symbol 0's length: must be ignored
        return t;
    }

    @Test
    void decodesWithAHandBuiltTable() {
        try (Arena arena = OffHeap.newArena("fsst-test")) {
            FsstSymbolTable table = FsstSymbolTable.parse(segment(arena, handBuiltTable()), 0);
            assertThat(table.compressed()).isTrue();
            assertThat(table.symbolCount()).isEqualTo(3);
            assertThat(table.symbol(2)).isEqualTo(utf8("hello wo"));
            byte[] codes = {0, 1, (byte) 255, 'x', 2, 0, (byte) 255, (byte) 255};
            MemorySegment in = segment(arena, codes);
            assertThat(table.decodedLength(in, 0, codes.length)).isEqualTo(15);
            MemorySegment out = arena.allocate(15);
            assertThat(table.decode(in, 0, codes.length, out, 0, 15)).isEqualTo(15);
            byte[] expected = new byte[15];
            System.arraycopy(utf8("abcxhello woab"), 0, expected, 0, 14);
            expected[14] = (byte) 0xFF;
            assertThat(out.toArray(ValueLayout.JAVA_BYTE)).isEqualTo(expected);
            // exact limit is fine, one byte less is not
            assertThatThrownBy(() -> table.decode(in, 0, codes.length, out, 0, 14)).isInstanceOf(CodecException.class);
            // written table equals the hand-built one except the ignored garbage byte
            byte[] written = table.toBytes();
            byte[] hand = handBuiltTable();
            hand[8 + 8 + 3] = 0;
            assertThat(written).isEqualTo(hand);
        }
    }

    @Test
    void uncompressedTableCopies() {
        try (Arena arena = OffHeap.newArena("fsst-test")) {
            byte[] raw = FsstSymbolTable.uncompressed().toBytes();
            assertThat(MemorySegment.ofArray(raw).get(U64, 0)).isEqualTo(0x46535354L << 32);
            FsstSymbolTable table = FsstSymbolTable.parse(segment(arena, raw), 0);
            assertThat(table.compressed()).isFalse();
            byte[] value = {(byte) 255, 1, 2};
            MemorySegment out = arena.allocate(3);
            assertThat(table.decode(segment(arena, value), 0, 3, out, 0, 3)).isEqualTo(3);
            assertThat(out.toArray(ValueLayout.JAVA_BYTE)).isEqualTo(value);
        }
    }

    @Test
    void rejectsGarbageTables() {
        try (Arena arena = OffHeap.newArena("fsst-test")) {
            byte[] badMagic = handBuiltTable();
            badMagic[7] = 0x47;
            assertThatThrownBy(() -> FsstSymbolTable.parse(segment(arena, badMagic), 0))
                    .isInstanceOf(CodecException.class).hasMessageContaining("magic");
            byte[] zeroLength = handBuiltTable();
            zeroLength[8 + 24 + 1] = 0;
            assertThatThrownBy(() -> FsstSymbolTable.parse(segment(arena, zeroLength), 0))
                    .isInstanceOf(CodecException.class).hasMessageContaining("length 0");
            byte[] nineLength = handBuiltTable();
            nineLength[8 + 24 + 2] = 9;
            assertThatThrownBy(() -> FsstSymbolTable.parse(segment(arena, nineLength), 0)).isInstanceOf(CodecException.class);
            assertThatThrownBy(() -> FsstSymbolTable.parse(segment(arena, new byte[2311]), 0))
                    .isInstanceOf(CodecException.class);
            assertThatThrownBy(() -> FsstSymbolTable.parse(segment(arena, handBuiltTable()), 1))
                    .isInstanceOf(CodecException.class);
            byte[] random = new byte[2312];
            new Random(1).nextBytes(random);
            assertThatThrownBy(() -> FsstSymbolTable.parse(segment(arena, random), 0)).isInstanceOf(CodecException.class);
            // 255 symbols: the maximum, valid if every length is in 1..8
            byte[] full = new byte[2312];
            full[0] = (byte) 255;
            full[3] = 1;
            MemorySegment.ofArray(full).set(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), 4, 0x46535354);
            for (int i = 0; i < 255; i++) {
                full[8 + 8 * 255 + i] = (byte) (1 + i % 8);
            }
            assertThat(FsstSymbolTable.parse(segment(arena, full), 0).symbolCount()).isEqualTo(255);
        }
    }

    @Test
    void corruptCodeStreamsAreCodecExceptions() {
        try (Arena arena = OffHeap.newArena("fsst-test")) {
            FsstSymbolTable table = FsstSymbolTable.parse(segment(arena, handBuiltTable()), 0);
            MemorySegment out = arena.allocate(1000);
            MemorySegment unknownCode = segment(arena, new byte[] {0, 3});
            assertThatThrownBy(() -> table.decode(unknownCode, 0, 2, out, 0, 1000))
                    .isInstanceOfSatisfying(CodecException.class, e -> assertThat(e.offset()).isEqualTo(1));
            MemorySegment danglingEscape = segment(arena, new byte[] {0, (byte) 255});
            assertThatThrownBy(() -> table.decode(danglingEscape, 0, 2, out, 0, 1000)).isInstanceOf(CodecException.class);
            assertThatThrownBy(() -> table.decodedLength(danglingEscape, 0, 2)).isInstanceOf(CodecException.class);
            // a dangling escape at the end of one value is not healed by the next value's bytes
            assertThatThrownBy(() -> table.decode(segment(arena, new byte[] {(byte) 255, 'a'}), 0, 1, out, 0, 1000))
                    .isInstanceOf(CodecException.class);
            // random code streams with random valid tables: only CodecException, never a write past the limit
            Random random = new Random(7);
            for (int trial = 0; trial < 500; trial++) {
                int n = random.nextInt(256);
                byte[][] symbols = new byte[n][];
                for (int i = 0; i < n; i++) {
                    symbols[i] = new byte[1 + random.nextInt(8)];
                    random.nextBytes(symbols[i]);
                }
                FsstSymbolTable t = FsstSymbolTable.of(symbols);
                byte[] codes = new byte[random.nextInt(64)];
                random.nextBytes(codes);
                int limit = random.nextInt(300);
                MemorySegment dst = arena.allocate(limit + 16).fill((byte) 0x5A);
                try {
                    long written = t.decode(segment(arena, codes), 0, codes.length, dst, 8, limit);
                    assertThat(written).isLessThanOrEqualTo(limit);
                    assertThat(t.decodedLength(segment(arena, codes), 0, codes.length)).isEqualTo(written);
                } catch (CodecException expected) {
                    // fine
                }
                for (int i = 0; i < 8; i++) {
                    assertThat(dst.get(ValueLayout.JAVA_BYTE, i)).isEqualTo((byte) 0x5A);
                    assertThat(dst.get(ValueLayout.JAVA_BYTE, 8 + limit + i)).isEqualTo((byte) 0x5A);
                }
            }
        }
    }

    private static List<byte[]> textLikeStrings(int count, long seed) {
        Random random = new Random(seed);
        String[] words = {"lance", "javelin", "column", "the", "quick", "brown", "fox", "jumps", "over", "lazy", "dog",
            "caf\u00e9", "na\u00efve", "\u6570\u636e\u5e93", "\u0434\u0430\u043d\u043d\u044b\u0435", "\ud83d\ude80", "http://example.com/", "id-"};
        List<byte[]> strings = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            int kind = random.nextInt(20);
            if (kind == 0) {
                strings.add(new byte[0]);
            } else if (kind == 1) {
                byte[] b = new byte[1 + random.nextInt(30)];
                random.nextBytes(b);
                b[0] = (byte) 0xFF;
                strings.add(b);
            } else {
                StringBuilder sb = new StringBuilder();
                int words1 = 1 + random.nextInt(12);
                for (int w = 0; w < words1; w++) {
                    sb.append(words[random.nextInt(words.length)]);
                    sb.append(random.nextInt(5) == 0 ? String.valueOf(random.nextInt(1000)) : " ");
                }
                strings.add(utf8(sb.toString()));
            }
        }
        return strings;
    }

    @ParameterizedTest(name = "offsets={0}B")
    @ValueSource(ints = {4, 8})
    void lanceStylePageRoundTrip(int offsetBytes) {
        for (int count : new int[] {0, 1, 50, 3000, 20000}) {
            List<byte[]> strings = textLikeStrings(count, count);
            try (Arena arena = OffHeap.newArena("fsst-test")) {
                long total = strings.stream().mapToLong(b -> b.length).sum();
                MemorySegment offsets = arena.allocate((count + 1L) * offsetBytes + 8);
                MemorySegment data = arena.allocate(Math.max(1, total + 3));
                long pos = 0;
                long firstOffset = 100; // input offsets need not start at 0
                FsstSymbolTable.writeOffset(offsetBytes, offsets, 8, 0, firstOffset);
                for (int i = 0; i < count; i++) {
                    byte[] s = strings.get(i);
                    MemorySegment.copy(MemorySegment.ofArray(s), 0, data, 3 + pos, s.length);
                    pos += s.length;
                    FsstSymbolTable.writeOffset(offsetBytes, offsets, 8, i + 1, firstOffset + pos);
                }
                MemorySegment table = arena.allocate(FsstSymbolTable.SERIALIZED_BYTES);
                MemorySegment codeOffsets = arena.allocate((count + 1L) * offsetBytes);
                MemorySegment codes = arena.allocate(Math.max(1, FsstEncoder.maxCompressedLength(total)));
                long compressedBytes = FsstEncoder.compress(offsetBytes, offsets, 8, count, data, 3, table, 0, codeOffsets, 0, codes, 0);

                FsstSymbolTable parsed = FsstSymbolTable.parse(table, 0);
                assertThat(parsed.compressed()).isEqualTo(total >= FsstEncoder.MIN_COMPRESS_INPUT);
                if (parsed.compressed()) {
                    assertThat(compressedBytes).as("text compresses: %d -> %d", total, compressedBytes).isLessThan(total * 7 / 10);
                } else {
                    assertThat(compressedBytes).isEqualTo(total);
                }
                long decodedSize = parsed.decodedLength(codes, 0, compressedBytes);
                assertThat(decodedSize).isEqualTo(total);
                MemorySegment outOffsets = arena.allocate((count + 1L) * offsetBytes);
                MemorySegment out = arena.allocate(Math.max(1, decodedSize));
                long decoded = parsed.decodeBatch(offsetBytes, codeOffsets, 0, count, codes, 0, compressedBytes,
                        outOffsets, 0, out, 0, decodedSize);
                assertThat(decoded).isEqualTo(total);
                long expectedPos = 0;
                for (int i = 0; i < count; i++) {
                    byte[] s = strings.get(i);
                    assertThat(out.asSlice(expectedPos, s.length).toArray(ValueLayout.JAVA_BYTE)).as("string %d", i).isEqualTo(s);
                    expectedPos += s.length;
                    assertThat(FsstSymbolTable.readOffset(offsetBytes, outOffsets, 0, i + 1)).isEqualTo(expectedPos);
                }
                if (count > 1) {
                    // offsets going backwards or past the data are rejected
                    FsstSymbolTable.writeOffset(offsetBytes, codeOffsets, 0, 1, compressedBytes + 1);
                    assertThatThrownBy(() -> parsed.decodeBatch(offsetBytes, codeOffsets, 0, count, codes, 0, compressedBytes,
                            outOffsets, 0, out, 0, decodedSize)).isInstanceOf(CodecException.class);
                }
            }
        }
    }

    @Test
    void encoderHandlesEdgeStrings() {
        List<byte[]> sample = textLikeStrings(2000, 99);
        FsstSymbolTable table = FsstEncoder.train(sample);
        assertThat(table.symbolCount()).isBetween(1, 255);
        for (int c = 0; c < table.symbolCount(); c++) {
            assertThat(table.symbol(c).length).isBetween(1, 8);
        }
        byte[][] edge = {new byte[0], {(byte) 0xFF}, {(byte) 0xFF, (byte) 0xFF, 0}, utf8("\ud83d\ude80\ud83d\ude80 caf\u00e9"),
            utf8("the quick brown fox jumps over the lazy dog"), new byte[300]};
        try (Arena arena = OffHeap.newArena("fsst-test")) {
            FsstSymbolTable reparsed = FsstSymbolTable.parse(segment(arena, table.toBytes()), 0);
            for (byte[] value : edge) {
                byte[] codes = FsstEncoder.encode(table, value);
                assertThat(codes.length).isLessThanOrEqualTo(2 * value.length);
                MemorySegment out = arena.allocate(8L * codes.length + 1);
                long n = reparsed.decode(segment(arena, codes), 0, codes.length, out, 0, 8L * codes.length);
                assertThat(out.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE)).isEqualTo(value);
            }
        }
        // an empty sample gives a valid (empty) table that escapes everything
        FsstSymbolTable empty = FsstEncoder.train(List.of());
        assertThat(empty.symbolCount()).isZero();
        assertThat(FsstEncoder.encode(empty, new byte[] {1, 2})).isEqualTo(new byte[] {(byte) 255, 1, (byte) 255, 2});
    }

    private static byte[] resource(String name) throws java.io.IOException {
        try (java.io.InputStream in = FsstTest.class.getResourceAsStream(name)) {
            assertThat(in).as(name).isNotNull();
            return in.readAllBytes();
        }
    }

    /**
     * A symbol table and a Variable mini-block chunk ({@code [u32 offsets x (n+1)][codes]}, offsets absolute
     * in the chunk) of the utf8 column "s" cut out of a 2.1 file written by official Lance 7.0.0
     * (golden types_v2_1). The expected strings were decoded independently (a Python transcription of
     * file-format.md §9.4) and look right: random text with ä, λ, あ, 🙂 and empty strings.
     */
    @Test
    void decodesAChunkWrittenByLance() throws java.io.IOException {
        byte[] tableBytes = resource("lance700-fsst-table.bin");
        byte[] chunk = resource("lance700-fsst-chunk.bin");
        String[] expected = new String(resource("lance700-fsst-chunk.expected.txt"), StandardCharsets.UTF_8).split("\n", -1);
        try (Arena arena = OffHeap.newArena("fsst-test")) {
            FsstSymbolTable table = FsstSymbolTable.parse(segment(arena, tableBytes), 0);
            assertThat(table.compressed()).isTrue();
            assertThat(table.symbolCount()).isEqualTo(255);
            assertThat(table.toBytes()).as("re-serialised (suffix_lim/terminator aside)").satisfies(written -> {
                assertThat(java.util.Arrays.copyOfRange(written, 3, 2312)).isEqualTo(java.util.Arrays.copyOfRange(tableBytes, 3, 2312));
            });
            MemorySegment in = segment(arena, chunk);
            int first = in.get(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), 0);
            int count = first / 4 - 1;
            assertThat(count).isEqualTo(expected.length - 1);
            long total = table.decodedLength(in, first, chunk.length - first);
            MemorySegment outOffsets = arena.allocate(4L * (count + 1));
            MemorySegment out = arena.allocate(total);
            assertThat(table.decodeBatch(4, in, 0, count, in, first, chunk.length - first, outOffsets, 0, out, 0, total)).isEqualTo(total);
            for (int i = 0; i < count; i++) {
                long start = FsstSymbolTable.readOffset(4, outOffsets, 0, i);
                long end = FsstSymbolTable.readOffset(4, outOffsets, 0, i + 1);
                String value = new String(out.asSlice(start, end - start).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
                assertThat(value).as("value %d", i).isEqualTo(expected[i]);
            }
            // our encoder with Lance's table (which has duplicate symbols) round-trips the same strings
            for (int i = 0; i < count; i++) {
                byte[] value = expected[i].getBytes(StandardCharsets.UTF_8);
                byte[] codes = FsstEncoder.encode(table, value);
                MemorySegment dst = arena.allocate(8L * codes.length + 1);
                long n = table.decode(segment(arena, codes), 0, codes.length, dst, 0, 8L * codes.length);
                assertThat(dst.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE)).isEqualTo(value);
            }
        }
    }

    /** The chunk decoder (four codes at a time, escapes and odd tails one by one) equals per-string decode. */
    @Test
    void decodeRunEqualsPerStringDecode() {
        Random rnd = new Random(17);
        for (int round = 0; round < 300; round++) {
            int nsym = 1 + rnd.nextInt(255);
            byte[][] symbols = new byte[nsym][];
            for (int i = 0; i < nsym; i++) {
                symbols[i] = new byte[1 + rnd.nextInt(8)];
                rnd.nextBytes(symbols[i]);
            }
            boolean empty = round % 50 == 7;
            FsstSymbolTable t = empty ? FsstSymbolTable.of() : FsstSymbolTable.of(symbols);
            int n = new int[] {0, 1, 3, 7, 33, 1025}[round % 6];
            long[] ends = new long[n];
            java.io.ByteArrayOutputStream codes = new java.io.ByteArrayOutputStream();
            for (int i = 0; i < n; i++) {
                int len = rnd.nextInt(round % 4 == 0 ? 3 : 41);
                for (int k = 0; k < len; k++) {
                    if (rnd.nextInt(round % 2 == 0 ? 10 : 200) == 0 || empty) {
                        codes.write(FsstSymbolTable.ESCAPE);
                        codes.write(rnd.nextInt(256));
                    } else {
                        codes.write(rnd.nextInt(nsym));
                    }
                }
                ends[i] = codes.size();
            }
            byte[] in = codes.toByteArray();
            try (Arena arena = OffHeap.newArena("fsst-test")) {
                MemorySegment src = segment(arena, in.length == 0 ? new byte[1] : in);
                MemorySegment one = arena.allocate(8L * in.length + 16);
                byte[] out = new byte[8 * in.length + 8];
                long[] outEnds = new long[n];
                int total = t.decodeRun(in, ends.clone(), n, out, outEnds);
                long prev = 0;
                for (int i = 0; i < n; i++) {
                    long from = i == 0 ? 0 : ends[i - 1];
                    long m = t.decode(src, from, ends[i] - from, one, 0, one.byteSize());
                    assertThat(java.util.Arrays.copyOfRange(out, (int) prev, (int) outEnds[i]))
                            .isEqualTo(one.asSlice(0, m).toArray(ValueLayout.JAVA_BYTE));
                    prev = outEnds[i];
                }
                assertThat(total).isEqualTo(n == 0 ? 0 : outEnds[n - 1]);
            }
        }
        FsstSymbolTable small = FsstSymbolTable.of(new byte[] {'a'});
        assertThatThrownBy(() -> small.decodeRun(new byte[] {0, 0, 0, 0, 5}, new long[] {5}, 1, new byte[64], new long[1]))
                .isInstanceOf(CodecException.class).hasMessageContaining("Code 5");
        assertThatThrownBy(() -> small.decodeRun(new byte[] {0, (byte) 255}, new long[] {2}, 1, new byte[64], new long[1]))
                .isInstanceOf(CodecException.class).hasMessageContaining("Escape");
        // an escape whose payload byte would be the next string's first code
        assertThatThrownBy(() -> small.decodeRun(new byte[] {0, (byte) 255, 0, 0, 0, 0}, new long[] {2, 6}, 2, new byte[64], new long[2]))
                .isInstanceOf(CodecException.class).hasMessageContaining("Escape");
        assertThatThrownBy(() -> small.decodeRun(new byte[] {0, 0}, new long[] {2, 1}, 2, new byte[64], new long[2]))
                .isInstanceOf(CodecException.class);
        assertThatThrownBy(() -> small.decodeRun(new byte[] {0, 0}, new long[] {2}, 1, new byte[4], new long[1]))
                .isInstanceOf(IllegalArgumentException.class);
    }

    /** The heap batch decoder (fast path and the checked path near the output limit) equals per-string decode. */
    @Test
    void decodeAllEqualsPerStringDecode() {
        Random rnd = new Random(11);
        for (int round = 0; round < 200; round++) {
            int nsym = 1 + rnd.nextInt(255);
            byte[][] symbols = new byte[nsym][];
            for (int i = 0; i < nsym; i++) {
                symbols[i] = new byte[1 + rnd.nextInt(8)];
                rnd.nextBytes(symbols[i]);
            }
            FsstSymbolTable t = FsstSymbolTable.of(symbols);
            int n = new int[] {0, 1, 7, 33, 1025}[round % 5];
            long[] inOff = new long[n + 1];
            java.io.ByteArrayOutputStream codes = new java.io.ByteArrayOutputStream();
            for (int i = 0; i < n; i++) {
                int len = rnd.nextInt(40);
                for (int k = 0; k < len; k++) {
                    if (rnd.nextInt(10) == 0) {
                        codes.write(FsstSymbolTable.ESCAPE);
                        codes.write(rnd.nextInt(256));
                    } else {
                        codes.write(rnd.nextInt(nsym));
                    }
                }
                inOff[i + 1] = codes.size();
            }
            byte[] in = codes.toByteArray();
            long[] outOff = new long[n + 1];
            // a tight limit in some rounds drives the checked path (and its overflow error) too
            long limit = round % 3 == 0 ? Math.max(1, in.length * 2L) : 1L << 30;
            try (Arena arena = OffHeap.newArena("fsst-test")) {
                MemorySegment src = segment(arena, in.length == 0 ? new byte[1] : in);
                List<byte[]> expected = new ArrayList<>();
                long total = 0;
                MemorySegment dst = arena.allocate(8L * in.length + 16);
                for (int i = 0; i < n; i++) {
                    long m = t.decode(src, inOff[i], inOff[i + 1] - inOff[i], dst, 0, dst.byteSize());
                    expected.add(dst.asSlice(0, m).toArray(ValueLayout.JAVA_BYTE));
                    total += m;
                }
                if (total > limit) {
                    assertThatThrownBy(() -> t.decodeAll(in, inOff, n, outOff, limit)).isInstanceOf(CodecException.class);
                    continue;
                }
                byte[] out = t.decodeAll(in, inOff, n, outOff, limit);
                for (int i = 0; i < n; i++) {
                    assertThat(java.util.Arrays.copyOfRange(out, (int) outOff[i], (int) outOff[i + 1])).isEqualTo(expected.get(i));
                }
            }
        }
        // a code without a symbol, and a dangling escape, are errors on both paths
        FsstSymbolTable small = FsstSymbolTable.of(new byte[] {'a'});
        assertThatThrownBy(() -> small.decodeAll(new byte[] {0, 5}, new long[] {0, 2}, 1, new long[2], 1 << 20))
                .isInstanceOf(CodecException.class).hasMessageContaining("Code 5");
        assertThatThrownBy(() -> small.decodeAll(new byte[] {0, (byte) 255}, new long[] {0, 2}, 1, new long[2], 1 << 20))
                .isInstanceOf(CodecException.class).hasMessageContaining("Escape");
        assertThatThrownBy(() -> small.decodeAll(new byte[] {0, (byte) 255}, new long[] {0, 2}, 1, new long[2], 2))
                .isInstanceOf(CodecException.class).hasMessageContaining("Escape");
    }
}
