package io.javelin.tx.store;

/** A create-if-absent found the object already there: for a manifest this is a lost commit race. */
public final class StoreAlreadyExistsException extends RuntimeException {

    private final String path;

    public StoreAlreadyExistsException(String path) {
        super("Object already exists: " + path);
        this.path = path;
    }

    public String path() {
        return path;
    }
}
