package io.javelin.engine.namespace;

import java.util.ArrayList;
import java.util.List;

/**
 * The identifier of a namespace or table: its path of names from the root (the root namespace is the
 * empty path). Every name is checked here, once, so nothing hostile ({@code ..}, separators, control
 * characters, escapes) ever reaches a storage path.
 */
public record ObjectId(List<String> parts) {

    /** The delimiter the directory namespace joins names with, and the REST default. */
    public static final String DEFAULT_DELIMITER = "$";
    static final int MAX_NAME_LENGTH = 255;

    public ObjectId {
        parts = List.copyOf(parts);
        for (String p : parts) {
            checkName(p);
        }
    }

    public static ObjectId of(String... parts) {
        return new ObjectId(List.of(parts));
    }

    public static ObjectId root() {
        return new ObjectId(List.of());
    }

    /** Parses a path segment as the REST spec writes it: names joined by {@code delimiter}; the delimiter alone is the root. */
    public static ObjectId parse(String joined, String delimiter) {
        if (delimiter == null || delimiter.isEmpty()) {
            delimiter = DEFAULT_DELIMITER;
        }
        if (joined == null || joined.isEmpty() || joined.equals(delimiter)) {
            return root();
        }
        List<String> out = new ArrayList<>();
        int from = 0;
        while (true) {
            int at = joined.indexOf(delimiter, from);
            if (at < 0) {
                out.add(joined.substring(from));
                break;
            }
            out.add(joined.substring(from, at));
            from = at + delimiter.length();
        }
        return new ObjectId(out);
    }

    static void checkName(String name) {
        if (name == null || name.isEmpty()) {
            throw NamespaceException.invalid("An identifier has an empty name");
        }
        if (name.length() > MAX_NAME_LENGTH) {
            throw NamespaceException.invalid("Name longer than " + MAX_NAME_LENGTH + " characters");
        }
        if (name.equals(".") || name.equals("..")) {
            throw NamespaceException.invalid("Name '" + name + "' is not allowed");
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c < 0x20 || c == 0x7f || c == '/' || c == '\\' || c == '$' || c == '%' || c == ':') {
                throw NamespaceException.invalid("Name '" + printable(name) + "' has a character that is not allowed ("
                        + (c < 0x20 || c == 0x7f ? "control character" : "'" + c + "'") + ")");
            }
        }
    }

    private static String printable(String s) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < s.length() && i < 64; i++) {
            char c = s.charAt(i);
            b.append(c < 0x20 || c == 0x7f ? '?' : c);
        }
        return b.toString();
    }

    public boolean isRoot() {
        return parts.isEmpty();
    }

    /** The last name (a table's or namespace's own name). */
    public String name() {
        if (parts.isEmpty()) {
            throw NamespaceException.invalid("The root namespace has no name");
        }
        return parts.getLast();
    }

    public ObjectId parent() {
        if (parts.isEmpty()) {
            throw NamespaceException.invalid("The root namespace has no parent");
        }
        return new ObjectId(parts.subList(0, parts.size() - 1));
    }

    public ObjectId child(String name) {
        List<String> p = new ArrayList<>(parts);
        p.add(name);
        return new ObjectId(p);
    }

    /** The names joined by {@code $}: the {@code object_id} of the directory namespace's manifest. */
    public String joined() {
        return String.join(DEFAULT_DELIMITER, parts);
    }

    public String joined(String delimiter) {
        return isRoot() ? delimiter : String.join(delimiter, parts);
    }

    @Override
    public String toString() {
        return isRoot() ? "<root>" : joined();
    }
}
