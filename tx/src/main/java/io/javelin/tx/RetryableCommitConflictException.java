package io.javelin.tx;

/**
 * Lance {@code RetryableCommitConflict}: the operation must be re-executed by the application on the
 * newer version (re-read its input), after which it may well succeed.
 */
public final class RetryableCommitConflictException extends CommitConflictException {

    public RetryableCommitConflictException(String message) {
        super(message);
    }
}
