package io.javelin.engine;

/** No dataset at the URI, or the requested version/tag does not exist. */
public class DatasetNotFoundException extends DatasetException {

    public DatasetNotFoundException(String uri, long version, String message, Throwable cause) {
        super(uri, version, message, cause);
    }

    public DatasetNotFoundException(String uri, long version, String message) {
        super(uri, version, message, null);
    }
}
