package io.javelin.engine.filter;

import io.javelin.engine.jsonb.Jsonb;
import io.javelin.engine.jsonb.JsonbException;
import io.javelin.engine.jsonb.JsonbPath;
import io.javelin.engine.jsonb.JsonbValues;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The JSON functions over Lance's {@code lance.json} columns (JSONB bytes), with lance-core 7.0.0's results:
 * a missing member or a JSON null is NULL; a value the strict conversion rejects ({@code json_get_int} of
 * {@code "abc"}, {@code json_get_string} of an object) fails the whole filter, as in Lance. Each row's document
 * is copied once into a reused scratch array and navigated in place.
 */
final class JsonbFunctions {

    private JsonbFunctions() {
    }

    /** What a kernel makes of the value found in one row (never {@link Jsonb#ABSENT}). */
    @FunctionalInterface
    interface Found<T> {
        T apply(byte[] doc, long ref);
    }

    private static JsonbPath path(Expr.Call c, List<Predicate.Node> a, Binding b, boolean jsonPath) {
        String text = Functions.constantString(c, a, 1, b, jsonPath ? "JSON path" : "key or index");
        try {
            return jsonPath ? JsonbPath.parse(text) : JsonbPath.key(text);
        } catch (JsonbPath.Unsupported e) {
            throw b.error(c.args().get(1), c.name() + ": " + e.getMessage() + " by Javelin");
        } catch (IllegalArgumentException e) {
            throw b.error(c.args().get(1), c.name() + ": " + e.getMessage());
        }
    }

    private static FilterEvaluationException failed(Expr.Call c, JsonbException e) {
        return new FilterEvaluationException(c.name() + ": " + e.getMessage());
    }

    /** Per-thread scratch for kernels that run row by row inside another kernel (bound nodes are shared by threads). */
    private static final ThreadLocal<Doc> SCRATCH = ThreadLocal.withInitial(Doc::new);

    /** Scratch holding one row's document. */
    private static final class Doc {
        byte[] buf = new byte[256];
        int len;

        void load(Values.Bytes v, int row) {
            int n = (int) (v.end(row) - v.start(row));
            if (n > buf.length) {
                buf = new byte[Math.max(n, buf.length * 2)];
            }
            len = v.copy(row, buf);
        }
    }

    static Predicate.Node extract(Expr.Call c, List<Predicate.Node> a, Binding b) {
        JsonbPath p = path(c, a, b, true);
        return bytes(c, a, ValueType.STRING, p, (doc, ref) -> JsonbValues.toJson(doc, ref).getBytes(StandardCharsets.UTF_8));
    }

    static Predicate.Node get(Expr.Call c, List<Predicate.Node> a, Binding b) {
        JsonbPath p = path(c, a, b, false);
        return bytes(c, a, ValueType.JSONB, p, Jsonb::document);
    }

    static Predicate.Node getString(Expr.Call c, List<Predicate.Node> a, Binding b) {
        JsonbPath p = path(c, a, b, false);
        return bytes(c, a, ValueType.STRING, p, (doc, ref) -> Jsonb.type(ref) == Jsonb.NULL ? null
                : JsonbValues.toStr(doc, ref).getBytes(StandardCharsets.UTF_8));
    }

    private static Predicate.Node bytes(Expr.Call c, List<Predicate.Node> a, ValueType type, JsonbPath p, Found<byte[]> fn) {
        return Strict.bytes(type, List.of(a.getFirst()), (v, i, out) -> {
            byte[] r = apply(c, Strict.str(v, 0), i, SCRATCH.get(), p, fn);
            if (r == null) {
                return false;
            }
            out.put(r);
            return true;
        });
    }

    private static <T> T apply(Expr.Call c, Values.Bytes in, int row, Doc doc, JsonbPath p, Found<T> fn) {
        doc.load(in, row);
        try {
            long ref = p.find(doc.buf, 0, doc.len);
            return ref == Jsonb.ABSENT ? null : fn.apply(doc.buf, ref);
        } catch (JsonbException e) {
            throw failed(c, e);
        }
    }

    static Predicate.Node getInt(Expr.Call c, List<Predicate.Node> a, Binding b) {
        return number(c, a, b, true);
    }

    static Predicate.Node getFloat(Expr.Call c, List<Predicate.Node> a, Binding b) {
        return number(c, a, b, false);
    }

    private static Predicate.Node number(Expr.Call c, List<Predicate.Node> a, Binding b, boolean integer) {
        JsonbPath p = path(c, a, b, false);
        Predicate.Node in = a.getFirst();
        return Nodes.of(integer ? ValueType.INT : ValueType.FLOAT, (batch, rows) -> {
            Doc doc = new Doc();
            Values.Bytes s = (Values.Bytes) in.eval(batch, rows);
            long[] valid = new long[Bits.words(rows)];
            long[] longs = integer ? new long[rows] : null;
            double[] doubles = integer ? null : new double[rows];
            for (int i = 0; i < rows; i++) {
                if (!s.isValid(i)) {
                    continue;
                }
                doc.load(s, i);
                try {
                    long ref = p.find(doc.buf, 0, doc.len);
                    if (ref == Jsonb.ABSENT || Jsonb.type(ref) == Jsonb.NULL) {
                        continue;
                    }
                    if (integer) {
                        longs[i] = JsonbValues.toI64(doc.buf, ref);
                    } else {
                        doubles[i] = JsonbValues.toF64(doc.buf, ref);
                    }
                } catch (JsonbException e) {
                    throw failed(c, e);
                }
                Bits.set(valid, i);
            }
            return integer ? new Values.Longs(longs, valid, false, false, rows) : new Values.Doubles(doubles, valid, false, rows);
        });
    }

    /** json_get_bool; json_exists (path found), json_array_contains (an element equals the text, quoted or not). */
    static Predicate.Node getBool(Expr.Call c, List<Predicate.Node> a, Binding b) {
        JsonbPath p = path(c, a, b, false);
        return bools(c, a.getFirst(), p, null, (doc, ref) -> Jsonb.type(ref) == Jsonb.NULL ? null : JsonbValues.toBool(doc, ref));
    }

    static Predicate.Node exists(Expr.Call c, List<Predicate.Node> a, Binding b) {
        JsonbPath p = path(c, a, b, true);
        return bools(c, a.getFirst(), p, false, (doc, ref) -> true);
    }

    static Predicate.Node arrayContains(Expr.Call c, List<Predicate.Node> a, Binding b) {
        JsonbPath p = path(c, a, b, true);
        Functions.requireString(c, a, 2, b);
        String want = Functions.constantString(c, a, 2, b, "value");
        String quoted = "\"" + want + "\"";
        return bools(c, a.getFirst(), p, false, (doc, ref) -> {
            if (!Jsonb.isArray(doc, ref)) {
                return false;
            }
            for (int k = 0, n = Jsonb.count(doc, ref); k < n; k++) {
                String e = JsonbValues.toJson(doc, Jsonb.element(doc, ref, k));
                if (e.equals(want) || e.equals(quoted)) {
                    return true;
                }
            }
            return false;
        });
    }

    /** A boolean kernel; {@code absent} is the answer when the path finds nothing (null = NULL). */
    private static Predicate.Node bools(Expr.Call c, Predicate.Node in, JsonbPath p, Boolean absent, Found<Boolean> fn) {
        return Nodes.of(ValueType.BOOL, (batch, rows) -> {
            Doc doc = new Doc();
            Values.Bytes s = (Values.Bytes) in.eval(batch, rows);
            long[] valid = new long[Bits.words(rows)];
            long[] value = new long[Bits.words(rows)];
            for (int i = 0; i < rows; i++) {
                if (!s.isValid(i)) {
                    continue;
                }
                Boolean r = apply(c, s, i, doc, p, fn);
                if (r == null) {
                    r = absent;
                }
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

    static Predicate.Node arrayLength(Expr.Call c, List<Predicate.Node> a, Binding b) {
        JsonbPath p = path(c, a, b, true);
        Predicate.Node in = a.getFirst();
        return Nodes.of(ValueType.INT, (batch, rows) -> {
            Doc doc = new Doc();
            Values.Bytes s = (Values.Bytes) in.eval(batch, rows);
            long[] valid = new long[Bits.words(rows)];
            long[] out = new long[rows];
            for (int i = 0; i < rows; i++) {
                if (!s.isValid(i)) {
                    continue;
                }
                Integer n = apply(c, s, i, doc, p, (d, ref) -> Jsonb.isArray(d, ref) ? Jsonb.count(d, ref) : 0);
                if (n != null) {
                    out[i] = n;
                    Bits.set(valid, i);
                }
            }
            return new Values.Longs(out, valid, false, false, rows);
        });
    }
}
