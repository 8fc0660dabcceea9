package io.javelin.objectstore;

/** The object does not exist. */
public class ObjectNotFoundException extends ObjectStoreException {

    private final String path;

    public ObjectNotFoundException(String path, Throwable cause) {
        super("Object not found: " + path, 404, null, cause);
        this.path = path;
    }

    public String path() {
        return path;
    }
}
