package io.javelin.engine.jsonb;

import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/**
 * JSONB values as text and as SQL scalars, with the {@code jsonb} crate's rules that Lance's JSON functions use:
 * {@link #toJson} is its compact serialization ({@code json_extract}), the {@code to*} conversions are its strict
 * casts ({@code json_get_string/int/float/bool}), throwing {@link JsonbException} where it reports InvalidCast.
 */
public final class JsonbValues {

    /** Rust's {@code str::parse::<f64>} grammar. */
    private static final Pattern RUST_FLOAT = Pattern.compile(
            "[+-]?(?:(?i:inf|infinity|nan)|(?:\\d+\\.?\\d*|\\.\\d+)(?:[eE][+-]?\\d+)?)");
    private static final Pattern RUST_INT = Pattern.compile("[+-]?\\d+");

    private JsonbValues() {
    }

    static JsonbException invalidCast(String to) {
        return new JsonbException("Failed to convert to " + to + ": InvalidCast");
    }

    public static String string(byte[] b, long ref) {
        return new String(b, Jsonb.offset(ref), Jsonb.length(ref), StandardCharsets.UTF_8);
    }

    /** {@code to_str}: strings as themselves, numbers and booleans as text; containers do not convert. */
    public static String toStr(byte[] b, long ref) {
        return switch (Jsonb.type(ref)) {
            case Jsonb.STRING -> string(b, ref);
            case Jsonb.NUMBER -> JsonbNumbers.display(b, ref);
            case Jsonb.TRUE -> "true";
            case Jsonb.FALSE -> "false";
            default -> throw invalidCast("string");
        };
    }

    /** {@code to_i64}: booleans 1/0, numbers rounded half away from zero, integer or float strings. */
    public static long toI64(byte[] b, long ref) {
        Long v = switch (Jsonb.type(ref)) {
            case Jsonb.TRUE -> 1L;
            case Jsonb.FALSE -> 0L;
            case Jsonb.NUMBER -> JsonbNumbers.toI64(b, ref);
            case Jsonb.STRING -> parseI64(string(b, ref));
            default -> null;
        };
        if (v == null) {
            throw invalidCast("integer");
        }
        return v;
    }

    private static Long parseI64(String s) {
        if (RUST_INT.matcher(s).matches()) {
            try {
                return Long.parseLong(s.startsWith("+") ? s.substring(1) : s);
            } catch (NumberFormatException e) {
                // out of range: fall through to the float reading, as jsonb does
            }
        }
        Double d = parseF64(s);
        return d == null ? null : JsonbNumbers.roundToLong(d);
    }

    private static Double parseF64(String s) {
        if (!RUST_FLOAT.matcher(s).matches()) {
            return null;
        }
        String t = s.toLowerCase(java.util.Locale.ROOT);
        String unsigned = t.startsWith("+") || t.startsWith("-") ? t.substring(1) : t;
        double sign = t.startsWith("-") ? -1 : 1;
        if (unsigned.equals("inf") || unsigned.equals("infinity")) {
            return sign * Double.POSITIVE_INFINITY;
        }
        if (unsigned.equals("nan")) {
            return Double.NaN;
        }
        return Double.parseDouble(s);
    }

    /** {@code to_f64}: booleans 1/0, numbers, numeric strings. */
    public static double toF64(byte[] b, long ref) {
        Double v = switch (Jsonb.type(ref)) {
            case Jsonb.TRUE -> 1.0;
            case Jsonb.FALSE -> 0.0;
            case Jsonb.NUMBER -> JsonbNumbers.asDouble(b, ref);
            case Jsonb.STRING -> parseF64(string(b, ref));
            default -> null;
        };
        if (v == null) {
            throw invalidCast("float");
        }
        return v;
    }

    /** {@code to_bool}: booleans, and the strings true/yes/false/no in any case; numbers do not convert. */
    public static boolean toBool(byte[] b, long ref) {
        switch (Jsonb.type(ref)) {
            case Jsonb.TRUE:
                return true;
            case Jsonb.FALSE:
                return false;
            case Jsonb.STRING: {
                String s = string(b, ref);
                if (s.equalsIgnoreCase("true") || s.equalsIgnoreCase("yes")) {
                    return true;
                }
                if (s.equalsIgnoreCase("false") || s.equalsIgnoreCase("no")) {
                    return false;
                }
                throw invalidCast("boolean");
            }
            default:
                throw invalidCast("boolean");
        }
    }

    /** The value as compact JSON text (serde_json's form: keys in stored order, minimal escapes). */
    public static String toJson(byte[] b, long ref) {
        StringBuilder sb = new StringBuilder(Math.min(1 << 16, Math.max(16, Jsonb.length(ref))));
        write(b, ref, sb);
        return sb.toString();
    }

    public static void write(byte[] b, long ref, StringBuilder sb) {
        switch (Jsonb.type(ref)) {
            case Jsonb.NULL -> sb.append("null");
            case Jsonb.TRUE -> sb.append("true");
            case Jsonb.FALSE -> sb.append("false");
            case Jsonb.NUMBER -> sb.append(JsonbNumbers.json(b, ref));
            case Jsonb.STRING -> quote(string(b, ref), sb);
            case Jsonb.CONTAINER -> container(b, ref, sb);
            default -> throw new JsonbException("JSONB extension values (dates, binary) are not JSON and Lance does not write them");
        }
    }

    private static void container(byte[] b, long ref, StringBuilder sb) {
        int n = Jsonb.count(b, ref);
        if (Jsonb.isArray(b, ref)) {
            sb.append('[');
            for (int k = 0; k < n; k++) {
                if (k > 0) {
                    sb.append(',');
                }
                write(b, Jsonb.element(b, ref, k), sb);
            }
            sb.append(']');
            return;
        }
        int at = Jsonb.offset(ref);
        int end = at + Jsonb.length(ref);
        int keyAt = at + 4 + 8 * n;
        int[] keyStarts = new int[n];
        int[] keyLengths = new int[n];
        for (int k = 0; k < n; k++) {
            keyStarts[k] = keyAt;
            keyLengths[k] = Jsonb.u32(b, at + 4 + 4 * k, end) & 0x0FFFFFFF;
            keyAt += keyLengths[k];
            if (keyAt > end || keyAt < 0) {
                throw Jsonb.corrupt("keys past the container's end");
            }
        }
        sb.append('{');
        for (int k = 0; k < n; k++) {
            if (k > 0) {
                sb.append(',');
            }
            byte[] key = java.util.Arrays.copyOfRange(b, keyStarts[k], keyStarts[k] + keyLengths[k]);
            quote(new String(key, StandardCharsets.UTF_8), sb);
            sb.append(':');
            write(b, Jsonb.member(b, ref, key), sb);
        }
        sb.append('}');
    }

    /** serde_json's string escapes: quote, backslash, \b \f \n \r \t, other controls as \\u00xx. */
    static void quote(String s, StringBuilder sb) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\b' -> sb.append("\\b");
                case '\f' -> sb.append("\\f");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20) {
                        sb.append("\\u00").append(Character.forDigit(c >> 4, 16)).append(Character.forDigit(c & 15, 16));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }
}
