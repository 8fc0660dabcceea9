package io.javelin.engine.jsonb;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The single-value part of the {@code jsonb} crate's JSON path language, which Lance's {@code json_extract},
 * {@code json_exists}, {@code json_array_contains} and {@code json_array_length} take: {@code $}, {@code .name},
 * {@code ."name"}, {@code ["name"]}, {@code [3]}, {@code [last]}, {@code [last - 1]}, and a leading bare name
 * ({@code a.b} = {@code $.a.b}); the empty path is the whole value. Paths that can select several values
 * (wildcards, ranges, lists, recursive descent, filters) are refused with {@link Unsupported}.
 */
public final class JsonbPath {

    /** A path in the crate's language that this subset does not evaluate. */
    public static final class Unsupported extends IllegalArgumentException {
        Unsupported(String message) {
            super(message);
        }
    }

    /** One step: a member name, or an array index ({@code fromLast}: counted back from the last element). */
    record Step(byte[] key, int index, boolean fromLast) {
    }

    private static final String SPECIAL = " ,.:{}[]()?@$|<>!=+-*/%\"'";

    private final List<Step> steps;

    private JsonbPath(List<Step> steps) {
        this.steps = steps;
    }

    /** A key for {@code json_get*}: a decimal number (Rust usize, optional '+') is an array index, else a member. */
    public static JsonbPath key(String key) {
        if (key.matches("\\+?\\d+")) {
            try {
                return new JsonbPath(List.of(new Step(null, Integer.parseInt(key.startsWith("+") ? key.substring(1) : key), false)));
            } catch (NumberFormatException e) {
                return new JsonbPath(List.of(new Step(null, Integer.MAX_VALUE, false)));
            }
        }
        return new JsonbPath(List.of(new Step(key.getBytes(StandardCharsets.UTF_8), 0, false)));
    }

    public static JsonbPath parse(String text) {
        String p = text.strip();
        List<Step> steps = new ArrayList<>();
        int i = 0;
        if (p.isEmpty()) {
            return new JsonbPath(steps);
        }
        if (p.charAt(0) == '$') {
            i = 1;
        } else {
            int j = raw(p, 0);
            if (j == 0) {
                throw invalid(text, "a path starts with '$' or a name");
            }
            steps.add(new Step(p.substring(0, j).getBytes(StandardCharsets.UTF_8), 0, false));
            i = j;
        }
        while (i < p.length()) {
            char c = p.charAt(i);
            if (p.startsWith("..", i) || p.startsWith(".*", i) || p.startsWith("[*", i) || c == '?' || c == ':') {
                throw new Unsupported("JSON path '" + text + "': wildcards, recursive descent, filters and ':' fields"
                        + " can select several values and are not supported");
            }
            if (c == '.') {
                i++;
                if (i < p.length() && p.charAt(i) == '"') {
                    int j = quoted(p, i, text);
                    steps.add(new Step(p.substring(i + 1, j - 1).getBytes(StandardCharsets.UTF_8), 0, false));
                    i = j;
                } else {
                    int j = raw(p, i);
                    if (j == i) {
                        throw invalid(text, "a name is missing after '.'");
                    }
                    steps.add(new Step(p.substring(i, j).getBytes(StandardCharsets.UTF_8), 0, false));
                    i = j;
                }
            } else if (c == '[') {
                int close = p.indexOf(']', i);
                if (close < 0) {
                    throw invalid(text, "unclosed '['");
                }
                String inner = p.substring(i + 1, close).strip();
                if (inner.startsWith("\"")) {
                    int j = quoted(inner, 0, text);
                    if (j != inner.length()) {
                        throw invalid(text, "unexpected text after a quoted name");
                    }
                    steps.add(new Step(inner.substring(1, inner.length() - 1).getBytes(StandardCharsets.UTF_8), 0, false));
                } else {
                    steps.add(index(inner, text));
                }
                i = close + 1;
            } else {
                throw invalid(text, "unexpected '" + c + "'");
            }
        }
        return new JsonbPath(steps);
    }

    private static Step index(String inner, String text) {
        String s = inner.toLowerCase(java.util.Locale.ROOT);
        if (s.contains(",") || s.contains(" to ") || s.equals("*")) {
            throw new Unsupported("JSON path '" + text + "': index lists and ranges select several values and are not supported");
        }
        if (s.startsWith("last")) {
            String rest = s.substring(4).strip();
            if (rest.isEmpty()) {
                return new Step(null, 0, true);
            }
            char sign = rest.charAt(0);
            if (sign != '-' && sign != '+') {
                throw invalid(text, "expected 'last - n'");
            }
            int n = integer(rest.substring(1).strip(), text);
            return new Step(null, sign == '-' ? -n : n, true);
        }
        return new Step(null, integer(s, text), false);
    }

    private static int integer(String s, String text) {
        if (!s.matches("[+-]?\\d{1,9}")) {
            throw invalid(text, "bad array index '" + s + "'");
        }
        return Integer.parseInt(s.startsWith("+") ? s.substring(1) : s);
    }

    private static int raw(String p, int i) {
        int j = i;
        while (j < p.length() && SPECIAL.indexOf(p.charAt(j)) < 0) {
            if (p.charAt(j) == '\\') {
                throw new Unsupported("JSON path '" + p + "': escapes in names are not supported");
            }
            j++;
        }
        return j;
    }

    private static int quoted(String p, int i, String text) {
        int j = p.indexOf('"', i + 1);
        if (j < 0) {
            throw invalid(text, "unclosed '\"'");
        }
        if (p.substring(i + 1, j).indexOf('\\') >= 0) {
            throw new Unsupported("JSON path '" + text + "': escapes in names are not supported");
        }
        if (j == i + 1) {
            throw invalid(text, "empty quoted name");
        }
        return j + 1;
    }

    private static IllegalArgumentException invalid(String text, String why) {
        return new IllegalArgumentException("invalid JSON path '" + text + "': " + why);
    }

    /** The value the path selects in the document {@code b[start, end)}, or {@link Jsonb#ABSENT}. */
    public long find(byte[] b, int start, int end) {
        long ref = Jsonb.root(b, start, end);
        for (Step s : steps) {
            if (s.key() != null) {
                ref = Jsonb.member(b, ref, s.key());
            } else if (s.fromLast()) {
                ref = Jsonb.isArray(b, ref) ? Jsonb.element(b, ref, (long) Jsonb.count(b, ref) - 1 + s.index()) : Jsonb.ABSENT;
            } else {
                ref = Jsonb.element(b, ref, s.index());
            }
            if (ref == Jsonb.ABSENT) {
                return ref;
            }
        }
        return ref;
    }
}
