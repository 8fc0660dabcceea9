package io.javelin.engine;

/**
 * Root of the errors the {@link Dataset} API signals. Unchecked; every one names the dataset URI and,
 * when one was involved, the version ({@code -1} when none, e.g. a dataset that does not exist yet).
 */
public class DatasetException extends RuntimeException {

    private final String uri;
    private final long version;

    public DatasetException(String uri, long version, String message, Throwable cause) {
        super(message(uri, version, message), cause);
        this.uri = uri;
        this.version = version;
    }

    public DatasetException(String uri, long version, String message) {
        this(uri, version, message, null);
    }

    private static String message(String uri, long version, String message) {
        return message + " (dataset " + uri + (version > 0 ? ", version " + version : "") + ")";
    }

    /** The dataset URI as the caller gave it. */
    public String uri() {
        return uri;
    }

    /** The version involved, or -1. */
    public long version() {
        return version;
    }
}
