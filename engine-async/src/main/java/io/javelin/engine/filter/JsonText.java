package io.javelin.engine.filter;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A navigator over JSON text held in a {@link Values.Bytes} row: finds members and elements by skipping
 * values in place (no tree, no per-row objects). Positions are byte offsets; -1 means "not there".
 * Malformed JSON is treated as absent.
 */
final class JsonText {

    private final Values.Bytes b;
    private final long end;

    JsonText(Values.Bytes b, long end) {
        this.b = b;
        this.end = end;
    }

    /** One path step: a member name, or an array index when {@code index >= 0}. */
    record Step(byte[] key, int index) {
    }

    /**
     * Parses {@code $.a.b[0]}, {@code $['a']} or, for the json_get family, one bare key that is also tried
     * as an array index when it is a number.
     */
    static List<Step> path(String text, boolean jsonPath) {
        List<Step> steps = new ArrayList<>();
        if (!jsonPath) {
            int index = text.matches("\\d{1,9}") ? Integer.parseInt(text) : -1;
            steps.add(new Step(text.getBytes(StandardCharsets.UTF_8), index));
            return steps;
        }
        if (!text.startsWith("$")) {
            throw new IllegalArgumentException("a JSON path starts with '$'");
        }
        int i = 1;
        while (i < text.length()) {
            char c = text.charAt(i);
            if (c == '.') {
                int j = i + 1;
                while (j < text.length() && text.charAt(j) != '.' && text.charAt(j) != '[') {
                    j++;
                }
                if (j == i + 1) {
                    throw new IllegalArgumentException("empty member name at " + i);
                }
                steps.add(new Step(text.substring(i + 1, j).getBytes(StandardCharsets.UTF_8), -1));
                i = j;
            } else if (c == '[') {
                int j = text.indexOf(']', i);
                if (j < 0) {
                    throw new IllegalArgumentException("unclosed '[' at " + i);
                }
                String inner = text.substring(i + 1, j).trim();
                if (inner.length() >= 2 && (inner.startsWith("'") && inner.endsWith("'") || inner.startsWith("\"") && inner.endsWith("\""))) {
                    steps.add(new Step(inner.substring(1, inner.length() - 1).getBytes(StandardCharsets.UTF_8), -1));
                } else if (inner.matches("\\d{1,9}")) {
                    steps.add(new Step(null, Integer.parseInt(inner)));
                } else {
                    throw new IllegalArgumentException("unsupported subscript [" + inner + "]");
                }
                i = j + 1;
            } else {
                throw new IllegalArgumentException("unexpected '" + c + "' at " + i);
            }
        }
        return steps;
    }

    long ws(long p) {
        while (p < end) {
            byte c = b.byteAt(p);
            if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
                break;
            }
            p++;
        }
        return p;
    }

    /** The position after the value starting at {@code p} (after whitespace), or -1 when malformed. */
    long skip(long p) {
        p = ws(p);
        if (p >= end) {
            return -1;
        }
        byte c = b.byteAt(p);
        if (c == '"') {
            return skipString(p);
        }
        if (c == '{' || c == '[') {
            int depth = 0;
            while (p < end) {
                byte x = b.byteAt(p);
                if (x == '"') {
                    p = skipString(p);
                    if (p < 0) {
                        return -1;
                    }
                    continue;
                }
                if (x == '{' || x == '[') {
                    depth++;
                } else if (x == '}' || x == ']') {
                    if (--depth == 0) {
                        return p + 1;
                    }
                }
                p++;
            }
            return -1;
        }
        while (p < end) {
            byte x = b.byteAt(p);
            if (x == ',' || x == '}' || x == ']' || x == ' ' || x == '\n' || x == '\r' || x == '\t') {
                break;
            }
            p++;
        }
        return p;
    }

    private long skipString(long p) {
        p++;
        while (p < end) {
            byte x = b.byteAt(p);
            if (x == '\\') {
                p += 2;
                continue;
            }
            if (x == '"') {
                return p + 1;
            }
            p++;
        }
        return -1;
    }

    /** Follows {@code steps} from the value at {@code p}; the start of the value found, or -1. */
    long find(long p, List<Step> steps) {
        for (Step s : steps) {
            p = ws(p);
            if (p < 0 || p >= end) {
                return -1;
            }
            byte c = b.byteAt(p);
            if (c == '{' && s.key() != null) {
                p = member(p, s.key());
            } else if (c == '[' && s.index() >= 0) {
                p = element(p, s.index());
            } else {
                return -1;
            }
            if (p < 0) {
                return -1;
            }
        }
        return ws(p);
    }

    private long member(long p, byte[] key) {
        p = ws(p + 1);
        if (p < end && b.byteAt(p) == '}') {
            return -1;
        }
        while (p < end) {
            if (b.byteAt(p) != '"') {
                return -1;
            }
            long keyEnd = skipString(p);
            if (keyEnd < 0) {
                return -1;
            }
            boolean match = keyEnd - p - 2 == key.length;
            for (int k = 0; match && k < key.length; k++) {
                match = b.byteAt(p + 1 + k) == key[k];
            }
            p = ws(keyEnd);
            if (p >= end || b.byteAt(p) != ':') {
                return -1;
            }
            if (match) {
                return ws(p + 1);
            }
            p = skip(p + 1);
            if (p < 0) {
                return -1;
            }
            p = ws(p);
            if (p >= end || b.byteAt(p) != ',') {
                return -1;
            }
            p = ws(p + 1);
        }
        return -1;
    }

    private long element(long p, int index) {
        p = ws(p + 1);
        if (p < end && b.byteAt(p) == ']') {
            return -1;
        }
        for (int k = 0; p < end; k++) {
            if (k == index) {
                return p;
            }
            p = skip(p);
            if (p < 0) {
                return -1;
            }
            p = ws(p);
            if (p >= end || b.byteAt(p) != ',') {
                return -1;
            }
            p = ws(p + 1);
        }
        return -1;
    }

    /** The elements' starts of the array at {@code p}, or null when it is not an array. */
    long[] elements(long p) {
        if (p < 0 || p >= end || b.byteAt(p) != '[') {
            return null;
        }
        List<Long> out = new ArrayList<>();
        p = ws(p + 1);
        if (p < end && b.byteAt(p) == ']') {
            return new long[0];
        }
        while (p < end) {
            out.add(p);
            p = skip(p);
            if (p < 0) {
                return null;
            }
            p = ws(p);
            if (p < end && b.byteAt(p) == ']') {
                break;
            }
            if (p >= end || b.byteAt(p) != ',') {
                return null;
            }
            p = ws(p + 1);
        }
        return out.stream().mapToLong(Long::longValue).toArray();
    }

    byte at(long p) {
        return b.byteAt(p);
    }

    /** The value text at {@code p} with whitespace outside strings removed (as Lance serializes JSON). */
    String compact(long p) {
        long q = skip(p);
        if (q < 0) {
            return null;
        }
        StringBuilder sb = new StringBuilder();
        byte[] raw = new byte[(int) (q - p)];
        for (int k = 0; k < raw.length; k++) {
            raw[k] = b.byteAt(p + k);
        }
        String s = new String(raw, StandardCharsets.UTF_8);
        boolean inString = false;
        for (int k = 0; k < s.length(); k++) {
            char c = s.charAt(k);
            if (inString) {
                sb.append(c);
                if (c == '\\' && k + 1 < s.length()) {
                    sb.append(s.charAt(++k));
                } else if (c == '"') {
                    inString = false;
                }
            } else if (c == '"') {
                inString = true;
                sb.append(c);
            } else if (!Character.isWhitespace(c)) {
                sb.append(c);
            }
        }
        return sb.toString();
    }

    /** The decoded string value at {@code p} (which starts with a quote). */
    String string(long p) {
        String quoted = compact(p);
        StringBuilder sb = new StringBuilder();
        for (int k = 1; k < quoted.length() - 1; k++) {
            char c = quoted.charAt(k);
            if (c != '\\' || k + 1 >= quoted.length() - 1) {
                sb.append(c);
                continue;
            }
            char e = quoted.charAt(++k);
            switch (e) {
                case 'n' -> sb.append('\n');
                case 't' -> sb.append('\t');
                case 'r' -> sb.append('\r');
                case 'b' -> sb.append('\b');
                case 'f' -> sb.append('\f');
                case 'u' -> {
                    if (k + 4 < quoted.length()) {
                        sb.append((char) Integer.parseInt(quoted.substring(k + 1, k + 5), 16));
                        k += 4;
                    }
                }
                default -> sb.append(e);
            }
        }
        return sb.toString();
    }
}
