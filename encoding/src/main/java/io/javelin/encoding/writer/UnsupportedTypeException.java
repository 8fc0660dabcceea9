package io.javelin.encoding.writer;

/** An Arrow type (or a field-metadata setting) the chosen file version cannot store, e.g. map in 2.1. */
public final class UnsupportedTypeException extends LanceWriteException {
    public UnsupportedTypeException(String message) {
        super(message);
    }
}
