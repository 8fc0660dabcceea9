package io.javelin.encoding.v1;

import java.util.List;

/**
 * Rows of one field decoded from one legacy page (or a run of rows of it), before they are copied into
 * the batch's Arrow vector. Offsets are relative to the piece's first row.
 */
sealed interface Piece {

    int rows();

    /** Fixed-width values, {@code width} bytes each (numbers, dates, decimals, fixed-size binary). */
    record Fixed(byte[] data, int width) implements Piece {
        public int rows() {
            return data.length / width;
        }
    }

    /** Booleans, bit-packed from bit {@code bitOffset} of {@code data}. */
    record Bits(byte[] data, int bitOffset, int rows) implements Piece {
        boolean get(int row) {
            int bit = bitOffset + row;
            return (data[bit >>> 3] >> (bit & 7) & 1) != 0;
        }
    }

    /** A fixed-size list: {@code dim} items per row, no validity of its own. */
    record FixedList(int dim, Piece items) implements Piece {
        public int rows() {
            return items.rows() / dim;
        }
    }

    /**
     * Variable-width values: row i spans {@code [offsets[i], offsets[i+1])} of {@code data}. Legacy files have
     * no validity: for a nullable field an empty value is null.
     */
    record Binary(long[] offsets, byte[] data, boolean emptyIsNull) implements Piece {
        public int rows() {
            return offsets.length - 1;
        }
    }

    /** A list: row i holds child rows {@code [offsets[i], offsets[i+1])}; never null. */
    record ListOf(long[] offsets, Piece child) implements Piece {
        public int rows() {
            return offsets.length - 1;
        }
    }

    /** A struct: one piece per child, never null. */
    record Struct(List<Piece> children, int rows) implements Piece {
    }

    /** The null type: nothing stored but the row count. */
    record Nulls(int rows) implements Piece {
    }
}
