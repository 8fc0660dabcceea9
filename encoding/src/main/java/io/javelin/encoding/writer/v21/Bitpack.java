package io.javelin.encoding.writer.v21;

import io.javelin.encoding.kernel.Kernels;
import java.lang.foreign.MemorySegment;

/** FastLanes bit-packing helpers over heap arrays, delegating to the shared kernels. */
final class Bitpack {
    static final int BLOCK = 1024;

    private Bitpack() {
    }

    /** Bit width of each 1024-value block of {@code n} values of {@code typeBytes} at {@code off}. */
    static int[] widths(byte[] data, int off, int n, int typeBytes) {
        int blocks = (n + BLOCK - 1) / BLOCK;
        int[] w = new int[blocks];
        MemorySegment seg = MemorySegment.ofArray(data);
        Kernels k = Kernels.get();
        for (int b = 0; b < blocks; b++) {
            int cnt = Math.min(BLOCK, n - b * BLOCK);
            w[b] = k.maxBitWidth(typeBytes * 8, seg, off + (long) b * BLOCK * typeBytes, cnt);
        }
        return w;
    }

    /** Packs one block (padded with zeros) of {@code cnt} values at bit width {@code w}; 128*w bytes. */
    static byte[] packBlock(byte[] data, int off, int cnt, int typeBytes, int w) {
        byte[] block;
        int src;
        if (cnt == BLOCK && off + BLOCK * typeBytes <= data.length) {
            block = data;
            src = off;
        } else {
            block = new byte[BLOCK * typeBytes];
            System.arraycopy(data, off, block, 0, cnt * typeBytes);
            src = 0;
        }
        byte[] out = new byte[128 * w];
        if (w > 0) {
            Kernels.get().pack(typeBytes * 8, w, MemorySegment.ofArray(block), src, MemorySegment.ofArray(out), 0);
        }
        return out;
    }
}
