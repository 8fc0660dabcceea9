package io.javelin.objectstore;

/** The store rejected the credentials or the caller lacks permission (HTTP 401/403). */
public class AccessDeniedException extends ObjectStoreException {

    public AccessDeniedException(String message, int httpStatus, String errorCode, Throwable cause) {
        super(message, httpStatus, errorCode, cause);
    }
}
