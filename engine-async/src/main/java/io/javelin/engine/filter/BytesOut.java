package io.javelin.engine.filter;

import java.util.Arrays;

/** Builds a heap {@link Values.Bytes} column row by row (string function results). */
final class BytesOut {

    private final int[] offsets;
    private final long[] valid;
    private byte[] data;
    private int size;
    private int row;
    private boolean anyNull;

    BytesOut(int rows, int estimatedBytes) {
        this.offsets = new int[rows + 1];
        this.valid = new long[Bits.words(rows)];
        this.data = new byte[Math.max(16, estimatedBytes)];
    }

    private void ensure(int more) {
        if (size + more > data.length) {
            data = Arrays.copyOf(data, Math.max(data.length * 2, size + more));
        }
    }

    void put(byte x) {
        ensure(1);
        data[size++] = x;
    }

    void put(byte[] src) {
        ensure(src.length);
        System.arraycopy(src, 0, data, size, src.length);
        size += src.length;
    }

    /** Appends bytes {@code [start, end)} of {@code b}. */
    void put(Values.Bytes b, long start, long end) {
        int n = (int) (end - start);
        ensure(n);
        if (b.heapData() != null) {
            System.arraycopy(b.heapData(), (int) start, data, size, n);
        } else if (b.constantValue() != null) {
            System.arraycopy(b.constantValue(), (int) start, data, size, n);
        } else {
            b.data().getBytes(start, data, size, n);
        }
        size += n;
    }

    /** Ends the current row as a value. */
    void end() {
        Bits.set(valid, row);
        offsets[++row] = size;
    }

    /** Ends the current row as NULL (dropping any bytes put for it). */
    void endNull() {
        size = offsets[row];
        anyNull = true;
        offsets[++row] = size;
    }

    Values.Bytes build() {
        return Values.Bytes.heap(offsets, data, anyNull ? valid : null, offsets.length - 1);
    }
}
