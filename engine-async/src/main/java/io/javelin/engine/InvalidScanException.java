package io.javelin.engine;

/** A bad column, filter or scan option. */
public class InvalidScanException extends DatasetException {

    public InvalidScanException(String uri, long version, String message, Throwable cause) {
        super(uri, version, message, cause);
    }

    public InvalidScanException(String uri, long version, String message) {
        super(uri, version, message, null);
    }
}
