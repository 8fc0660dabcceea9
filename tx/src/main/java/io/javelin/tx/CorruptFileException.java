package io.javelin.tx;

/** A table-level file other than a manifest (deletion file, transaction file, tag, hint) is malformed. */
public final class CorruptFileException extends TxException {

    private final String path;

    public CorruptFileException(String path, String what) {
        this(path, what, null);
    }

    public CorruptFileException(String path, String what, Throwable cause) {
        super(what + " (path=" + path + ")", cause);
        this.path = path;
    }

    public String path() {
        return path;
    }
}
