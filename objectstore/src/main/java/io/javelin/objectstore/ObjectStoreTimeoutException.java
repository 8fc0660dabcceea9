package io.javelin.objectstore;

import java.time.Duration;

/** A request did not finish within the store's {@code timeout}. Retryable; may have been applied. */
public class ObjectStoreTimeoutException extends TransientObjectStoreException {

    public ObjectStoreTimeoutException(String what, Duration timeout, Throwable cause) {
        super(what + " did not complete within " + timeout, 0, null, cause);
    }
}
