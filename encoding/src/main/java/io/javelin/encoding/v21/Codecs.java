package io.javelin.encoding.v21;

import io.javelin.encoding.UnsupportedEncodingException;
import io.javelin.encoding.io.Buf;

/**
 * The bridge from the structural decoders to the shared kernels (FastLanes unpack, FSST, zstd, lz4).
 * Every call site of {@code io.javelin.encoding.kernel} / {@code io.javelin.encoding.compress} goes
 * through here, so adapting to their API is one class.
 */
public final class Codecs {

    private Codecs() {
    }

    /**
     * Unpacks one FastLanes block of 1024 values of {@code typeBits} bits packed at {@code width} bits,
     * starting at {@code pos} of {@code src} ({@code 128 * width} bytes), into {@code 1024 * typeBits / 8}
     * little-endian bytes.
     */
    public static byte[] unpack1024(int typeBits, int width, Buf src, long pos) {
        throw new UnsupportedEncodingException(src.resource(), src.fileOffset() + pos, "bit-unpacking kernel not available yet");
    }

    /** Decodes FSST-compressed strings with a 2312-byte Lance symbol table. */
    public static io.javelin.encoding.arrow.Values.Var fsstDecode(Buf symbolTable, io.javelin.encoding.arrow.Values.Var compressed) {
        throw new UnsupportedEncodingException(symbolTable.resource(), symbolTable.fileOffset(), "FSST kernel not available yet");
    }

    /** Decompresses a whole zstd buffer (u64 length prefix or raw frame). */
    public static byte[] zstd(Buf src) {
        throw new UnsupportedEncodingException(src.resource(), src.fileOffset(), "zstd codec not available yet");
    }

    /** Decompresses an LZ4 block with a u32 length prefix. */
    public static byte[] lz4(Buf src) {
        throw new UnsupportedEncodingException(src.resource(), src.fileOffset(), "lz4 codec not available yet");
    }
}
