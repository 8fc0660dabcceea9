package io.javelin.objectstore;

/**
 * A create-if-absent lost: the object already existed. This is the commit layer's conflict signal.
 *
 * <p>{@link #afterAmbiguousAttempt()} is true when an earlier attempt of the same call failed in a
 * way that may have been applied (a 5xx, a timeout, a reset connection). The object may then be
 * our own write whose acknowledgement was lost; {@link CreateIfAbsent#resolve} reads it back to
 * tell "we won" from "someone else won".
 */
public class ObjectAlreadyExistsException extends ObjectStoreException {

    private final String path;
    private final boolean afterAmbiguousAttempt;

    public ObjectAlreadyExistsException(String path, int httpStatus, String errorCode, Throwable cause) {
        this(path, false, httpStatus, errorCode, cause);
    }

    private ObjectAlreadyExistsException(String path, boolean ambiguous, int httpStatus, String errorCode,
            Throwable cause) {
        super("Object already exists: " + path
                + (ambiguous ? " (an earlier attempt of this create may have been applied; read it back)" : ""),
                httpStatus, errorCode, cause);
        this.path = path;
        this.afterAmbiguousAttempt = ambiguous;
    }

    /** The same conflict, flagged as following an attempt whose outcome is unknown. */
    public ObjectAlreadyExistsException asAmbiguous(Throwable earlierFailure) {
        ObjectAlreadyExistsException e =
                new ObjectAlreadyExistsException(path, true, httpStatus(), errorCode(), this);
        if (earlierFailure != null) {
            e.addSuppressed(earlierFailure);
        }
        return e;
    }

    public String path() {
        return path;
    }

    public boolean afterAmbiguousAttempt() {
        return afterAmbiguousAttempt;
    }
}
