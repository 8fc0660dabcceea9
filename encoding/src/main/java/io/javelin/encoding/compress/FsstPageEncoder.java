package io.javelin.encoding.compress;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Greedy longest-match FSST encoding of a whole page with one trained table, built for speed: the
 * candidate symbols of three bytes or more are found through a hash of the next three input bytes,
 * shorter ones through a 64 Ki-entry table of two-byte prefixes (as the reference FSST encoder does).
 * The output is byte-identical to {@link FsstSymbolTable}'s longest-match encoding: at a position
 * at most one symbol of each length can match, and every symbol of length ≥ 3 shares the position's
 * three-byte prefix.
 */
public final class FsstPageEncoder {
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final int HASH_BITS = 10;
    private static final long[] MASKS = new long[9];

    static {
        for (int l = 1; l <= 8; l++) {
            MASKS[l] = l == 8 ? -1L : (1L << (8 * l)) - 1;
        }
    }

    private final boolean compressed;
    private final long[] symbols = new long[256];
    private final int[] lengths = new int[256];
    /** (length << 8 | code) of the best ≤ 2-byte symbol for a two-byte prefix, or -1. */
    private final short[] short2 = new short[1 << 16];
    /** (length << 8 | code) of the one-byte symbol for a byte, or -1. */
    private final short[] one = new short[256];
    private final int[] hashKeys = new int[1 << HASH_BITS];
    private final int[][] hashCandidates = new int[1 << HASH_BITS][];

    public FsstPageEncoder(FsstSymbolTable table) {
        this.compressed = table.compressed();
        java.util.Arrays.fill(one, (short) -1);
        java.util.Arrays.fill(hashKeys, -1);
        int n = compressed ? table.symbolCount() : 0;
        for (int c = 0; c < n; c++) {
            byte[] s = table.symbol(c);
            long v = 0;
            for (int j = 0; j < s.length; j++) {
                v |= (s[j] & 0xFFL) << (8 * j);
            }
            symbols[c] = v;
            lengths[c] = s.length;
            if (s.length == 1) {
                one[s[0] & 0xFF] = (short) (1 << 8 | c);
            }
        }
        for (int p = 0; p < (1 << 16); p++) {
            short2[p] = one[p & 0xFF];
        }
        for (int c = 0; c < n; c++) {
            if (lengths[c] == 2) {
                short2[(int) symbols[c]] = (short) (2 << 8 | c);
            } else if (lengths[c] >= 3) {
                int key = (int) (symbols[c] & 0xFFFFFF);
                int slot = slot(key);
                if (hashKeys[slot] < 0) {
                    hashKeys[slot] = key;
                    hashCandidates[slot] = new int[] {c};
                } else {
                    int[] old = hashCandidates[slot];
                    int[] grown = java.util.Arrays.copyOf(old, old.length + 1);
                    grown[old.length] = c;
                    hashCandidates[slot] = grown;
                }
            }
        }
        // longest first within a bucket
        for (int s = 0; s < hashCandidates.length; s++) {
            int[] cs = hashCandidates[s];
            if (cs != null && cs.length > 1) {
                Integer[] boxed = java.util.Arrays.stream(cs).boxed().toArray(Integer[]::new);
                java.util.Arrays.sort(boxed, (x, y) -> lengths[y] - lengths[x]);
                hashCandidates[s] = java.util.Arrays.stream(boxed).mapToInt(Integer::intValue).toArray();
            }
        }
    }

    private int slot(int key) {
        int s = (key * 0x9E3779B1) >>> (32 - HASH_BITS);
        while (hashKeys[s] >= 0 && hashKeys[s] != key) {
            s = (s + 1) & ((1 << HASH_BITS) - 1);
        }
        return s;
    }

    /** Worst-case output bytes for {@code inputBytes} of input (every byte escaped). */
    public static long maxOutput(long inputBytes) {
        return 2 * inputBytes;
    }

    /**
     * Encodes {@code n} values ({@code data[ends[i-1]..ends[i])}, the first starting at 0) into
     * {@code out}; writes each value's end in {@code out} to {@code outEnds[i]}. {@code out} needs
     * {@link #maxOutput} of the input size (the uncompressed table copies the bytes).
     *
     * @return bytes written
     */
    public long encodeAll(byte[] data, long[] ends, int n, byte[] out, long[] outEnds) {
        int op = 0;
        int pos = 0;
        for (int i = 0; i < n; i++) {
            int end = (int) ends[i];
            if (compressed) {
                op = encode(data, pos, end, out, op);
            } else {
                System.arraycopy(data, pos, out, op, end - pos);
                op += end - pos;
            }
            outEnds[i] = op;
            pos = end;
        }
        return op;
    }

    /** Encodes {@code s[from..to)} into {@code out} at {@code op}; returns the new output position. */
    public int encode(byte[] s, int from, int to, byte[] out, int op) {
        int pos = from;
        while (pos < to) {
            int avail = to - pos;
            long word;
            if (avail >= 8) {
                word = (long) LONG.get(s, pos);
            } else {
                word = 0;
                for (int j = 0; j < avail; j++) {
                    word |= (s[pos + j] & 0xFFL) << (8 * j);
                }
            }
            int code = -1;
            int len = 0;
            if (avail >= 3) {
                int key = (int) (word & 0xFFFFFF);
                int sl = (key * 0x9E3779B1) >>> (32 - HASH_BITS);
                int k;
                while ((k = hashKeys[sl]) >= 0) {
                    if (k == key) {
                        for (int c : hashCandidates[sl]) {
                            int l = lengths[c];
                            if (l <= avail && ((word ^ symbols[c]) & MASKS[l]) == 0) {
                                code = c;
                                len = l;
                                break;
                            }
                        }
                        break;
                    }
                    sl = (sl + 1) & ((1 << HASH_BITS) - 1);
                }
            }
            if (code < 0) {
                int e = avail >= 2 ? short2[(int) (word & 0xFFFF)] : one[(int) (word & 0xFF)];
                if (e >= 0) {
                    code = e & 0xFF;
                    len = e >>> 8;
                }
            }
            if (code < 0) {
                out[op++] = (byte) FsstSymbolTable.ESCAPE;
                out[op++] = s[pos++];
            } else {
                out[op++] = (byte) code;
                pos += len;
            }
        }
        return op;
    }
}
