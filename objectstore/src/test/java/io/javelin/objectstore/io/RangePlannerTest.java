package io.javelin.objectstore.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.javelin.objectstore.ByteRange;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Golden cases from Lance's scheduler tests (test_split_coalesce). */
class RangePlannerTest {

    private static final long MIB = 1024 * 1024;

    @Test
    void nearbyRangesCoalesceIntoOneRead() {
        var plan = RangePlanner.plan(List.of(ByteRange.of(50_000, 1000), ByteRange.of(52_000, 1000),
                ByteRange.of(54_000, 1000)), 4096, 16 * MIB);
        assertThat(plan).containsExactly(ByteRange.of(50_000, 5000));
    }

    @Test
    void aGapLargerThanTheBlockSizeSplitsReads() {
        var plan = RangePlanner.plan(List.of(ByteRange.of(0, 10), ByteRange.of(10 + 4097, 10)), 4096, 16 * MIB);
        assertThat(plan).hasSize(2);
        var merged = RangePlanner.plan(List.of(ByteRange.of(0, 10), ByteRange.of(10 + 4096, 10)), 4096, 16 * MIB);
        assertThat(merged).containsExactly(ByteRange.of(0, 4116));
    }

    @Test
    void largeRangesSplitIntoEqualChunks() {
        var plan = RangePlanner.plan(List.of(ByteRange.of(0, 75 * MIB)), 4096, 16 * MIB);
        assertThat(plan).hasSize(5);
        assertThat(plan.get(0)).isEqualTo(ByteRange.of(0, 15 * MIB));
        assertThat(plan.get(4).end()).isEqualTo(75 * MIB);
    }

    @Test
    void coalescedRangesJustUnderTheLimitAreResplit() {
        var plan = RangePlanner.plan(List.of(ByteRange.of(0, 16 * MIB - 100), ByteRange.of(16 * MIB - 50, 16 * MIB - 100)),
                4096, 16 * MIB);
        assertThat(plan).hasSize(2);
        assertThat(plan.get(0).offset()).isZero();
        assertThat(plan.get(1).end()).isEqualTo(32 * MIB - 150);
    }

    @Test
    void overlappingRangesMerge() {
        var plan = RangePlanner.plan(List.of(ByteRange.of(0, 100), ByteRange.of(50, 100), ByteRange.of(60, 10)), 0, MIB);
        assertThat(plan).containsExactly(ByteRange.of(0, 150));
    }

    @Test
    void unsortedInputIsRejected() {
        assertThatThrownBy(() -> RangePlanner.plan(List.of(ByteRange.of(100, 1), ByteRange.of(0, 1)), 0, MIB))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("sorted");
    }
}
