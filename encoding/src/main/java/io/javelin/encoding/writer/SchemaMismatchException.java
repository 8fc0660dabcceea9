package io.javelin.encoding.writer;

/** A batch does not match the schema the file was opened with (field names, types or count). */
public final class SchemaMismatchException extends LanceWriteException {
    public SchemaMismatchException(String message) {
        super(message);
    }
}
