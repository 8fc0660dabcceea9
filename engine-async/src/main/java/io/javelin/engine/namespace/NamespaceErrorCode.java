package io.javelin.engine.namespace;

/**
 * The Lance Namespace spec's error codes (the {@code code} of an error body) and the HTTP status a REST
 * server answers with. Clients map the code, not the status, to an error type.
 */
public enum NamespaceErrorCode {
    UNSUPPORTED(0, 406),
    NAMESPACE_NOT_FOUND(1, 404),
    NAMESPACE_ALREADY_EXISTS(2, 409),
    NAMESPACE_NOT_EMPTY(3, 409),
    TABLE_NOT_FOUND(4, 404),
    TABLE_ALREADY_EXISTS(5, 409),
    TABLE_INDEX_NOT_FOUND(6, 404),
    TABLE_INDEX_ALREADY_EXISTS(7, 409),
    TABLE_TAG_NOT_FOUND(8, 404),
    TABLE_TAG_ALREADY_EXISTS(9, 409),
    TRANSACTION_NOT_FOUND(10, 404),
    TABLE_VERSION_NOT_FOUND(11, 404),
    TABLE_COLUMN_NOT_FOUND(12, 404),
    INVALID_INPUT(13, 400),
    CONCURRENT_MODIFICATION(14, 409),
    PERMISSION_DENIED(15, 403),
    UNAUTHENTICATED(16, 401),
    SERVICE_UNAVAILABLE(17, 503),
    INTERNAL(18, 500),
    INVALID_TABLE_STATE(19, 409),
    TABLE_SCHEMA_VALIDATION_ERROR(20, 400),
    THROTTLING(21, 429);

    private final int code;
    private final int httpStatus;

    NamespaceErrorCode(int code, int httpStatus) {
        this.code = code;
        this.httpStatus = httpStatus;
    }

    public int code() {
        return code;
    }

    public int httpStatus() {
        return httpStatus;
    }

    /** The constant for a wire code; an unknown code is {@link #INTERNAL} (a newer server's code). */
    public static NamespaceErrorCode of(int code) {
        for (NamespaceErrorCode c : values()) {
            if (c.code == code) {
                return c;
            }
        }
        return INTERNAL;
    }

    /** Best guess from an HTTP status alone (an error body without a code, e.g. from a proxy). */
    public static NamespaceErrorCode ofStatus(int status) {
        return switch (status) {
            case 400, 413, 414, 431 -> INVALID_INPUT;
            case 401 -> UNAUTHENTICATED;
            case 403 -> PERMISSION_DENIED;
            case 404 -> TABLE_NOT_FOUND;
            case 406, 501 -> UNSUPPORTED;
            case 409 -> CONCURRENT_MODIFICATION;
            case 429 -> THROTTLING;
            case 503 -> SERVICE_UNAVAILABLE;
            default -> INTERNAL;
        };
    }
}
