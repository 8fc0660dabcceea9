package io.javelin.encoding.writer.v21;

import io.javelin.encoding.kernel.Kernels;
import io.javelin.encoding.writer.Bytes;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Mini-block compressors for fixed-width values: inline bit-packing, RLE, byte stream split. */
final class FixedCompressors {
    private FixedCompressors() {
    }

    /** Bytes InlineBitpacking would take for these values. */
    static long bitpackedSize(int[] widths, int typeBytes) {
        long s = 0;
        for (int w : widths) {
            s += typeBytes + 128L * w;
        }
        return s;
    }

    /** InlineBitpacking: one chunk per 1024 values, {@code [W as T][128*W bytes]}. */
    static MiniBlockValues inlineBitpacking(byte[] data, int n, int typeBytes, int[] widths) {
        List<Chunk> chunks = new ArrayList<>();
        for (int b = 0; b < widths.length; b++) {
            int cnt = Math.min(Bitpack.BLOCK, n - b * Bitpack.BLOCK);
            Bytes out = new Bytes(typeBytes + 128 * widths[b]);
            out.uint(widths[b], typeBytes);
            out.put(Bitpack.packBlock(data, b * Bitpack.BLOCK * typeBytes, cnt, typeBytes, widths[b]));
            boolean last = b == widths.length - 1;
            chunks.add(new Chunk(new byte[][] {out.toArray()}, last ? 0 : 10, cnt));
        }
        return new MiniBlockValues(chunks, Encodings21.inlineBitpacking(typeBytes * 8));
    }

    static long countRuns(byte[] data, int n, int typeBytes) {
        return Kernels.get().countRuns(typeBytes, MemorySegment.ofArray(data), 0, n);
    }

    /** RLE: per chunk (≤ 2048 values, power of two unless last) a values buffer and a u8 run-length buffer. */
    static MiniBlockValues rle(byte[] data, int n, int typeBytes) {
        List<Chunk> chunks = new ArrayList<>();
        int start = 0;
        while (start < n) {
            int cnt = Math.min(2048, n - start);
            byte[][] enc = rleEncode(data, start, cnt, typeBytes);
            while (enc[0].length + enc[1].length > MiniBlockCompressors.MAX_MINIBLOCK_BYTES && cnt > 2) {
                cnt = Integer.highestOneBit(cnt - 1);
                enc = rleEncode(data, start, cnt, typeBytes);
            }
            boolean last = start + cnt == n;
            if (!last && Integer.bitCount(cnt) != 1) {
                cnt = Integer.highestOneBit(cnt);
                enc = rleEncode(data, start, cnt, typeBytes);
            }
            chunks.add(new Chunk(enc, last ? 0 : Integer.numberOfTrailingZeros(cnt), cnt));
            start += cnt;
        }
        return new MiniBlockValues(chunks, Encodings21.rle(typeBytes * 8));
    }

    static byte[][] rleEncode(byte[] data, int start, int cnt, int typeBytes) {
        MemorySegment seg = MemorySegment.ofArray(data);
        Kernels k = Kernels.get();
        long off = (long) start * typeBytes;
        int entries = (int) k.countRleEntries(typeBytes, seg, off, cnt);
        byte[] vals = new byte[entries * typeBytes];
        byte[] lens = new byte[entries];
        long runs = k.encodeRle(typeBytes, seg, off, cnt, MemorySegment.ofArray(vals), 0, MemorySegment.ofArray(lens), 0);
        return new byte[][] {Arrays.copyOf(vals, (int) runs * typeBytes), Arrays.copyOf(lens, (int) runs)};
    }

    /** Byte stream split: 1024 (4-byte) or 512 (8-byte) values per chunk, streams transposed. */
    static MiniBlockValues bss(byte[] data, int n, int typeBytes) {
        int per = typeBytes == 4 ? 1024 : 512;
        int log = typeBytes == 4 ? 10 : 9;
        List<Chunk> chunks = new ArrayList<>();
        Kernels k = Kernels.get();
        for (int start = 0; start < n; start += per) {
            int cnt = Math.min(per, n - start);
            byte[] out = new byte[cnt * typeBytes];
            k.bssEncode(typeBytes, MemorySegment.ofArray(data), (long) start * typeBytes, cnt, MemorySegment.ofArray(out), 0);
            chunks.add(new Chunk(new byte[][] {out}, start + cnt == n ? 0 : log, cnt));
        }
        return new MiniBlockValues(chunks, io.javelin.encoding.pb.v21.CompressiveEncoding.newBuilder()
                .setByteStreamSplit(io.javelin.encoding.pb.v21.ByteStreamSplit.newBuilder()
                        .setValues(Encodings21.flat(typeBytes * 8))).build());
    }
}
