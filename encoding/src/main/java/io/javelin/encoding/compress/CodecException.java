package io.javelin.encoding.compress;

/**
 * A compressed buffer or codec table is malformed (bad magic, truncated frame, size over the limit,
 * an invalid code). Unchecked; the reader maps it to {@code CorruptFileException} adding the file and
 * the buffer's position in it.
 */
public class CodecException extends RuntimeException {

    private final String codec;
    private final long offset;

    /**
     * @param codec  the codec that failed, e.g. "zstd", "lz4", "fsst"
     * @param offset byte offset within the codec's input where the problem was seen, or -1 if unknown
     */
    public CodecException(String codec, long offset, String message) {
        this(codec, offset, message, null);
    }

    public CodecException(String codec, long offset, String message, Throwable cause) {
        super(codec + ": " + message + (offset >= 0 ? " (at input offset " + offset + ")" : ""), cause);
        this.codec = codec;
        this.offset = offset;
    }

    public String codec() {
        return codec;
    }

    /** Offset within the codec's input, or -1 when the codec library did not say. */
    public long offset() {
        return offset;
    }
}
