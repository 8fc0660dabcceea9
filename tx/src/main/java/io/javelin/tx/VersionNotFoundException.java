package io.javelin.tx;

/** The requested dataset version (or the dataset itself) does not exist. */
public final class VersionNotFoundException extends TxException {

    public VersionNotFoundException(String message) {
        super(message);
    }
}
