package io.javelin.tx;

/** A user-supplied name (tag, ...) breaks Lance's naming rules. */
public final class InvalidNameException extends TxException {

    public InvalidNameException(String message) {
        super(message);
    }
}
