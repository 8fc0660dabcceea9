package io.javelin.tx.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.javelin.testing.FuzzSweep;
import io.javelin.tx.InvalidTableMetadataException;
import io.javelin.tx.rowid.RowIdCodec;
import io.javelin.tx.rowid.RowIdSequence;
import io.javelin.tx.rowid.RowVersions;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Row-id sequences and version runs are untrusted bytes too (inline in manifests or in external
 * files): decode or fail typed, within bounded time and allocation (see {@link FuzzSweep}).
 */
class RowIdFuzzTest {

    /** What a reader does with a sequence: decode, check its length against the fragment, materialize. */
    static void decodeSequence(byte[] bytes) {
        try {
            RowIdSequence s = RowIdCodec.decode(bytes);
            if (s.length() <= 1 << 16) { // a fragment's physical_rows bounds this before toArray()
                assertThat(s.toArray()).hasSize((int) s.length());
            }
        } catch (InvalidTableMetadataException e) {
            throw new FuzzSweep.Rejected(e);
        }
    }

    static void decodeVersions(byte[] bytes) {
        try {
            List<RowVersions.Run> runs = RowIdCodec.decodeVersions(bytes);
            assertThat(runs).isNotNull();
        } catch (InvalidTableMetadataException e) {
            throw new FuzzSweep.Rejected(e);
        }
    }

    /** Our encoder's output for every segment kind (range, holes, bitmap, sorted array, array). */
    static List<byte[]> sequences() {
        SplittableRandom r = new SplittableRandom(3);
        List<byte[]> out = new ArrayList<>();
        out.add(RowIdCodec.encode(RowIdSequence.range(0, 5000)));
        long[] holes = java.util.stream.LongStream.range(100, 3100).filter(i -> i % 97 != 0).toArray();
        out.add(RowIdCodec.encode(RowIdSequence.of(holes)));
        long[] sparse = java.util.stream.LongStream.range(0, 4000).filter(i -> r.nextInt(3) == 0).toArray();
        out.add(RowIdCodec.encode(RowIdSequence.of(sparse)));
        long[] sorted = new long[300];
        for (int i = 0; i < sorted.length; i++) {
            sorted[i] = (i == 0 ? 1L << 40 : sorted[i - 1]) + 1 + r.nextInt(100_000);
        }
        out.add(RowIdCodec.encode(RowIdSequence.of(sorted)));
        long[] shuffled = new long[300];
        for (int i = 0; i < shuffled.length; i++) {
            shuffled[i] = r.nextLong(1L << 50);
        }
        out.add(RowIdCodec.encode(RowIdSequence.of(shuffled)));
        return out;
    }

    // Jazzer entry points (regression mode in CI: replays RowIdFuzzTestInputs/<method>/, seeded with
    // our encoder's output for each segment kind; coverage-guided with JAZZER_FUZZ=1, one target per run)

    @FuzzTest(maxDuration = "5m")
    void rowIdSequence(byte[] bytes) {
        TxDecoderFuzzTest.quiet(() -> decodeSequence(bytes));
    }

    @FuzzTest(maxDuration = "5m")
    void rowVersions(byte[] bytes) {
        TxDecoderFuzzTest.quiet(() -> decodeVersions(bytes));
    }

    @Test
    void sweepRowIdSequences() {
        var r = FuzzSweep.of("row-id-sequence", sequences()).run(3000, 21, RowIdFuzzTest::decodeSequence);
        assertThat(r.rejected()).isGreaterThan(0);
        assertThat(r.succeeded()).isGreaterThan(0);
    }

    @Test
    void sweepVersionRuns() {
        List<byte[]> seeds = List.of(RowIdCodec.encodeVersions(RowVersions.uniform(1000, 7)),
                RowIdCodec.encodeVersions(RowVersions.compress(new long[] {1, 1, 2, 2, 2, 9, 9, 3})));
        var r = FuzzSweep.of("row-versions", seeds).run(3000, 22, RowIdFuzzTest::decodeVersions);
        assertThat(r.inputs()).isGreaterThan(0);
    }
}
