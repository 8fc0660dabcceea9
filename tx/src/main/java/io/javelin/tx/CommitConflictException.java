package io.javelin.tx;

/**
 * The transaction cannot be committed on top of what was committed since its read version
 * (Lance {@code CommitConflict}): the caller must not blindly retry.
 */
public class CommitConflictException extends TxException {

    public CommitConflictException(String message) {
        super(message);
    }
}
