package io.javelin.engine.filter;

/** Helpers for row bitmaps stored as long words (bit i of word i/64). */
final class Bits {

    private Bits() {
    }

    static int words(int rows) {
        return (rows + 63) >>> 6;
    }

    static long[] allSet(int rows) {
        long[] w = new long[words(rows)];
        java.util.Arrays.fill(w, -1L);
        clearTail(w, rows);
        return w;
    }

    static void clearTail(long[] w, int rows) {
        if ((rows & 63) != 0 && w.length > 0) {
            w[w.length - 1] &= (1L << (rows & 63)) - 1;
        }
    }

    static boolean get(long[] w, int i) {
        return (w[i >>> 6] >>> (i & 63) & 1) != 0;
    }

    static void set(long[] w, int i) {
        w[i >>> 6] |= 1L << (i & 63);
    }

    static int count(long[] w) {
        int c = 0;
        for (long x : w) {
            c += Long.bitCount(x);
        }
        return c;
    }
}
