package io.javelin.objectstore;

/**
 * Base of every object-store failure. Unchecked: Reactor pipelines carry it as an error signal.
 * Carries the HTTP status and the store's error code when the failure came from a server, so
 * callers and the throttle classifier never have to parse message text.
 */
public class ObjectStoreException extends RuntimeException {

    private final int httpStatus;
    private final String errorCode;

    public ObjectStoreException(String message) {
        this(message, 0, null, null);
    }

    public ObjectStoreException(String message, Throwable cause) {
        this(message, 0, null, cause);
    }

    public ObjectStoreException(String message, int httpStatus, String errorCode, Throwable cause) {
        super(message, cause);
        this.httpStatus = httpStatus;
        this.errorCode = errorCode;
    }

    /** HTTP status of the response that failed, or 0 when there was no response. */
    public int httpStatus() {
        return httpStatus;
    }

    /** The store's error code (S3 {@code SlowDown}, Azure {@code ServerBusy}, GCS reason), or null. */
    public String errorCode() {
        return errorCode;
    }
}
