package io.javelin.engine.jsonb;

import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * JSON text to JSONB as Lance writes a {@code lance.json} column ({@code jsonb::parse_value(..).to_vec()}): object
 * keys sorted by their UTF-8 bytes, duplicate keys refused; integers without fraction or exponent become u64 when
 * non-negative, i64 when negative, other numbers f64; empty text is JSON null. Only standard JSON (RFC 8259) is
 * accepted here; the crate's lenient extras (single quotes, NaN, hex numbers) are refused with a
 * {@link JsonbException} naming the position.
 */
public final class JsonbEncoder {

    private static final BigInteger U64_MAX = new BigInteger("18446744073709551615");

    private final String text;
    private int i;

    private JsonbEncoder(String text) {
        this.text = text;
    }

    private record Item(int type, byte[] payload) {
    }

    public static byte[] encode(String json) {
        JsonbEncoder p = new JsonbEncoder(json);
        p.ws();
        Item root = p.i == json.length() ? new Item(Jsonb.NULL, new byte[0]) : p.value();
        p.ws();
        if (p.i != json.length()) {
            throw p.error("unexpected trailing characters");
        }
        if (root.type() == Jsonb.CONTAINER) {
            return root.payload();
        }
        byte[] out = new byte[8 + root.payload().length];
        Jsonb.putU32(out, 0, Jsonb.SCALAR_TAG);
        Jsonb.putU32(out, 4, root.type() << 28 | root.payload().length);
        System.arraycopy(root.payload(), 0, out, 8, root.payload().length);
        return out;
    }

    private JsonbException error(String what) {
        return new JsonbException("invalid JSON at character " + i + ": " + what);
    }

    private void ws() {
        while (i < text.length()) {
            char c = text.charAt(i);
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                return;
            }
            i++;
        }
    }

    private Item value() {
        ws();
        if (i >= text.length()) {
            throw error("a value is missing");
        }
        char c = text.charAt(i);
        return switch (c) {
            case '{' -> object();
            case '[' -> array();
            case '"' -> new Item(Jsonb.STRING, string().getBytes(StandardCharsets.UTF_8));
            case 't' -> word("true", Jsonb.TRUE);
            case 'f' -> word("false", Jsonb.FALSE);
            case 'n' -> word("null", Jsonb.NULL);
            default -> {
                if (c == '-' || c >= '0' && c <= '9') {
                    yield number();
                }
                throw error("unexpected '" + c + "'");
            }
        };
    }

    private Item word(String w, int type) {
        if (!text.startsWith(w, i)) {
            throw error("expected " + w);
        }
        i += w.length();
        return new Item(type, new byte[0]);
    }

    private Item number() {
        int start = i;
        if (text.charAt(i) == '-') {
            i++;
        }
        int intStart = i;
        while (i < text.length() && Character.isDigit(text.charAt(i)) && text.charAt(i) < 128) {
            i++;
        }
        if (i == intStart || text.charAt(intStart) == '0' && i - intStart > 1) {
            throw error("malformed number");
        }
        boolean integer = true;
        if (i < text.length() && text.charAt(i) == '.') {
            integer = false;
            i++;
            int f = i;
            while (i < text.length() && text.charAt(i) >= '0' && text.charAt(i) <= '9') {
                i++;
            }
            if (i == f) {
                throw error("malformed number");
            }
        }
        if (i < text.length() && (text.charAt(i) == 'e' || text.charAt(i) == 'E')) {
            integer = false;
            i++;
            if (i < text.length() && (text.charAt(i) == '+' || text.charAt(i) == '-')) {
                i++;
            }
            int e = i;
            while (i < text.length() && text.charAt(i) >= '0' && text.charAt(i) <= '9') {
                i++;
            }
            if (i == e) {
                throw error("malformed exponent");
            }
        }
        String s = text.substring(start, i);
        if (integer && i - intStart <= 38) {
            BigInteger v = new BigInteger(s);
            if (v.signum() == 0) {
                return new Item(Jsonb.NUMBER, new byte[] {JsonbNumbers.ZERO});
            }
            if (v.signum() > 0 && v.compareTo(U64_MAX) <= 0) {
                return new Item(Jsonb.NUMBER, compact(JsonbNumbers.UINT, v.longValue(), false));
            }
            if (v.bitLength() < 64) {
                return new Item(Jsonb.NUMBER, compact(JsonbNumbers.INT, v.longValue(), true));
            }
        }
        return new Item(Jsonb.NUMBER, float64(Double.parseDouble(s)));
    }

    /** The narrowest of 1, 2, 4, 8 bytes holding {@code v}. */
    private static byte[] compact(int tag, long v, boolean signed) {
        int n;
        if (signed) {
            n = v == (byte) v ? 1 : v == (short) v ? 2 : v == (int) v ? 4 : 8;
        } else {
            n = Long.compareUnsigned(v, 0xFF) <= 0 ? 1 : Long.compareUnsigned(v, 0xFFFF) <= 0 ? 2
                    : Long.compareUnsigned(v, 0xFFFFFFFFL) <= 0 ? 4 : 8;
        }
        byte[] out = new byte[1 + n];
        out[0] = (byte) tag;
        for (int k = 0; k < n; k++) {
            out[n - k] = (byte) (v >>> 8 * k);
        }
        return out;
    }

    static byte[] float64(double d) {
        if (Double.isNaN(d)) {
            return new byte[] {JsonbNumbers.NAN};
        }
        if (Double.isInfinite(d)) {
            return new byte[] {(byte) (d > 0 ? JsonbNumbers.INF : JsonbNumbers.NEG_INF)};
        }
        byte[] out = new byte[9];
        out[0] = (byte) JsonbNumbers.FLOAT;
        long bits = Double.doubleToRawLongBits(d);
        for (int k = 0; k < 8; k++) {
            out[8 - k] = (byte) (bits >>> 8 * k);
        }
        return out;
    }

    private String string() {
        i++;
        StringBuilder sb = new StringBuilder();
        while (true) {
            if (i >= text.length()) {
                throw error("unterminated string");
            }
            char c = text.charAt(i++);
            if (c == '"') {
                return sb.toString();
            }
            if (c < 0x20) {
                throw error("control character in a string");
            }
            if (c != '\\') {
                sb.append(c);
                continue;
            }
            if (i >= text.length()) {
                throw error("unterminated escape");
            }
            char e = text.charAt(i++);
            switch (e) {
                case '"', '\\', '/' -> sb.append(e);
                case 'b' -> sb.append('\b');
                case 'f' -> sb.append('\f');
                case 'n' -> sb.append('\n');
                case 'r' -> sb.append('\r');
                case 't' -> sb.append('\t');
                case 'u' -> {
                    if (i + 4 > text.length()) {
                        throw error("short \\u escape");
                    }
                    try {
                        sb.append((char) Integer.parseInt(text.substring(i, i + 4), 16));
                    } catch (NumberFormatException x) {
                        throw error("bad \\u escape");
                    }
                    i += 4;
                }
                default -> throw error("unknown escape \\" + e);
            }
        }
    }

    private Item array() {
        i++;
        List<Item> items = new ArrayList<>();
        ws();
        if (i < text.length() && text.charAt(i) == ']') {
            i++;
        } else {
            while (true) {
                items.add(value());
                ws();
                if (i < text.length() && text.charAt(i) == ',') {
                    i++;
                } else if (i < text.length() && text.charAt(i) == ']') {
                    i++;
                    break;
                } else {
                    throw error("expected ',' or ']'");
                }
            }
        }
        return container(Jsonb.ARRAY_TAG, List.of(), items);
    }

    private Item object() {
        i++;
        List<byte[]> keys = new ArrayList<>();
        List<Item> values = new ArrayList<>();
        ws();
        if (i < text.length() && text.charAt(i) == '}') {
            i++;
        } else {
            while (true) {
                ws();
                if (i >= text.length() || text.charAt(i) != '"') {
                    throw error("expected a member name");
                }
                keys.add(string().getBytes(StandardCharsets.UTF_8));
                ws();
                if (i >= text.length() || text.charAt(i) != ':') {
                    throw error("expected ':'");
                }
                i++;
                values.add(value());
                ws();
                if (i < text.length() && text.charAt(i) == ',') {
                    i++;
                } else if (i < text.length() && text.charAt(i) == '}') {
                    i++;
                    break;
                } else {
                    throw error("expected ',' or '}'");
                }
            }
        }
        Integer[] order = new Integer[keys.size()];
        for (int k = 0; k < order.length; k++) {
            order[k] = k;
        }
        Arrays.sort(order, (a, b) -> Arrays.compareUnsigned(keys.get(a), keys.get(b)));
        List<byte[]> sortedKeys = new ArrayList<>();
        List<Item> sortedValues = new ArrayList<>();
        for (int k = 0; k < order.length; k++) {
            if (k > 0 && Arrays.equals(keys.get(order[k]), keys.get(order[k - 1]))) {
                throw error("duplicate object attribute \"" + new String(keys.get(order[k]), StandardCharsets.UTF_8) + "\"");
            }
            sortedKeys.add(keys.get(order[k]));
            sortedValues.add(values.get(order[k]));
        }
        return container(Jsonb.OBJECT_TAG, sortedKeys, sortedValues);
    }

    private static Item container(int tag, List<byte[]> keys, List<Item> values) {
        int n = values.size();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] head = new byte[4 + 4 * (keys.size() + n)];
        Jsonb.putU32(head, 0, tag | n);
        int e = 4;
        for (byte[] k : keys) {
            Jsonb.putU32(head, e, Jsonb.STRING << 28 | k.length);
            e += 4;
        }
        for (Item v : values) {
            Jsonb.putU32(head, e, v.type() << 28 | v.payload().length);
            e += 4;
        }
        out.writeBytes(head);
        keys.forEach(out::writeBytes);
        values.forEach(v -> out.writeBytes(v.payload()));
        return new Item(Jsonb.CONTAINER, out.toByteArray());
    }
}
