package io.javelin.objectstore;

/**
 * The store asked us to slow down (HTTP 429/503, S3 {@code SlowDown}, Azure {@code ServerBusy},
 * GCS {@code rateLimitExceeded}). Feeds the AIMD limiter's multiplicative decrease; retryable.
 */
public class ThrottledException extends TransientObjectStoreException {

    public ThrottledException(String message, int httpStatus, String errorCode, Throwable cause) {
        super(message, httpStatus, errorCode, cause);
    }
}
