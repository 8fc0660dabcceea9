package io.javelin.engine.namespace;

/**
 * An error of a namespace operation, typed by the spec's {@link NamespaceErrorCode} (the same taxonomy on
 * the directory implementation, the REST client and the server's error bodies).
 */
public class NamespaceException extends RuntimeException {

    private final NamespaceErrorCode code;

    public NamespaceException(NamespaceErrorCode code, String message, Throwable cause) {
        super(message, cause);
        this.code = code;
    }

    public NamespaceException(NamespaceErrorCode code, String message) {
        this(code, message, null);
    }

    public NamespaceErrorCode code() {
        return code;
    }

    static NamespaceException tableNotFound(ObjectId id) {
        return new NamespaceException(NamespaceErrorCode.TABLE_NOT_FOUND, "Table not found: " + id);
    }

    static NamespaceException namespaceNotFound(ObjectId id) {
        return new NamespaceException(NamespaceErrorCode.NAMESPACE_NOT_FOUND, "Namespace not found: " + id);
    }

    static NamespaceException invalid(String message) {
        return new NamespaceException(NamespaceErrorCode.INVALID_INPUT, message);
    }
}
