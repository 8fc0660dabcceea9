package io.javelin.engine;

/** A tag that does not exist, already exists or has an invalid name. */
public class TagException extends DatasetException {

    public TagException(String uri, long version, String message, Throwable cause) {
        super(uri, version, message, cause);
    }

    public TagException(String uri, long version, String message) {
        super(uri, version, message, null);
    }
}
