package io.javelin.objectstore;

/** Validation of object keys. */
public final class ObjectPaths {

    private ObjectPaths() {
    }

    /** Checks {@code path} is a relative key that stays inside the store root; returns it. */
    public static String checkKey(String path) {
        if (path == null) {
            throw new InvalidPathException("null", "path is null");
        }
        if (path.isEmpty()) {
            throw new InvalidPathException(path, "empty");
        }
        if (path.endsWith("/")) {
            throw new InvalidPathException(path, "ends with '/'; objects are not directories");
        }
        checkSegments(path);
        return path;
    }

    /** Checks a listing prefix: empty is allowed, a trailing '/' is allowed. */
    public static String checkPrefix(String prefix) {
        if (prefix == null || prefix.isEmpty()) {
            return "";
        }
        String body = prefix.endsWith("/") ? prefix.substring(0, prefix.length() - 1) : prefix;
        if (body.isEmpty()) {
            throw new InvalidPathException(prefix, "a prefix cannot be '/' alone");
        }
        checkSegments(body);
        return prefix;
    }

    private static void checkSegments(String path) {
        if (path.startsWith("/")) {
            throw new InvalidPathException(path, "absolute; keys are relative to the store root");
        }
        if (path.indexOf('\\') >= 0) {
            throw new InvalidPathException(path, "contains '\\'");
        }
        for (int i = 0; i < path.length(); i++) {
            char c = path.charAt(i);
            if (c < 0x20 || c == 0x7f) {
                throw new InvalidPathException(path, "contains control character 0x" + Integer.toHexString(c));
            }
        }
        for (String segment : path.split("/", -1)) {
            if (segment.isEmpty()) {
                throw new InvalidPathException(path, "empty segment");
            }
            if (segment.equals(".") || segment.equals("..")) {
                throw new InvalidPathException(path, "'" + segment + "' segment would escape or alias the store root");
            }
        }
    }

    /** {@code root + "/" + key} for a possibly-empty root prefix. */
    public static String join(String rootPrefix, String key) {
        if (rootPrefix.isEmpty()) {
            return key;
        }
        return rootPrefix.endsWith("/") ? rootPrefix + key : rootPrefix + "/" + key;
    }
}
