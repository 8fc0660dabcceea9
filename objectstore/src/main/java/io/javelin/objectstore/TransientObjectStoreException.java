package io.javelin.objectstore;

/**
 * A failure worth retrying: a 5xx, a timeout, a reset connection, a truncated body. The request
 * may or may not have been applied by the server.
 */
public class TransientObjectStoreException extends ObjectStoreException {

    public TransientObjectStoreException(String message, int httpStatus, String errorCode, Throwable cause) {
        super(message, httpStatus, errorCode, cause);
    }
}
