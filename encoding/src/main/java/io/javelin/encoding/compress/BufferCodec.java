package io.javelin.encoding.compress;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * One of Lance's general-purpose buffer compressors with its exact framing (file-format.md §9.9).
 * Implementations are stateless and thread-safe; all sizes are validated before anything is allocated.
 */
public interface BufferCodec {

    /** "zstd" or "lz4". */
    String name();

    /**
     * Decompresses a whole framed buffer into a new segment of {@code arena}, exactly as long as the
     * data it holds.
     *
     * @param maxDecompressedBytes refuse (with {@link CodecException}) to produce more than this, checked
     *        against the declared size before allocating
     * @throws CodecException on malformed or truncated input, a size mismatch, or a size over the limit
     */
    MemorySegment decompress(MemorySegment framed, long maxDecompressedBytes, Arena arena);

    /**
     * Decompresses into {@code dst}, whose size is the limit.
     *
     * @return the number of bytes written
     */
    long decompress(MemorySegment framed, MemorySegment dst);

    /**
     * The decompressed size the framing declares, or -1 when it does not (a legacy raw zstd frame
     * without content size). Does not validate the payload.
     */
    long declaredLength(MemorySegment framed);

    /** Upper bound of the framed size for {@code uncompressedBytes} of input. */
    long maxCompressedLength(long uncompressedBytes);

    /**
     * Compresses {@code src} with this codec's framing into {@code dst}, which must hold
     * {@link #maxCompressedLength} bytes.
     *
     * @return the number of framed bytes written
     */
    long compress(MemorySegment src, MemorySegment dst);

    /** Compresses into a new, exactly sized segment of {@code arena}. */
    default MemorySegment compress(MemorySegment src, Arena arena) {
        MemorySegment scratch = MemorySegment.ofArray(new byte[Math.toIntExact(maxCompressedLength(src.byteSize()))]);
        long n = compress(src, scratch);
        MemorySegment out = arena.allocate(Math.max(n, 1)).asSlice(0, n);
        MemorySegment.copy(scratch, 0, out, 0, n);
        return out;
    }
}
