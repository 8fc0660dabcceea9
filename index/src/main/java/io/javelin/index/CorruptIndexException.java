package io.javelin.index;

/**
 * An index file (or a batch handed over by the reader) does not have the layout Lance writes:
 * a missing column, a wrong type, an out-of-range offset, a truncated bitmap. Callers never use a
 * partially loaded index: they drop the index for this query and fall back to a scan, so a corrupt
 * index costs speed, never correctness.
 */
public class CorruptIndexException extends RuntimeException {

    private final String resource;

    public CorruptIndexException(String resource, String message) {
        super(message + " (resource=" + resource + ")");
        this.resource = resource;
    }

    public CorruptIndexException(String resource, String message, Throwable cause) {
        super(message + " (resource=" + resource + ")", cause);
        this.resource = resource;
    }

    /** The index file or logical part the problem was found in. */
    public String resource() {
        return resource;
    }

    /** Throws when {@code ok} is false; the message is formatted only then. */
    public static void check(boolean ok, String resource, String format, Object... args) {
        if (!ok) {
            throw new CorruptIndexException(resource, String.format(format, args));
        }
    }
}
