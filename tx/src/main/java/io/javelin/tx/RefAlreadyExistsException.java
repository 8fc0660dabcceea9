package io.javelin.tx;

/** A tag (or other ref) with that name already exists. */
public final class RefAlreadyExistsException extends TxException {

    public RefAlreadyExistsException(String message) {
        super(message);
    }
}
