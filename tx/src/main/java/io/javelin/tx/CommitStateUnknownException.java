package io.javelin.tx;

/**
 * We cannot tell whether our manifest was published (e.g. the store kept failing while we tried to
 * read it back). Never clean up files written for this commit.
 */
public final class CommitStateUnknownException extends TxException {

    public CommitStateUnknownException(String message, Throwable cause) {
        super(message, cause);
    }
}
