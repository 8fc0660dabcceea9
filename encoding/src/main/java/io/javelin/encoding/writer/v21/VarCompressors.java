package io.javelin.encoding.writer.v21;

import io.javelin.encoding.compress.BufferCodec;
import io.javelin.encoding.compress.BufferCompression;
import io.javelin.encoding.compress.FsstEncoder;
import io.javelin.encoding.compress.FsstSymbolTable;
import io.javelin.encoding.pb.v21.CompressiveEncoding;
import io.javelin.encoding.writer.Bytes;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/** FSST, per-value general compression and the general (zstd/lz4) mini-block wrapper. */
final class VarCompressors {
    static final int FSST_MIN_INPUT = 32 * 1024;
    static final int FSST_MIN_MAX_LEN = 5;
    static final int GENERAL_MIN_BUFFER = 4 * 1024;

    private VarCompressors() {
    }

    /** FSST-compresses every value of the page with one trained table. */
    static VarData fsst(VarData in) {
        int ow = in.offsetBytes();
        int n = in.count();
        Bytes offs = new Bytes((n + 1) * ow);
        offs.uint(0, ow);
        for (int i = 0; i < n; i++) {
            offs.uint(in.end(i), ow);
        }
        MemorySegment offsets = MemorySegment.ofArray(offs.array());
        MemorySegment data = MemorySegment.ofArray(in.data());
        byte[] table = new byte[FsstSymbolTable.SERIALIZED_BYTES];
        byte[] outOffs = new byte[(n + 1) * ow];
        byte[] outData = new byte[(int) Math.min(Integer.MAX_VALUE - 16, FsstEncoder.maxCompressedLength(in.dataSize()) + 16)];
        FsstEncoder.compress(ow, offsets, 0, n, data, 0, MemorySegment.ofArray(table), 0,
                MemorySegment.ofArray(outOffs), 0, MemorySegment.ofArray(outData), 0);
        Bytes ob = Bytes.wrap(outOffs);
        long[] ends = new long[n];
        for (int i = 0; i < n; i++) {
            ends[i] = ob.getUInt((i + 1) * ow, ow);
        }
        return new VarData(n, ends, outData, ow, Encodings21.fsst(table, Encodings21.variable(ow * 8)));
    }

    /** Each value compressed on its own (full-zip per-value General). */
    static VarData perValue(VarData in, int scheme, Integer level) {
        BufferCodec codec = scheme == 1 ? BufferCompression.lz4()
                : level == null ? BufferCompression.zstd() : BufferCompression.forScheme(2, level);
        int n = in.count();
        Bytes out = new Bytes((int) Math.min(Integer.MAX_VALUE - 16, in.dataSize() / 2 + 64));
        long[] ends = new long[n];
        MemorySegment src = MemorySegment.ofArray(in.data());
        for (int i = 0; i < n; i++) {
            long s = in.start(i);
            long len = in.end(i) - s;
            byte[] dst = new byte[(int) codec.maxCompressedLength(len)];
            long w = codec.compress(src.asSlice(s, len), MemorySegment.ofArray(dst));
            out.put(dst, 0, (int) w);
            ends[i] = out.size();
        }
        return new VarData(n, ends, out.array(), in.offsetBytes(),
                Encodings21.general(scheme, level, Encodings21.variable(in.offsetBytes() * 8)));
    }

    /** Lance's GeneralMiniBlockCompressor: compresses buffer 0 of each chunk if the page's buffer 0 is ≥ 4 KiB and shrinks. */
    static MiniBlockValues general(MiniBlockValues inner, int scheme, Integer level) {
        long total = 0;
        for (Chunk c : inner.chunks()) {
            total += c.buffers()[0].length;
        }
        if (total < GENERAL_MIN_BUFFER) {
            return inner;
        }
        BufferCodec codec = scheme == 1 ? BufferCompression.lz4()
                : level == null ? BufferCompression.zstd() : BufferCompression.forScheme(2, level);
        List<Chunk> out = new ArrayList<>(inner.chunks().size());
        long compressed = 0;
        for (Chunk c : inner.chunks()) {
            byte[] b0 = c.buffers()[0];
            byte[] dst = new byte[(int) codec.maxCompressedLength(b0.length)];
            int w = (int) codec.compress(MemorySegment.ofArray(b0), MemorySegment.ofArray(dst));
            byte[][] bufs = c.buffers().clone();
            bufs[0] = java.util.Arrays.copyOf(dst, w);
            compressed += w;
            out.add(new Chunk(bufs, c.log(), c.numValues()));
        }
        if (compressed >= total) {
            return inner;
        }
        return new MiniBlockValues(out, Encodings21.general(scheme, level, inner.encoding()), inner.dict());
    }

    /** Compresses a whole block buffer (dictionary values, 2.2). */
    static byte[] block(byte[] in, int scheme) {
        BufferCodec codec = scheme == 1 ? BufferCompression.lz4() : BufferCompression.zstd();
        byte[] dst = new byte[(int) codec.maxCompressedLength(in.length)];
        int w = (int) codec.compress(MemorySegment.ofArray(in), MemorySegment.ofArray(dst));
        return java.util.Arrays.copyOf(dst, w);
    }

    static CompressiveEncoding unused() {
        return null;
    }
}
