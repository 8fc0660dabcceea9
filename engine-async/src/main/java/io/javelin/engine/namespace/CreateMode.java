package io.javelin.engine.namespace;

import java.util.Locale;

/** The spec's creation modes of namespaces and tables. */
public enum CreateMode {
    CREATE, EXIST_OK, OVERWRITE;

    /** Parses {@code create}, {@code exist_ok} / {@code ExistOk}, {@code overwrite}; null is CREATE. */
    public static CreateMode parse(String s) {
        if (s == null || s.isBlank()) {
            return CREATE;
        }
        return switch (s.trim().toLowerCase(Locale.ROOT).replace("_", "").replace("-", "")) {
            case "create" -> CREATE;
            case "existok" -> EXIST_OK;
            case "overwrite" -> OVERWRITE;
            default -> throw NamespaceException.invalid("Unknown mode '" + s + "' (create, exist_ok or overwrite)");
        };
    }
}
