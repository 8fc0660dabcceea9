package io.javelin.tx.rowid;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.javelin.tx.InvalidTableMetadataException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.roaringbitmap.RoaringBitmap;

/** Property tests (seeded, {@code -Djavelin.rowid.cases=N} for more) plus golden bytes for the row-id codec. */
class RowIdCodecTest {

    static final int CASES = Integer.getInteger("javelin.rowid.cases", 400);

    /** A random sequence of one of several shapes (the shapes the encoder distinguishes). */
    static long[] randomIds(Random r) {
        int n = 1 + r.nextInt(r.nextBoolean() ? 50 : 5000);
        long base = switch (r.nextInt(4)) {
            case 0 -> 0;
            case 1 -> r.nextInt(1 << 20);
            case 2 -> r.nextLong() >>> 2;
            default -> -1L - 10L * n - 70_000L * 3; // near u64::MAX: unsigned arithmetic
        };
        TreeSet<Long> set = new TreeSet<>(Long::compareUnsigned);
        long[] out;
        switch (r.nextInt(6)) {
            case 0 -> { // contiguous
                out = new long[n];
                for (int i = 0; i < n; i++) {
                    out[i] = base + i;
                }
                return out;
            }
            case 1 -> { // a few holes
                for (int i = 0; i < n + n / 20; i++) {
                    set.add(base + i);
                }
                for (int h = 0; h < n / 20 + 1 && set.size() > 1; h++) {
                    set.remove(base + 1 + r.nextInt(n - 1 + n / 20));
                }
            }
            case 2 -> { // half dense
                for (int i = 0; i < 2 * n; i++) {
                    if (r.nextBoolean()) {
                        set.add(base + i);
                    }
                }
                set.add(base);
            }
            case 3 -> { // sparse, wide (u32 / u64 offsets)
                long spread = r.nextBoolean() ? 100_000 : 1L << 40;
                for (int i = 0; i < n; i++) {
                    set.add(base + Math.floorMod(r.nextLong(), spread));
                }
            }
            default -> { // unsorted (a permutation of a dense or sparse set)
                List<Long> l = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    l.add(base + (long) i * (1 + r.nextInt(3)));
                }
                java.util.Collections.shuffle(l, r);
                return l.stream().mapToLong(Long::longValue).toArray();
            }
        }
        return set.stream().mapToLong(Long::longValue).toArray();
    }

    @Test
    void randomSequencesRoundTripThroughTheWireFormat() {
        Random r = new Random(42);
        for (int c = 0; c < CASES; c++) {
            // one to four segments, each a random shape
            List<U64Segment> segs = new ArrayList<>();
            List<long[]> parts = new ArrayList<>();
            for (int k = 0, n = 1 + r.nextInt(4); k < n; k++) {
                long[] ids = randomIds(r);
                parts.add(ids);
                segs.add(U64Segment.of(ids));
            }
            RowIdSequence seq = new RowIdSequence(segs);
            RowIdSequence back = RowIdCodec.decode(RowIdCodec.encode(seq));
            assertThat(back).as("case %d", c).isEqualTo(seq);
            long[] expected = parts.stream().flatMapToLong(Arrays::stream).toArray();
            assertThat(back.toArray()).as("case %d", c).isEqualTo(expected);
            assertThat(back.length()).isEqualTo(expected.length);
        }
    }

    @Test
    void encoderPicksLancesSmallestRepresentation() {
        Random r = new Random(7);
        int[] seen = new int[5];
        for (int c = 0; c < CASES * 2; c++) {
            long[] ids = randomIds(r);
            U64Segment s = U64Segment.of(ids);
            assertThat(s.values()).isEqualTo(ids);
            boolean sorted = true;
            for (int i = 1; i < ids.length; i++) {
                sorted &= Long.compareUnsigned(ids[i - 1], ids[i]) < 0;
            }
            if (!sorted) {
                assertThat(s).isInstanceOf(U64Segment.Array.class);
                seen[4]++;
                continue;
            }
            long slots = ids[ids.length - 1] - ids[0] + 1;
            long holes = slots - ids.length;
            if (holes == 0) {
                assertThat(s).isInstanceOf(U64Segment.Range.class);
                seen[0]++;
                continue;
            }
            long[] size = {24 + 4 * holes, 24 + (slots + 7) / 8, 24 + 2L * ids.length};
            long min = Math.min(size[0], Math.min(size[1], size[2]));
            int expected = size[0] == min ? 1 : size[1] == min ? 2 : 3; // ties: holes, bitmap, array
            Class<?> kind = switch (expected) {
                case 1 -> U64Segment.RangeWithHoles.class;
                case 2 -> U64Segment.RangeWithBitmap.class;
                default -> U64Segment.SortedArray.class;
            };
            assertThat(s).as("case %d: %d ids, %d slots", c, ids.length, slots).isInstanceOf(kind);
            seen[expected]++;
        }
        assertThat(Arrays.stream(seen).min().getAsInt()).as("every representation exercised %s", Arrays.toString(seen)).isPositive();
    }

    @Test
    void goldenBytes() {
        // RowIdSequence{segments:[{range:{start:0,end:3}}]}: start omitted as proto3 default
        assertThat(HexFormat.of().formatHex(RowIdCodec.encode(RowIdSequence.range(0, 3)))).isEqualTo("0a040a021003");
        // bitmap bits are least-significant first: values 10 and 12 of [10, 13) → 0b101
        U64Segment.RangeWithBitmap b = new U64Segment.RangeWithBitmap(10, 13, new byte[] {0b101});
        assertThat(b.values()).containsExactly(10, 12);
        byte[] enc = RowIdCodec.encode(new RowIdSequence(List.of(b)));
        assertThat(HexFormat.of().formatHex(enc)).isEqualTo("0a091a07080a100d1a0105");
        // u16 array: base 5, offsets LE
        byte[] arr = RowIdCodec.encode(new RowIdSequence(List.of(new U64Segment.Array(new long[] {7, 5, 6}))));
        assertThat(HexFormat.of().formatHex(arr)).isEqualTo("0a0e2a0c0a0a0805120602000000" + "0100");
    }

    @Test
    void extendMergesTouchingRangesAndLiveMasksDeletedOffsets() {
        RowIdSequence s = RowIdSequence.range(0, 10).extend(RowIdSequence.range(10, 1000));
        assertThat(s.segments()).containsExactly(new U64Segment.Range(0, 1000));
        RoaringBitmap del = RoaringBitmap.bitmapOf(0, 5, 999);
        long[] live = s.live(del);
        assertThat(live).hasSize(997).doesNotContain(0L, 5L, 999L);
        assertThat(RowIdSequence.of(live).segments().getFirst()).isInstanceOf(U64Segment.RangeWithHoles.class);
    }

    @Test
    void versionRunsRoundTrip() {
        List<RowVersions.Run> runs = RowVersions.compress(new long[] {1, 1, 1, 4, 4, 2});
        assertThat(runs).containsExactly(new RowVersions.Run(3, 1), new RowVersions.Run(2, 4), new RowVersions.Run(1, 2));
        assertThat(RowIdCodec.decodeVersions(RowIdCodec.encodeVersions(runs))).isEqualTo(runs);
        assertThat(RowVersions.expand(runs)).containsExactly(1, 1, 1, 4, 4, 2);
    }

    @Test
    void corruptSequencesAreTypedErrors() {
        byte[] missingType = HexFormat.of().parseHex("0a00");
        assertThatThrownBy(() -> RowIdCodec.decode(missingType)).isInstanceOf(InvalidTableMetadataException.class)
                .hasMessageContaining("missing segment type");
        byte[] missingHoles = HexFormat.of().parseHex("0a0612040800100a"); // range_with_holes without holes
        assertThatThrownBy(() -> RowIdCodec.decode(missingHoles)).isInstanceOf(InvalidTableMetadataException.class)
                .hasMessageContaining("missing hole");
        byte[] oddU16 = HexFormat.of().parseHex("0a072a050a03120100"); // array, u16 with 1 offset byte
        assertThatThrownBy(() -> RowIdCodec.decode(oddU16)).isInstanceOf(InvalidTableMetadataException.class);
        byte[] shortBitmap = HexFormat.of().parseHex("0a081a060800106410"); // bitmap for 100 slots, truncated
        assertThatThrownBy(() -> RowIdCodec.decode(shortBitmap)).isInstanceOf(InvalidTableMetadataException.class);
        assertThatThrownBy(() -> RowIdCodec.decode(new byte[] {(byte) 0xff})).isInstanceOf(InvalidTableMetadataException.class);
    }

    @Test
    void externalRowIdFilesAreReadByRangeAndInlineOnesDirectly() {
        io.javelin.tx.store.InMemoryManifestStore store = new io.javelin.tx.store.InMemoryManifestStore();
        RowIdSequence seq = RowIdSequence.of(new long[] {5, 9, 10, 11, 40});
        byte[] enc = RowIdCodec.encode(seq);
        byte[] file = new byte[enc.length + 7];
        System.arraycopy(enc, 0, file, 3, enc.length);
        store.put("rowids/f0.bin", file).block();
        io.javelin.tx.pb.DataFragment ext = io.javelin.tx.pb.DataFragment.newBuilder().setId(0).setPhysicalRows(5)
                .setExternalRowIds(io.javelin.tx.pb.ExternalFile.newBuilder().setPath("rowids/f0.bin").setOffset(3).setSize(enc.length))
                .build();
        assertThat(FragmentRowIds.read(store, ext).block()).isEqualTo(seq);
        io.javelin.tx.pb.DataFragment inline = FragmentRowIds.setRowIds(ext.toBuilder().clearExternalRowIds(), seq).build();
        assertThat(FragmentRowIds.read(store, inline).block().toArray()).containsExactly(5, 9, 10, 11, 40);
        io.javelin.tx.pb.DataFragment outside = ext.toBuilder().setExternalRowIds(ext.getExternalRowIds().toBuilder().setSize(1000)).build();
        assertThatThrownBy(() -> FragmentRowIds.read(store, outside).block()).isInstanceOf(InvalidTableMetadataException.class);
        io.javelin.tx.pb.DataFragment wrongCount = inline.toBuilder().setPhysicalRows(6).build();
        assertThatThrownBy(() -> FragmentRowIds.read(store, wrongCount).block()).isInstanceOf(InvalidTableMetadataException.class)
                .hasMessageContaining("5 row ids for 6 physical rows");
        // commit-time assignment keeps a preserved prefix and appends fresh ids
        io.javelin.tx.pb.DataFragment.Builder moved = RowIdAssigner.preserve(io.javelin.tx.pb.DataFragment.newBuilder().setPhysicalRows(4),
                new long[] {3, 1});
        assertThat(RowIdAssigner.assign(moved, 100)).isEqualTo(102);
        assertThat(FragmentRowIds.readInline(moved.build()).toArray()).containsExactly(3, 1, 100, 101);
    }
}
