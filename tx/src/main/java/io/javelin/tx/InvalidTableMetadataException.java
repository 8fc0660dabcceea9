package io.javelin.tx;

/**
 * Decodable metadata that breaks a table-format invariant (fragment ids out of order, a path escaping
 * the dataset, more deleted rows than physical rows, ...). Not retryable.
 */
public final class InvalidTableMetadataException extends TxException {

    public InvalidTableMetadataException(String message) {
        super(message);
    }
}
