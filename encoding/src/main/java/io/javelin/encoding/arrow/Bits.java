package io.javelin.encoding.arrow;

/** LSB-first bitmap helpers. */
public final class Bits {

    private Bits() {
    }

    public static boolean get(byte[] bits, long i) {
        return (bits[(int) (i >>> 3)] & (1 << (i & 7))) != 0;
    }

    public static void set(byte[] bits, long i) {
        bits[(int) (i >>> 3)] |= (byte) (1 << (i & 7));
    }

    public static int bytesFor(long n) {
        return (int) ((n + 7) >>> 3);
    }

    /** Copies {@code n} bits from {@code src} at {@code srcBit} to {@code dst} at {@code dstBit} (dst bits must be 0). */
    public static void copy(byte[] src, long srcBit, byte[] dst, long dstBit, long n) {
        if ((srcBit & 7) == 0 && (dstBit & 7) == 0) {
            int full = (int) (n >>> 3);
            System.arraycopy(src, (int) (srcBit >>> 3), dst, (int) (dstBit >>> 3), full);
            for (long i = (long) full << 3; i < n; i++) {
                if (get(src, srcBit + i)) {
                    set(dst, dstBit + i);
                }
            }
            return;
        }
        if (n > 64) {
            io.javelin.encoding.kernel.Kernels.get().copyBits(java.lang.foreign.MemorySegment.ofArray(src), srcBit,
                    java.lang.foreign.MemorySegment.ofArray(dst), dstBit, n);
            return;
        }
        for (long i = 0; i < n; i++) {
            if (get(src, srcBit + i)) {
                set(dst, dstBit + i);
            }
        }
    }
}
