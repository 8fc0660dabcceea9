package io.javelin.encoding.writer.v21;

import io.javelin.encoding.writer.Bytes;
import io.javelin.encoding.writer.LeafType;
import io.javelin.encoding.writer.LeafValues;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Cuts page values into mini-block chunks (Flat, Variable, FixedSizeList), as Lance's default encoders do. */
final class MiniBlockCompressors {
    static final int MAX_MINIBLOCK_BYTES = 8 * 1024 - 6;
    static final int MAX_MINIBLOCK_VALUES = 4096;
    static final int AIM_MINICHUNK_SIZE = 4 * 1024;

    private MiniBlockCompressors() {
    }

    /** (log, count) of values per chunk for {@code bytesPerWord} bytes per {@code valuesPerWord} values. */
    static int[] logValsPerChunk(long bytesPerWord, int valuesPerWord) {
        long size = 2 * bytesPerWord;
        int log = valuesPerWord == 1 ? 1 : 3;
        int num = valuesPerWord == 1 ? 2 : 8;
        while (2 * size < MAX_MINIBLOCK_BYTES && 2L * num <= MAX_MINIBLOCK_VALUES) {
            log++;
            size *= 2;
            num *= 2;
        }
        return new int[] {log, num};
    }

    static MiniBlockValues flat(LeafValues v) {
        LeafType t = v.type();
        int n = v.count();
        byte[] src = v.data().array();
        List<Chunk> chunks = new ArrayList<>();
        if (t.kind() == LeafType.Kind.BOOL) {
            int[] lv = logValsPerChunk(1, 8);
            for (int start = 0; start < n; start += lv[1]) {
                int cnt = Math.min(lv[1], n - start);
                byte[] bits = new byte[(cnt + 7) / 8];
                for (int i = 0; i < cnt; i++) {
                    if (src[start + i] != 0) {
                        bits[i >> 3] |= (byte) (1 << (i & 7));
                    }
                }
                chunks.add(new Chunk(new byte[][] {bits}, cnt == lv[1] ? lv[0] : 0, cnt));
            }
            return new MiniBlockValues(chunks, Encodings21.flat(1));
        }
        return flatBytes(src, n, t.byteWidth());
    }

    static MiniBlockValues flatBytes(byte[] src, int n, int w) {
        List<Chunk> chunks = new ArrayList<>();
        int[] lv = logValsPerChunk(w, 1);
        for (int start = 0; start < n; start += lv[1]) {
            int cnt = Math.min(lv[1], n - start);
            chunks.add(new Chunk(new byte[][] {Arrays.copyOfRange(src, start * w, (start + cnt) * w)},
                    cnt == lv[1] ? lv[0] : 0, cnt));
        }
        return new MiniBlockValues(chunks, Encodings21.flat(w * 8));
    }

    static MiniBlockValues fsl(LeafValues v) {
        LeafType t = v.type();
        int n = v.count();
        int[] dims = t.dims();
        long validityBytes = 0;
        int cum = 1;
        for (int l = 0; l < dims.length; l++) {
            cum *= dims[l];
            if (v.layerHasNull(l)) {
                validityBytes += (cum + 7) / 8;
            }
        }
        long bytesPerRow = (long) t.byteWidth() * cum + validityBytes;
        int[] lv = logValsPerChunk(bytesPerRow, 1);
        List<Chunk> chunks = new ArrayList<>();
        byte[] src = v.data().array();
        int rowBytes = t.byteWidth() * cum;
        for (int start = 0; start < n; start += lv[1]) {
            int cnt = Math.min(lv[1], n - start);
            List<byte[]> bufs = new ArrayList<>();
            int items = 1;
            for (int l = 0; l < dims.length; l++) {
                items *= dims[l];
                if (v.layerHasNull(l)) {
                    bufs.add(packBits(v.validity(l).array(), start * items, cnt * items));
                }
            }
            bufs.add(Arrays.copyOfRange(src, start * rowBytes, (start + cnt) * rowBytes));
            chunks.add(new Chunk(bufs.toArray(new byte[0][]), cnt == lv[1] ? lv[0] : 0, cnt));
        }
        return new MiniBlockValues(chunks, fslEncoding(v));
    }

    static io.javelin.encoding.pb.v21.CompressiveEncoding fslEncoding(LeafValues v) {
        int[] dims = v.type().dims();
        io.javelin.encoding.pb.v21.CompressiveEncoding e = Encodings21.flat(v.type().byteWidth() * 8);
        for (int l = dims.length - 1; l >= 0; l--) {
            e = Encodings21.fsl(dims[l], v.layerHasNull(l), e);
        }
        return e;
    }

    /** LSB-first bitmap of {@code count} 0/1 bytes starting at {@code from}. */
    static byte[] packBits(byte[] bytes, int from, int count) {
        byte[] out = new byte[(count + 7) / 8];
        for (int i = 0; i < count; i++) {
            if (bytes[from + i] != 0) {
                out[i >> 3] |= (byte) (1 << (i & 7));
            }
        }
        return out;
    }

    /** Variable-width values: {@code [offsets (n+1)][bytes]} per chunk, offsets absolute in the chunk. */
    static MiniBlockValues variable(LeafValues v) {
        return variable(v.count(), v::start, v::end, v.data().array(), v.type().offsetBytes());
    }

    interface Offsets {
        long at(int i);
    }

    static MiniBlockValues variable(int n, Offsets start, Offsets end, byte[] data, int ow) {
        List<Chunk> chunks = new ArrayList<>();
        int first = 0;
        while (first < n) {
            int last = nextCut(n, start, end, first, ow);
            int cnt = last - first;
            long bytesStart = (long) (cnt + 1) * ow;
            long base = start.at(first);
            long dataLen = end.at(last - 1) - base;
            Bytes b = new Bytes((int) (bytesStart + dataLen + 8));
            b.uint(bytesStart, ow);
            for (int i = first; i < last; i++) {
                b.uint(end.at(i) - base + bytesStart, ow);
            }
            b.put(data, (int) base, (int) dataLen);
            b.padTo(ow, (byte) 72);
            boolean isLast = last == n;
            chunks.add(new Chunk(new byte[][] {b.toArray()}, isLast ? 0 : Integer.numberOfTrailingZeros(cnt), cnt));
            first = last;
        }
        return new MiniBlockValues(chunks, Encodings21.variable(ow * 8));
    }

    /** Lance's search: double the value count while the chunk stays within 4 KiB; chunks hold ≥ 2 values. */
    private static int nextCut(int n, Offsets start, Offsets end, int first, int ow) {
        int num = 1;
        int next = 2;
        while (true) {
            if (first + next >= n + 1) {
                long existing = end.at(n - 1) - start.at(first);
                long size = existing + (long) (n + 1 - first) * ow;
                return size <= AIM_MINICHUNK_SIZE ? n : first + num;
            }
            long existing = end.at(first + next - 1) - start.at(first);
            long size = existing + (long) (next + 1) * ow;
            if (size <= AIM_MINICHUNK_SIZE) {
                num = next;
                next *= 2;
            } else {
                break;
            }
        }
        return first + next;
    }
}
