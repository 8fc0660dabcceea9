package io.javelin.tx;

/** A create (read version 0) lost the race for version 1: someone else created the dataset. Re-open it. */
public final class DatasetAlreadyExistsException extends TxException {

    public DatasetAlreadyExistsException(String message) {
        super(message);
    }
}
