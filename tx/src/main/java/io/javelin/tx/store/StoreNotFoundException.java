package io.javelin.tx.store;

/** The object does not exist. */
public final class StoreNotFoundException extends RuntimeException {

    public StoreNotFoundException(String path) {
        super("Object not found: " + path);
    }
}
