package io.javelin.objectstore;

/** A store URI that cannot be parsed, has an unsupported scheme, or lacks a bucket/container. */
public class InvalidStoreUriException extends ObjectStoreException {

    private final String uri;

    public InvalidStoreUriException(String uri, String reason) {
        super("Invalid object store URI: '" + uri + "' (" + reason + ")");
        this.uri = uri;
    }

    public String uri() {
        return uri;
    }
}
