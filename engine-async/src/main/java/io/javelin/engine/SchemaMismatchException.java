package io.javelin.engine;

/** Written data does not match the dataset's schema. */
public class SchemaMismatchException extends DatasetException {

    public SchemaMismatchException(String uri, long version, String message, Throwable cause) {
        super(uri, version, message, cause);
    }

    public SchemaMismatchException(String uri, long version, String message) {
        super(uri, version, message, null);
    }
}
