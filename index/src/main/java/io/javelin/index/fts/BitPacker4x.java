package io.javelin.index.fts;

/**
 * The 128-value block layout of the {@code bitpacking} crate's {@code BitPacker4x}, which Lance's
 * posting lists use: value {@code i} belongs to lane {@code i % 4}; each lane is packed
 * least-significant bit first into 32-bit words, and word {@code w} of lane {@code j} is stored as
 * little-endian u32 number {@code 4w + j}. A block of bit width {@code b} takes {@code 16·b} bytes.
 * The "sorted" variant packs the differences to the previous value (the first to {@code initial}).
 */
public final class BitPacker4x {

    public static final int BLOCK_LEN = 128;

    private BitPacker4x() {
    }

    public static int blockBytes(int bits) {
        return 16 * bits;
    }

    private static int word(byte[] src, int at) {
        return (src[at] & 0xFF) | (src[at + 1] & 0xFF) << 8 | (src[at + 2] & 0xFF) << 16 | (src[at + 3] & 0xFF) << 24;
    }

    /** Unpacks 128 values of {@code bits} bits from {@code src[off..]} (the caller checked the length). */
    public static void unpack(byte[] src, int off, int bits, int[] out) {
        if (bits == 0) {
            java.util.Arrays.fill(out, 0, BLOCK_LEN, 0);
            return;
        }
        long mask = bits == 32 ? 0xFFFFFFFFL : (1L << bits) - 1;
        for (int lane = 0; lane < 4; lane++) {
            int bitPos = 0;
            for (int k = 0; k < BLOCK_LEN / 4; k++) {
                int w = bitPos >>> 5, shift = bitPos & 31;
                long lo = word(src, off + 4 * (4 * w + lane)) & 0xFFFFFFFFL;
                long v = lo >>> shift;
                if (shift + bits > 32) {
                    long hi = word(src, off + 4 * (4 * (w + 1) + lane)) & 0xFFFFFFFFL;
                    v |= hi << (32 - shift);
                }
                out[4 * k + lane] = (int) (v & mask);
                bitPos += bits;
            }
        }
    }

    /** Unpacks deltas and integrates them from {@code initial} (u32 wrap-around, as the crate). */
    public static void unpackSorted(byte[] src, int off, int bits, int initial, int[] out) {
        unpack(src, off, bits, out);
        int prev = initial;
        for (int i = 0; i < BLOCK_LEN; i++) {
            prev += out[i];
            out[i] = prev;
        }
    }

    /** Smallest width holding every value of {@code values[0..128)} as unsigned. */
    public static int bitsNeeded(int[] values) {
        int or = 0;
        for (int i = 0; i < BLOCK_LEN; i++) {
            or |= values[i];
        }
        return 32 - Integer.numberOfLeadingZeros(or);
    }

    /** Packs 128 values of {@code bits} bits into {@code dst[off..off + 16·bits)}. */
    public static void pack(int[] values, int bits, byte[] dst, int off) {
        if (bits == 0) {
            return;
        }
        int[] words = new int[4 * bits];
        for (int lane = 0; lane < 4; lane++) {
            int bitPos = 0;
            for (int k = 0; k < BLOCK_LEN / 4; k++) {
                long v = values[4 * k + lane] & 0xFFFFFFFFL;
                int w = bitPos >>> 5, shift = bitPos & 31;
                words[4 * w + lane] |= (int) (v << shift);
                if (shift + bits > 32) {
                    words[4 * (w + 1) + lane] |= (int) (v >>> (32 - shift));
                }
                bitPos += bits;
            }
        }
        for (int i = 0; i < words.length; i++) {
            int v = words[i];
            dst[off + 4 * i] = (byte) v;
            dst[off + 4 * i + 1] = (byte) (v >>> 8);
            dst[off + 4 * i + 2] = (byte) (v >>> 16);
            dst[off + 4 * i + 3] = (byte) (v >>> 24);
        }
    }

    /** Deltas of a sorted block against {@code initial} (the input of {@link #pack} for sorted data). */
    public static int[] deltas(int[] values, int initial) {
        int[] d = new int[BLOCK_LEN];
        int prev = initial;
        for (int i = 0; i < BLOCK_LEN; i++) {
            d[i] = values[i] - prev;
            prev = values[i];
        }
        return d;
    }
}
