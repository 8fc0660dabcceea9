package io.javelin.engine.filter;

import java.nio.charset.StandardCharsets;

/** UTF-8 helpers over {@link Values.Bytes} rows, without per-row objects unless text must become a String. */
final class Utf8 {

    private Utf8() {
    }

    static boolean isContinuation(byte x) {
        return (x & 0xC0) == 0x80;
    }

    static long charCount(Values.Bytes b, long start, long end) {
        long n = 0;
        for (long p = start; p < end; p++) {
            if (!isContinuation(b.byteAt(p))) {
                n++;
            }
        }
        return n;
    }

    /** The byte position after skipping {@code n} characters from {@code pos}, capped at {@code end}. */
    static long skip(Values.Bytes b, long pos, long end, long n) {
        for (long k = 0; k < n && pos < end; k++) {
            pos++;
            while (pos < end && isContinuation(b.byteAt(pos))) {
                pos++;
            }
        }
        return pos;
    }

    static boolean isAscii(Values.Bytes b, long start, long end) {
        for (long p = start; p < end; p++) {
            if (b.byteAt(p) < 0) {
                return false;
            }
        }
        return true;
    }

    static boolean regionEquals(Values.Bytes a, long at, Values.Bytes b, long bs, long be) {
        for (long k = 0; k < be - bs; k++) {
            if (a.byteAt(at + k) != b.byteAt(bs + k)) {
                return false;
            }
        }
        return true;
    }

    /** First byte position of needle {@code [ns, ne)} in haystack {@code [hs, he)} at or after {@code from}, or -1. */
    static long indexOf(Values.Bytes h, long from, long he, Values.Bytes n, long ns, long ne) {
        long len = ne - ns;
        if (len == 0) {
            return from;
        }
        byte first = n.byteAt(ns);
        for (long p = from; p + len <= he; p++) {
            if (h.byteAt(p) == first && regionEquals(h, p, n, ns, ne)) {
                return p;
            }
        }
        return -1;
    }

    static String string(Values.Bytes b, int row) {
        long s = b.start(row);
        int len = (int) (b.end(row) - s);
        byte[] bytes = new byte[len];
        for (int k = 0; k < len; k++) {
            bytes[k] = b.byteAt(s + k);
        }
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /** Decodes {@code [start, end)} into {@code out} (UTF-16), replacing malformed input with U+FFFD. */
    static void decode(Values.Bytes b, long start, long end, Chars out) {
        out.clear();
        long p = start;
        while (p < end) {
            int c = b.byteAt(p) & 0xFF;
            int need;
            int cp;
            if (c < 0x80) {
                out.append((char) c);
                p++;
                continue;
            } else if (c >= 0xF0) {
                need = 3;
                cp = c & 0x07;
            } else if (c >= 0xE0) {
                need = 2;
                cp = c & 0x0F;
            } else if (c >= 0xC0) {
                need = 1;
                cp = c & 0x1F;
            } else {
                out.append('\uFFFD');
                p++;
                continue;
            }
            p++;
            for (int k = 0; k < need && p < end; k++, p++) {
                cp = cp << 6 | (b.byteAt(p) & 0x3F);
            }
            if (cp >= 0x10000) {
                out.append(Character.highSurrogate(cp));
                out.append(Character.lowSurrogate(cp));
            } else {
                out.append((char) cp);
            }
        }
    }

    /** A reusable, growable char sequence (for regular expressions over rows). */
    static final class Chars implements CharSequence {
        private char[] buf = new char[64];
        private int len;

        void clear() {
            len = 0;
        }

        void append(char c) {
            if (len == buf.length) {
                buf = java.util.Arrays.copyOf(buf, len * 2);
            }
            buf[len++] = c;
        }

        @Override
        public int length() {
            return len;
        }

        @Override
        public char charAt(int index) {
            return buf[index];
        }

        @Override
        public CharSequence subSequence(int start, int end) {
            return new String(buf, start, end - start);
        }

        @Override
        public String toString() {
            return new String(buf, 0, len);
        }
    }
}
