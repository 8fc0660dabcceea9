package io.javelin.tx.rowid;

import java.util.ArrayList;
import java.util.List;
import org.roaringbitmap.RoaringBitmap;

/**
 * The stable row ids of one fragment in row-offset order (Lance {@code RowIdSequence}): a concatenation of
 * {@link U64Segment}s. Immutable.
 */
public record RowIdSequence(List<U64Segment> segments) {

    public RowIdSequence {
        segments = List.copyOf(segments);
    }

    /** {@code [start, end)} as one Range segment (what Lance assigns to an appended fragment). */
    public static RowIdSequence range(long start, long end) {
        return new RowIdSequence(List.of(new U64Segment.Range(start, end)));
    }

    /** One segment of the representation Lance would choose for these ids. */
    public static RowIdSequence of(long[] ids) {
        return new RowIdSequence(List.of(U64Segment.of(ids)));
    }

    public long length() {
        long n = 0;
        for (U64Segment s : segments) {
            n += s.length();
        }
        return n;
    }

    /** Row id of every physical row offset. */
    public long[] toArray() {
        long[] out = new long[Math.toIntExact(length())];
        int at = 0;
        for (U64Segment s : segments) {
            long[] v = s.values();
            System.arraycopy(v, 0, out, at, v.length);
            at += v.length;
        }
        return out;
    }

    /** This sequence followed by {@code next}; adjacent touching ranges merge (as Lance's {@code extend}). */
    public RowIdSequence extend(RowIdSequence next) {
        List<U64Segment> out = new ArrayList<>(segments);
        List<U64Segment> rest = new ArrayList<>(next.segments);
        if (!out.isEmpty() && !rest.isEmpty() && out.getLast() instanceof U64Segment.Range a
                && rest.getFirst() instanceof U64Segment.Range b && a.end() == b.start()) {
            out.removeLast();
            rest.removeFirst();
            out.add(new U64Segment.Range(a.start(), b.end()));
        }
        out.addAll(rest);
        return new RowIdSequence(out);
    }

    /** The ids of the rows whose offsets are not in {@code deletedOffsets}, in order. */
    public long[] live(RoaringBitmap deletedOffsets) {
        long[] all = toArray();
        if (deletedOffsets == null || deletedOffsets.isEmpty()) {
            return all;
        }
        long[] out = new long[all.length - (int) deletedOffsets.rangeCardinality(0, all.length)];
        int n = 0;
        for (int i = 0; i < all.length; i++) {
            if (!deletedOffsets.contains(i)) {
                out[n++] = all[i];
            }
        }
        return out;
    }
}
