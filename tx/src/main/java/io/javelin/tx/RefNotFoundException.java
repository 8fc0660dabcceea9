package io.javelin.tx;

/** A tag (or other ref) does not exist. */
public final class RefNotFoundException extends TxException {

    public RefNotFoundException(String message) {
        super(message);
    }
}
