package io.javelin.engine;

/** How {@link Dataset#write} treats an existing dataset (Lance {@code mode}). */
public enum WriteMode {
    /** Fail if the dataset exists. */
    CREATE,
    /** Add fragments to the latest version; the schema must match. */
    APPEND,
    /** Replace all data (and the schema) in a new version; creates the dataset if absent. */
    OVERWRITE;

    public static WriteMode parse(String s) {
        return switch (s.trim().toLowerCase(java.util.Locale.ROOT)) {
            case "create" -> CREATE;
            case "append" -> APPEND;
            case "overwrite" -> OVERWRITE;
            default -> throw new IllegalArgumentException("Unknown write mode: " + s + " (expected create, append or overwrite)");
        };
    }
}
