package io.javelin.tx.store;

/**
 * A create-if-absent found the object already there: for a manifest this is a lost commit race, unless
 * {@link #ambiguous()} says an earlier attempt of the same request may have been applied (its
 * acknowledgement was lost), in which case the object there may be our own.
 */
public final class StoreAlreadyExistsException extends RuntimeException {

    private final String path;
    private final boolean ambiguous;

    public StoreAlreadyExistsException(String path) {
        this(path, false);
    }

    public StoreAlreadyExistsException(String path, boolean ambiguous) {
        super("Object already exists: " + path + (ambiguous ? " (after an attempt whose outcome is unknown)" : ""));
        this.path = path;
        this.ambiguous = ambiguous;
    }

    public String path() {
        return path;
    }

    public boolean ambiguous() {
        return ambiguous;
    }
}
