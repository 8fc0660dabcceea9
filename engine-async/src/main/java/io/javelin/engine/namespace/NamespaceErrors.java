package io.javelin.engine.namespace;

import io.javelin.engine.DatasetAlreadyExistsException;
import io.javelin.engine.DatasetCommitConflictException;
import io.javelin.engine.DatasetNotFoundException;
import io.javelin.engine.InvalidScanException;
import io.javelin.engine.SchemaEvolutionException;
import io.javelin.engine.SchemaMismatchException;
import io.javelin.engine.filter.FilterEvaluationException;
import io.javelin.objectstore.AccessDeniedException;
import io.javelin.objectstore.MissingCredentialsException;
import io.javelin.objectstore.ThrottledException;
import io.javelin.objectstore.TransientObjectStoreException;
import io.javelin.tx.CommitConflictException;
import io.javelin.tx.VersionNotFoundException;

/** Maps the engine's and the stores' exceptions to the namespace spec's error codes. */
public final class NamespaceErrors {

    private NamespaceErrors() {
    }

    /** {@code e} as a {@link NamespaceException} ({@code id}: the table or namespace the operation was about). */
    public static NamespaceException map(Throwable e, ObjectId id) {
        // a NamespaceException anywhere in the chain (e.g. a bad IPC body under a write's DatasetException) decides
        for (Throwable c = e; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof NamespaceException ne) {
                return ne;
            }
        }
        Throwable t = unwrap(e);
        NamespaceErrorCode code = codeOf(t);
        String what = id == null ? "" : " (" + id + ")";
        return new NamespaceException(code, describe(t) + what, t);
    }

    private static Throwable unwrap(Throwable e) {
        Throwable t = e;
        while ((t instanceof java.util.concurrent.CompletionException || t.getClass() == RuntimeException.class
                || reactor.core.Exceptions.isMultiple(t)) && t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t;
    }

    static NamespaceErrorCode codeOf(Throwable t) {
        if (t instanceof VersionNotFoundException) {
            return NamespaceErrorCode.TABLE_VERSION_NOT_FOUND;
        }
        if (t instanceof DatasetNotFoundException d) {
            return d.version() > 0 || t.getCause() instanceof VersionNotFoundException
                    ? NamespaceErrorCode.TABLE_VERSION_NOT_FOUND : NamespaceErrorCode.TABLE_NOT_FOUND;
        }
        if (t instanceof DatasetAlreadyExistsException || t instanceof io.javelin.tx.DatasetAlreadyExistsException) {
            return NamespaceErrorCode.TABLE_ALREADY_EXISTS;
        }
        if (t instanceof DatasetCommitConflictException || t instanceof CommitConflictException) {
            return NamespaceErrorCode.CONCURRENT_MODIFICATION;
        }
        if (t instanceof SchemaMismatchException) {
            return NamespaceErrorCode.TABLE_SCHEMA_VALIDATION_ERROR;
        }
        if (t instanceof InvalidScanException || t instanceof SchemaEvolutionException || t instanceof IllegalArgumentException
                || t instanceof FilterEvaluationException) {
            return NamespaceErrorCode.INVALID_INPUT;
        }
        if (t instanceof AccessDeniedException) {
            return NamespaceErrorCode.PERMISSION_DENIED;
        }
        if (t instanceof MissingCredentialsException) {
            return NamespaceErrorCode.UNAUTHENTICATED;
        }
        if (t instanceof ThrottledException) {
            return NamespaceErrorCode.THROTTLING;
        }
        if (t instanceof TransientObjectStoreException) {
            return NamespaceErrorCode.SERVICE_UNAVAILABLE;
        }
        if (t instanceof UnsupportedOperationException || t instanceof io.javelin.tx.UnsupportedFeatureException) {
            return NamespaceErrorCode.UNSUPPORTED;
        }
        return NamespaceErrorCode.INTERNAL;
    }

    private static String describe(Throwable t) {
        String m = t.getMessage();
        return m == null || m.isBlank() ? t.getClass().getSimpleName() : m;
    }
}
