package io.javelin.tx;

/** A manifest (or a file it frames) is not a valid Lance manifest; the message names path and offset. */
public final class CorruptManifestException extends TxException {

    private final String path;
    private final long offset;

    public CorruptManifestException(String path, long offset, String what) {
        this(path, offset, what, null);
    }

    public CorruptManifestException(String path, long offset, String what, Throwable cause) {
        super(what + " (path=" + path + ", offset=" + offset + ")", cause);
        this.path = path;
        this.offset = offset;
    }

    public String path() {
        return path;
    }

    public long offset() {
        return offset;
    }
}
