package io.javelin.encoding;

/**
 * A Lance file is malformed: a length, offset, bit width or protobuf read from it is impossible.
 * Names the file and the byte offset (absolute, in the file) where the problem was found; the offset
 * is -1 when no single position applies.
 */
public class CorruptFileException extends RuntimeException {

    private final String resource;
    private final long offset;

    public CorruptFileException(String resource, long offset, String message) {
        this(resource, offset, message, null);
    }

    public CorruptFileException(String resource, long offset, String message, Throwable cause) {
        super(message + " (resource=" + resource + ", offset=" + offset + ")", cause);
        this.resource = resource;
        this.offset = offset;
    }

    /** The file (path or URI) that is corrupt. */
    public String resource() {
        return resource;
    }

    /** Absolute byte offset in the file where the corruption was detected, or -1. */
    public long offset() {
        return offset;
    }
}
