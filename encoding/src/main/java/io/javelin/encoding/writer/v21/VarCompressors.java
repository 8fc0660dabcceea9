package io.javelin.encoding.writer.v21;

import io.javelin.encoding.compress.BufferCodec;
import io.javelin.encoding.compress.BufferCompression;
import io.javelin.encoding.compress.FsstEncoder;
import io.javelin.encoding.compress.FsstPageEncoder;
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

    /**
     * FSST-compresses every value of the page with one table trained on a sample of the page (as
     * Lance's {@code fsst::compress} does per page); encodes straight from the page array.
     */
    static VarData fsst(VarData in) {
        int ow = in.offsetBytes();
        int n = in.count();
        long[] offs = new long[n + 1];
        System.arraycopy(in.ends(), 0, offs, 1, n);
        FsstSymbolTable st = in.dataSize() < FsstEncoder.MIN_COMPRESS_INPUT ? FsstSymbolTable.uncompressed()
                : FsstEncoder.train(8, MemorySegment.ofArray(offs), 0, n, MemorySegment.ofArray(in.data()), 0);
        byte[] table = new byte[FsstSymbolTable.SERIALIZED_BYTES];
        st.write(MemorySegment.ofArray(table), 0);
        byte[] outData = new byte[(int) Math.min(Integer.MAX_VALUE - 16, FsstPageEncoder.maxOutput(in.dataSize()) + 16)];
        long[] ends = new long[n];
        new FsstPageEncoder(st).encodeAll(in.data(), in.ends(), n, outData, ends);
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
