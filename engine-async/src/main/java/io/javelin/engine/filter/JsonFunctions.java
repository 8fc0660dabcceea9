package io.javelin.engine.filter;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * JSON functions (spec 001 "JSON Support"). Over Lance's JSONB {@code lance.json} columns they are
 * {@link JsonbFunctions}, with lance-core's results; over JSON text (Utf8 columns, a Javelin extension: Lance
 * accepts only JSONB) they are evaluated here on the text, where what cannot convert is NULL rather than an
 * error. Paths ({@code $.a.b[0]}) and keys must be constants.
 */
final class JsonFunctions {

    private JsonFunctions() {
    }

    static void register(Functions.Registry r) {
        r.add("json_extract", 2, 2, either(JsonbFunctions::extract, (c, a, b) -> text(c, a, b, true, false)));
        r.add("json_get", 2, 2, either(JsonbFunctions::get, (c, a, b) -> text(c, a, b, false, false)));
        r.add("json_get_string", 2, 2, either(JsonbFunctions::getString, (c, a, b) -> text(c, a, b, false, true)));
        r.add("json_get_int", 2, 2, either(JsonbFunctions::getInt, (c, a, b) -> number(c, a, b, true)));
        r.add("json_get_float", 2, 2, either(JsonbFunctions::getFloat, (c, a, b) -> number(c, a, b, false)));
        r.add("json_get_bool", 2, 2, either(JsonbFunctions::getBool, JsonFunctions::bool));
        r.add("json_exists", 2, 2, either(JsonbFunctions::exists, JsonFunctions::exists));
        r.add("json_array_contains", 3, 3, either(JsonbFunctions::arrayContains, JsonFunctions::arrayContains));
        r.add("json_array_length", 2, 2, either(JsonbFunctions::arrayLength, JsonFunctions::arrayLength));
    }

    /**
     * JSONB ({@code lance.json}) arguments go to {@link JsonbFunctions}, JSON text to this class; a NULL path,
     * key or value makes the result NULL, as in Lance.
     */
    private static Functions.FunctionBinder either(Functions.FunctionBinder jsonb, Functions.FunctionBinder text) {
        return (c, a, b) -> {
            for (int k = 1; k < a.size(); k++) {
                if (a.get(k).type().isNull()) {
                    return Nodes.nul();
                }
            }
            if (a.getFirst().type().isJsonb()) {
                return jsonb.bind(c, a, b);
            }
            Functions.require(c, a, 0, b, "a JSON (lance.json) column or JSON text", ValueType.Kind.STRING);
            return text.bind(c, a, b);
        };
    }

    private static List<JsonText.Step> steps(Expr.Call c, List<Predicate.Node> a, Binding b, boolean jsonPath) {
        String path = Functions.constantString(c, a, 1, b, jsonPath ? "JSON path" : "key or index");
        try {
            return JsonText.path(path, jsonPath);
        } catch (IllegalArgumentException e) {
            throw b.error(c.args().get(1), "invalid JSON path '" + path + "': " + e.getMessage());
        }
    }

    private static List<Predicate.Node> json(List<Predicate.Node> a) {
        return List.of(a.getFirst());
    }

    /** json_extract / json_get (JSON text of the value) and json_get_string (the string itself). */
    private static Predicate.Node text(Expr.Call c, List<Predicate.Node> a, Binding b, boolean jsonPath, boolean unquote) {
        List<JsonText.Step> steps = steps(c, a, b, jsonPath);
        return Strict.bytes(ValueType.STRING, json(a), (v, i, out) -> {
            Values.Bytes s = Strict.str(v, 0);
            JsonText j = new JsonText(s, s.end(i));
            long p = j.find(s.start(i), steps);
            if (p < 0) {
                return false;
            }
            byte first = j.at(p);
            String value;
            if (!unquote) {
                value = j.compact(p);
            } else if (first == '"') {
                value = j.string(p);
            } else if (first == '{' || first == '[' || first == 'n') {
                return false;
            } else {
                value = j.compact(p);
            }
            if (value == null) {
                return false;
            }
            out.put(value.getBytes(StandardCharsets.UTF_8));
            return true;
        });
    }

    /** The scalar at the path as text (strings decoded), or null when absent, null or a container. */
    private static String scalar(JsonText j, long p) {
        if (p < 0) {
            return null;
        }
        byte first = j.at(p);
        if (first == '{' || first == '[') {
            return null;
        }
        String t = first == '"' ? j.string(p) : j.compact(p);
        return t == null || first != '"' && t.equals("null") ? null : first == '"' ? "\"" + t : t;
    }

    private static Predicate.Node number(Expr.Call c, List<Predicate.Node> a, Binding b, boolean integer) {
        List<JsonText.Step> steps = steps(c, a, b, false);
        ValueType t = integer ? ValueType.INT : ValueType.FLOAT;
        List<Predicate.Node> in = json(a);
        if (a.getFirst().type().isNull()) {
            return Nodes.nul();
        }
        return Nodes.of(t, (batch, rows) -> {
            Values.Bytes s = (Values.Bytes) in.getFirst().eval(batch, rows);
            long[] valid = new long[Bits.words(rows)];
            long[] longs = integer ? new long[rows] : null;
            double[] doubles = integer ? null : new double[rows];
            for (int i = 0; i < rows; i++) {
                if (!s.isValid(i)) {
                    continue;
                }
                JsonText j = new JsonText(s, s.end(i));
                String x = scalar(j, j.find(s.start(i), steps));
                if (x == null) {
                    continue;
                }
                double d;
                if (x.equals("true") || x.equals("false")) {
                    d = x.equals("true") ? 1 : 0;
                } else {
                    String num = x.startsWith("\"") ? x.substring(1).trim() : x;
                    if (integer && num.matches("-?\\d{1,18}")) {
                        longs[i] = Long.parseLong(num);
                        Bits.set(valid, i);
                        continue;
                    }
                    try {
                        d = Double.parseDouble(num);
                    } catch (NumberFormatException e) {
                        continue;
                    }
                    if (!Double.isFinite(d) && !num.matches("-?\\d.*")) {
                        continue; // "NaN", "Infinity" are not JSON numbers
                    }
                }
                Bits.set(valid, i);
                if (integer) {
                    longs[i] = (long) d;
                } else {
                    doubles[i] = d;
                }
            }
            return integer ? new Values.Longs(longs, valid, false, false, rows) : new Values.Doubles(doubles, valid, false, rows);
        });
    }

    private static Predicate.Node bool(Expr.Call c, List<Predicate.Node> a, Binding b) {
        List<JsonText.Step> steps = steps(c, a, b, false);
        List<Predicate.Node> in = json(a);
        if (a.getFirst().type().isNull()) {
            return Nodes.nul();
        }
        return Nodes.of(ValueType.BOOL, (batch, rows) -> {
            Values.Bytes s = (Values.Bytes) in.getFirst().eval(batch, rows);
            long[] valid = new long[Bits.words(rows)];
            long[] value = new long[Bits.words(rows)];
            for (int i = 0; i < rows; i++) {
                if (!s.isValid(i)) {
                    continue;
                }
                JsonText j = new JsonText(s, s.end(i));
                String x = scalar(j, j.find(s.start(i), steps));
                Boolean r = x == null ? null : switch (x) {
                    case "true", "\"true" -> true;
                    case "false", "\"false" -> false;
                    default -> {
                        try {
                            yield x.startsWith("\"") ? null : Double.parseDouble(x) != 0;
                        } catch (NumberFormatException e) {
                            yield null;
                        }
                    }
                };
                if (r != null) {
                    Bits.set(valid, i);
                    if (r) {
                        Bits.set(value, i);
                    }
                }
            }
            return new Values.Bools(value, valid, rows);
        });
    }

    private static Predicate.Node exists(Expr.Call c, List<Predicate.Node> a, Binding b) {
        List<JsonText.Step> steps = steps(c, a, b, true);
        return Strict.bool(json(a), (v, i) -> {
            Values.Bytes s = Strict.str(v, 0);
            return new JsonText(s, s.end(i)).find(s.start(i), steps) >= 0;
        });
    }

    /** Elements compare as JSON text; a string element also matches its unquoted value. */
    private static Predicate.Node arrayContains(Expr.Call c, List<Predicate.Node> a, Binding b) {
        List<JsonText.Step> steps = steps(c, a, b, true);
        Functions.requireString(c, a, 2, b);
        return Strict.bool(List.of(a.get(0), a.get(2)), (v, i) -> {
            Values.Bytes s = Strict.str(v, 0);
            String want = Utf8.string(Strict.str(v, 1), i);
            JsonText j = new JsonText(s, s.end(i));
            long[] items = j.elements(j.find(s.start(i), steps));
            if (items == null) {
                return false;
            }
            for (long p : items) {
                String text = j.compact(p);
                if (want.equals(text) || j.at(p) == '"' && want.equals(j.string(p))) {
                    return true;
                }
            }
            return false;
        });
    }

    private static Predicate.Node arrayLength(Expr.Call c, List<Predicate.Node> a, Binding b) {
        List<JsonText.Step> steps = steps(c, a, b, true);
        List<Predicate.Node> in = json(a);
        if (a.getFirst().type().isNull()) {
            return Nodes.nul();
        }
        return Nodes.of(ValueType.INT, (batch, rows) -> {
            Values.Bytes s = (Values.Bytes) in.getFirst().eval(batch, rows);
            long[] valid = new long[Bits.words(rows)];
            long[] out = new long[rows];
            for (int i = 0; i < rows; i++) {
                if (!s.isValid(i)) {
                    continue;
                }
                JsonText j = new JsonText(s, s.end(i));
                long p = j.find(s.start(i), steps);
                if (p < 0) {
                    continue;
                }
                long[] items = j.elements(p);
                if (items == null) {
                    throw new FilterEvaluationException("json_array_length: the value at the path is not an array");
                }
                out[i] = items.length;
                Bits.set(valid, i);
            }
            return new Values.Longs(out, valid, false, false, rows);
        });
    }
}
