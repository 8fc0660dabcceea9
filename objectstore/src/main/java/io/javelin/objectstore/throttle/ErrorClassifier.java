package io.javelin.objectstore.throttle;

import io.javelin.objectstore.AccessDeniedException;
import io.javelin.objectstore.ObjectAlreadyExistsException;
import io.javelin.objectstore.ObjectNotFoundException;
import io.javelin.objectstore.ObjectStoreException;
import io.javelin.objectstore.ThrottledException;
import io.javelin.objectstore.TransientObjectStoreException;
import java.util.Locale;
import java.util.Set;

/**
 * Maps an HTTP status plus the store's error code to our exception types. Classification uses
 * status and code only, never message text. Each store adapter extracts (status, code) from its
 * SDK's exception and calls {@link #map}.
 */
public final class ErrorClassifier {

    /** Error codes that mean "slow down", whatever the status (S3, Azure, GCS, generic). */
    private static final Set<String> THROTTLE_CODES = Set.of(
            "slowdown", "serverbusy", "ratelimitexceeded", "userratelimitexceeded", "toomanyrequests",
            "throttling", "throttlingexception", "requestlimitexceeded", "requestthrottled",
            "ingressoveraccountlimit", "egressoveraccountlimit", "operationspersecondoveraccountlimit");

    private ErrorClassifier() {
    }

    public static boolean isThrottle(int status, String code) {
        if (status == 429 || status == 503) {
            return true;
        }
        return code != null && THROTTLE_CODES.contains(code.toLowerCase(Locale.ROOT));
    }

    /**
     * The typed exception for a failed request.
     *
     * @param conditionalCreate the request was a create-if-absent, so 409/412 mean "lost the race"
     */
    public static ObjectStoreException map(String what, String path, int status, String code, Throwable cause,
            boolean conditionalCreate) {
        String detail = what + " " + path + " failed: HTTP " + status + (code == null ? "" : " " + code);
        if (conditionalCreate && (status == 412 || status == 409 || status == 304)) {
            return new ObjectAlreadyExistsException(path, status, code, cause);
        }
        if (isThrottle(status, code)) {
            return new ThrottledException(detail, status, code, cause);
        }
        if (status == 404) {
            return new ObjectNotFoundException(path, cause);
        }
        if (status == 401 || status == 403) {
            return new AccessDeniedException(detail, status, code, cause);
        }
        if (status == 408 || status >= 500) {
            return new TransientObjectStoreException(detail, status, code, cause);
        }
        return new ObjectStoreException(detail, status, code, cause);
    }
}
