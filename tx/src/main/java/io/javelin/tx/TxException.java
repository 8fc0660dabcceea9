package io.javelin.tx;

/**
 * Root of the table-format exceptions. Unchecked, and named for what the caller should do
 * (retry, abort, re-open), never after the JDK type that happened to surface the problem.
 */
public abstract class TxException extends RuntimeException {

    protected TxException(String message) {
        super(message);
    }

    protected TxException(String message, Throwable cause) {
        super(message, cause);
    }
}
