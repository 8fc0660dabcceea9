package io.javelin.tx.rowid;

import java.util.Arrays;

/**
 * A run of distinct u64 values in a {@link RowIdSequence} (Lance {@code U64Segment}). Values are compared
 * unsigned; every variant knows its length and can materialize its values in order.
 */
public sealed interface U64Segment {

    /** Number of values. */
    long length();

    /** The values, in sequence order. */
    long[] values();

    /** All values in {@code [start, end)}. */
    record Range(long start, long end) implements U64Segment {
        public Range {
            if (Long.compareUnsigned(end, start) < 0) {
                throw new IllegalArgumentException("Range end " + Long.toUnsignedString(end) + " < start " + Long.toUnsignedString(start));
            }
        }

        @Override
        public long length() {
            return end - start;
        }

        @Override
        public long[] values() {
            long[] out = new long[Math.toIntExact(length())];
            for (int i = 0; i < out.length; i++) {
                out[i] = start + i;
            }
            return out;
        }
    }

    /** {@code [start, end)} minus the (sorted, absolute) {@code holes}. */
    record RangeWithHoles(long start, long end, long[] holes) implements U64Segment {
        @Override
        public long length() {
            return end - start - holes.length;
        }

        @Override
        public long[] values() {
            long[] out = new long[Math.toIntExact(length())];
            int h = 0;
            int n = 0;
            for (long v = start; v != end; v++) {
                if (h < holes.length && holes[h] == v) {
                    h++;
                } else {
                    out[n++] = v;
                }
            }
            return out;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof RangeWithHoles r && r.start == start && r.end == end && Arrays.equals(r.holes, holes);
        }

        @Override
        public int hashCode() {
            return Long.hashCode(start) * 31 + Arrays.hashCode(holes);
        }

        @Override
        public String toString() {
            return "RangeWithHoles[" + start + ".." + end + ", holes=" + holes.length + "]";
        }
    }

    /**
     * {@code start + i} is present iff bit {@code i} is set; bits are least-significant first within each
     * byte (Lance's code; its proto comment says otherwise).
     */
    record RangeWithBitmap(long start, long end, byte[] bitmap) implements U64Segment {
        public boolean get(long i) {
            return (bitmap[(int) (i >>> 3)] & (1 << (i & 7))) != 0;
        }

        @Override
        public long length() {
            long n = 0;
            long slots = end - start;
            for (long i = 0; i < slots; i++) {
                if (get(i)) {
                    n++;
                }
            }
            return n;
        }

        @Override
        public long[] values() {
            long[] out = new long[Math.toIntExact(length())];
            int n = 0;
            long slots = end - start;
            for (long i = 0; i < slots; i++) {
                if (get(i)) {
                    out[n++] = start + i;
                }
            }
            return out;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof RangeWithBitmap r && r.start == start && r.end == end && Arrays.equals(r.bitmap, bitmap);
        }

        @Override
        public int hashCode() {
            return Long.hashCode(start) * 31 + Arrays.hashCode(bitmap);
        }

        @Override
        public String toString() {
            return "RangeWithBitmap[" + start + ".." + end + "]";
        }
    }

    /** Ascending values. */
    record SortedArray(long[] array) implements U64Segment {
        @Override
        public long length() {
            return array.length;
        }

        @Override
        public long[] values() {
            return array.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof SortedArray s && Arrays.equals(s.array, array);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(array);
        }

        @Override
        public String toString() {
            return "SortedArray[" + array.length + "]";
        }
    }

    /** Values in any order. */
    record Array(long[] array) implements U64Segment {
        @Override
        public long length() {
            return array.length;
        }

        @Override
        public long[] values() {
            return array.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Array s && Arrays.equals(s.array, array);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(array);
        }

        @Override
        public String toString() {
            return "Array[" + array.length + "]";
        }
    }

    /**
     * The representation Lance picks for {@code values} ({@code U64Segment::from_iter}): strictly ascending
     * and gap-free is a Range; ascending with gaps is the smallest by Lance's size estimate of
     * RangeWithHoles (24 + 4·holes), RangeWithBitmap (24 + ⌈slots/8⌉), SortedArray (24 + 2·count), ties in
     * that order; anything else is an Array.
     */
    static U64Segment of(long[] values) {
        if (values.length == 0) {
            return new Range(0, 0);
        }
        boolean sorted = true;
        for (int i = 1; i < values.length && sorted; i++) {
            sorted = Long.compareUnsigned(values[i - 1], values[i]) < 0;
        }
        if (!sorted) {
            return new Array(values.clone());
        }
        long min = values[0];
        long max = values[values.length - 1];
        long slots = max - min + 1;
        long holes = slots - values.length;
        if (holes == 0) {
            return new Range(min, max + 1);
        }
        long withHoles = 24 + 4 * holes;
        long withBitmap = 24 + (slots + 7) / 8;
        long sortedArray = 24 + 2L * values.length;
        long best = Math.min(withHoles, Math.min(withBitmap, sortedArray));
        if (best == withHoles) {
            long[] h = new long[Math.toIntExact(holes)];
            int n = 0;
            int j = 0;
            for (long v = min; v != max + 1; v++) {
                if (values[j] == v) {
                    j++;
                } else {
                    h[n++] = v;
                }
            }
            return new RangeWithHoles(min, max + 1, h);
        }
        if (best == withBitmap) {
            byte[] bits = new byte[Math.toIntExact((slots + 7) / 8)];
            for (long v : values) {
                long i = v - min;
                bits[(int) (i >>> 3)] |= (byte) (1 << (i & 7));
            }
            return new RangeWithBitmap(min, max + 1, bits);
        }
        return new SortedArray(values.clone());
    }
}
