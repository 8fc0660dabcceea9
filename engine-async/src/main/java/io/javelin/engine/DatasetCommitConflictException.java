package io.javelin.engine;

/** A commit lost against a concurrent, incompatible commit; re-open and retry. */
public class DatasetCommitConflictException extends DatasetException {

    public DatasetCommitConflictException(String uri, long version, String message, Throwable cause) {
        super(uri, version, message, cause);
    }

    public DatasetCommitConflictException(String uri, long version, String message) {
        super(uri, version, message, null);
    }
}
