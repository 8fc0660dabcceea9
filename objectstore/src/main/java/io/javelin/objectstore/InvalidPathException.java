package io.javelin.objectstore;

/** A key that is not a valid object path, or that would escape the store's root. */
public class InvalidPathException extends ObjectStoreException {

    private final String path;

    public InvalidPathException(String path, String reason) {
        super("Invalid object path: '" + path + "' (" + reason + ")");
        this.path = path;
    }

    public String path() {
        return path;
    }
}
