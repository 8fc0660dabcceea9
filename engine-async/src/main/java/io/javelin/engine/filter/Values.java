package io.javelin.engine.filter;

import org.apache.arrow.memory.ArrowBuf;

/**
 * A column of intermediate values for one batch, held in primitive arrays or read in place from Arrow
 * buffers (no per-row objects). A constant is a column of length 1 that broadcasts to every row.
 * {@code valid == null} means no nulls.
 */
sealed interface Values {

    int rows();

    boolean isValid(int row);

    /** Validity bitmap words of a column (broadcasting constants). */
    default long[] validityWords() {
        long[] w = new long[Bits.words(rows())];
        for (int i = 0; i < rows(); i++) {
            if (isValid(i)) {
                Bits.set(w, i);
            }
        }
        return w;
    }

    static boolean validAt(long[] valid, boolean constant, int row) {
        return valid == null || Bits.get(valid, constant ? 0 : row);
    }

    /** Three-valued booleans: a row is TRUE when its bits in both {@code value} and {@code valid} are set. */
    record Bools(long[] value, long[] valid, int rows) implements Values {
        @Override
        public boolean isValid(int row) {
            return valid == null || Bits.get(valid, row);
        }

        long[] validOrAll() {
            return valid == null ? Bits.allSet(rows) : valid;
        }
    }

    /** Integers (also dates in days and timestamps in their column's unit); {@code unsigned} for uint64 semantics. */
    record Longs(long[] v, long[] valid, boolean constant, boolean unsigned, int rows) implements Values {
        long get(int row) {
            return v[constant ? 0 : row];
        }

        @Override
        public boolean isValid(int row) {
            return validAt(valid, constant, row);
        }
    }

    record Doubles(double[] v, long[] valid, boolean constant, int rows) implements Values {
        double get(int row) {
            return v[constant ? 0 : row];
        }

        @Override
        public boolean isValid(int row) {
            return validAt(valid, constant, row);
        }
    }

    /** 128-bit decimals as (hi, lo) two's complement words with a scale. */
    record Decimals(long[] hi, long[] lo, int scale, long[] valid, boolean constant, int rows) implements Values {
        int compare(int row, Decimals other, int otherRow) {
            int a = constant ? 0 : row;
            int b = other.constant ? 0 : otherRow;
            int c = Long.compare(hi[a], other.hi[b]);
            return c != 0 ? c : Long.compareUnsigned(lo[a], other.lo[b]);
        }

        /** Nearest double, without per-row objects: hi·2^64 + unsigned(lo), scaled down. */
        double toDouble(int row) {
            int a = constant ? 0 : row;
            double unscaled = hi[a] * 0x1p64 + Comparisons.unsignedToDouble(lo[a]);
            return unscaled / Math.pow(10, scale);
        }

        @Override
        public boolean isValid(int row) {
            return validAt(valid, constant, row);
        }
    }

    /**
     * Variable-length bytes read in place from an Arrow (Large)VarChar/VarBinary vector ({@code offsetWidth}
     * 4 or 8), a constant, or computed on the heap ({@code heapOffsets}/{@code heapData}).
     */
    record Bytes(ArrowBuf offsets, ArrowBuf data, int offsetWidth, long[] valid, byte[] constantValue, int rows,
                 int[] heapOffsets, byte[] heapData) implements Values {
        Bytes(ArrowBuf offsets, ArrowBuf data, int offsetWidth, long[] valid, byte[] constantValue, int rows) {
            this(offsets, data, offsetWidth, valid, constantValue, rows, null, null);
        }

        static Bytes heap(int[] offsets, byte[] data, long[] valid, int rows) {
            return new Bytes(null, null, 0, valid, null, rows, offsets, data);
        }

        boolean constant() {
            return constantValue != null;
        }

        long start(int row) {
            if (constantValue != null) {
                return 0;
            }
            if (heapOffsets != null) {
                return heapOffsets[row];
            }
            return offsetWidth == 4 ? offsets.getInt((long) row * 4) : offsets.getLong((long) row * 8);
        }

        long end(int row) {
            if (constantValue != null) {
                return constantValue.length;
            }
            if (heapOffsets != null) {
                return heapOffsets[row + 1];
            }
            return offsetWidth == 4 ? offsets.getInt((long) (row + 1) * 4) : offsets.getLong((long) (row + 1) * 8);
        }

        /** Row {@code row}'s bytes copied into {@code dst} (large enough), returning their length. */
        int copy(int row, byte[] dst) {
            long s = start(row);
            int n = (int) (end(row) - s);
            if (constantValue != null) {
                System.arraycopy(constantValue, 0, dst, 0, n);
            } else if (heapData != null) {
                System.arraycopy(heapData, (int) s, dst, 0, n);
            } else {
                data.getBytes(s, dst, 0, n);
            }
            return n;
        }

        byte byteAt(long pos) {
            if (constantValue != null) {
                return constantValue[(int) pos];
            }
            return heapData != null ? heapData[(int) pos] : data.getByte(pos);
        }

        @Override
        public boolean isValid(int row) {
            if (constantValue != null) {
                return true;
            }
            return valid == null || Bits.get(valid, row);
        }
    }

    /**
     * Lists: row {@code r} holds {@code items} rows {@code offsets[r]} to {@code offsets[r + 1]}; a constant
     * list has offsets {0, n} and broadcasts.
     */
    record Lists(int[] offsets, Values items, long[] valid, boolean constant, int rows) implements Values {
        int start(int row) {
            return offsets[constant ? 0 : row];
        }

        int end(int row) {
            return offsets[constant ? 1 : row + 1];
        }

        @Override
        public boolean isValid(int row) {
            return validAt(valid, constant, row);
        }
    }
}
