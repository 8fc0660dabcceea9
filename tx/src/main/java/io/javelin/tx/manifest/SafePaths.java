package io.javelin.tx.manifest;

import io.javelin.tx.InvalidTableMetadataException;

/**
 * Paths stored in table metadata are relative to a directory of the dataset ({@code data/},
 * {@code _deletions/}, {@code _transactions/}). A hostile manifest must not make us read or, worse,
 * delete outside the dataset, so anything absolute, URI-like or climbing out is rejected.
 */
public final class SafePaths {

    private SafePaths() {
    }

    /** Checks a relative path of possibly several {@code /}-separated segments. */
    public static String checkRelative(String what, String path) {
        if (path == null || path.isEmpty()) {
            throw new InvalidTableMetadataException(what + " path is empty");
        }
        if (path.startsWith("/") || path.indexOf('\\') >= 0 || path.indexOf(':') >= 0 || path.indexOf('\0') >= 0) {
            throw new InvalidTableMetadataException(what + " path is not a relative path inside the dataset: " + path);
        }
        String lower = path.toLowerCase(java.util.Locale.ROOT);
        if (lower.contains("%2e") || lower.contains("%2f") || lower.contains("%5c") || lower.contains("%00")) {
            // never written by Lance; only useful to smuggle "..", "/" or "\\" past a check that a later
            // URL decoding would undo
            throw new InvalidTableMetadataException(what + " path contains a URL-encoded '.', '/', '\\' or NUL: " + path);
        }
        for (String segment : path.split("/", -1)) {
            if (segment.isEmpty() || segment.equals(".") || segment.equals("..")) {
                throw new InvalidTableMetadataException(what + " path escapes its directory: " + path);
            }
        }
        return path;
    }

    /** Checks a single file name (no directory part at all). */
    public static String checkFileName(String what, String name) {
        checkRelative(what, name);
        if (name.indexOf('/') >= 0) {
            throw new InvalidTableMetadataException(what + " must be a bare file name: " + name);
        }
        return name;
    }
}
