package io.javelin.objectstore;

/** A byte range {@code [offset, offset + length)} of an object. */
public record ByteRange(long offset, long length) implements Comparable<ByteRange> {

    public ByteRange {
        if (offset < 0) {
            throw new IllegalArgumentException("Invalid offset: " + offset + " in range (must be >= 0)");
        }
        if (length < 0) {
            throw new IllegalArgumentException("Invalid length: " + length + " in range (must be >= 0)");
        }
        if (offset + length < 0) {
            throw new IllegalArgumentException("Range overflows: offset " + offset + ", length " + length);
        }
    }

    public static ByteRange of(long offset, long length) {
        return new ByteRange(offset, length);
    }

    /** Exclusive end. */
    public long end() {
        return offset + length;
    }

    @Override
    public int compareTo(ByteRange o) {
        int c = Long.compare(offset, o.offset);
        return c != 0 ? c : Long.compare(length, o.length);
    }

    @Override
    public String toString() {
        return "[" + offset + ", " + end() + ")";
    }
}
