package io.javelin.engine;

/** A create found an existing dataset. */
public class DatasetAlreadyExistsException extends DatasetException {

    public DatasetAlreadyExistsException(String uri, long version, String message, Throwable cause) {
        super(uri, version, message, cause);
    }

    public DatasetAlreadyExistsException(String uri, long version, String message) {
        super(uri, version, message, null);
    }
}
