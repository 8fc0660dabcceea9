package io.javelin.encoding.writer;

import java.util.Arrays;

/** A growable array of u16 levels. */
public final class Shorts {
    private short[] a = new short[1024];
    private int size;

    public void add(int v) {
        if (size == a.length) {
            a = Arrays.copyOf(a, a.length * 2);
        }
        a[size++] = (short) v;
    }

    /** Appends {@code n} zero levels. */
    public void addZeros(int n) {
        if (size + n > a.length) {
            a = Arrays.copyOf(a, Math.max(size + n, a.length * 2));
        }
        Arrays.fill(a, size, size + n, (short) 0);
        size += n;
    }

    public int size() {
        return size;
    }

    public int get(int i) {
        return a[i] & 0xFFFF;
    }

    public short[] array() {
        return a;
    }

    public void clear() {
        size = 0;
    }

    public short[] toArray() {
        return Arrays.copyOf(a, size);
    }
}
