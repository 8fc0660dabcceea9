package io.javelin.objectstore;

/** A read returned fewer (or more) bytes than the range asked for. Retryable. */
public class TruncatedReadException extends TransientObjectStoreException {

    public TruncatedReadException(String path, long expected, long actual) {
        super("Read of " + path + " returned " + actual + " bytes, expected " + expected, 0, null, null);
    }
}
