package io.javelin.engine.filter;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;

/**
 * String functions with DataFusion's semantics: positions and lengths count characters (Unicode scalar
 * values), positions are 1-based, trims remove spaces unless given characters, {@code concat} skips NULLs
 * while {@code ||} propagates them. ASCII rows take byte-wise fast paths.
 */
final class StringFunctions {

    private StringFunctions() {
    }

    static void register(Functions.Registry r) {
        r.add("lower", 1, 1, (c, a, b) -> caseMap(c, a, b, false));
        r.add("upper", 1, 1, (c, a, b) -> caseMap(c, a, b, true));
        r.add("length", 1, 1, StringFunctions::length);
        r.alias("char_length", "length");
        r.alias("character_length", "length");
        r.add("octet_length", 1, 1, (c, a, b) -> {
            Functions.requireString(c, a, 0, b);
            return Strict.longs(ValueType.INT, a, (v, i) -> Strict.str(v, 0).end(i) - Strict.str(v, 0).start(i));
        });
        r.add("starts_with", 2, 2, (c, a, b) -> twoStrings(c, a, b, (x, xs, xe, y, ys, ye) ->
                xe - xs >= ye - ys && Utf8.regionEquals(x, xs, y, ys, ye)));
        r.add("ends_with", 2, 2, (c, a, b) -> twoStrings(c, a, b, (x, xs, xe, y, ys, ye) ->
                xe - xs >= ye - ys && Utf8.regionEquals(x, xe - (ye - ys), y, ys, ye)));
        r.add("contains", 2, 2, (c, a, b) -> twoStrings(c, a, b, (x, xs, xe, y, ys, ye) ->
                Utf8.indexOf(x, xs, xe, y, ys, ye) >= 0));
        r.add("strpos", 2, 2, StringFunctions::strpos);
        r.alias("instr", "strpos");
        r.add("substr", 2, 3, StringFunctions::substr);
        r.alias("substring", "substr");
        r.add("btrim", 1, 2, (c, a, b) -> trim(c, a, b, true, true));
        r.alias("trim", "btrim");
        r.add("ltrim", 1, 2, (c, a, b) -> trim(c, a, b, true, false));
        r.add("rtrim", 1, 2, (c, a, b) -> trim(c, a, b, false, true));
        r.add("concat", 1, Integer.MAX_VALUE, StringFunctions::concat);
        r.add("||", 2, 2, StringFunctions::concatOperator);
        r.add("replace", 3, 3, StringFunctions::replace);
        r.add("left", 2, 2, (c, a, b) -> leftRight(c, a, b, true));
        r.add("right", 2, 2, (c, a, b) -> leftRight(c, a, b, false));
        r.add("reverse", 1, 1, StringFunctions::reverse);
        Regex.register(r);
    }

    private static Predicate.Node caseMap(Expr.Call c, List<Predicate.Node> a, Binding b, boolean upper) {
        Functions.requireString(c, a, 0, b);
        return Strict.bytes(ValueType.STRING, a, (v, i, out) -> {
            Values.Bytes s = Strict.str(v, 0);
            long start = s.start(i);
            long end = s.end(i);
            if (Utf8.isAscii(s, start, end)) {
                for (long p = start; p < end; p++) {
                    byte x = s.byteAt(p);
                    if (upper && x >= 'a' && x <= 'z' || !upper && x >= 'A' && x <= 'Z') {
                        x ^= 0x20;
                    }
                    out.put(x);
                }
            } else {
                String t = Utf8.string(s, i);
                out.put((upper ? t.toUpperCase(Locale.ROOT) : t.toLowerCase(Locale.ROOT)).getBytes(StandardCharsets.UTF_8));
            }
            return true;
        });
    }

    private static Predicate.Node length(Expr.Call c, List<Predicate.Node> a, Binding b) {
        Functions.requireString(c, a, 0, b);
        return Strict.longs(ValueType.INT, a, (v, i) -> {
            Values.Bytes s = Strict.str(v, 0);
            return Utf8.charCount(s, s.start(i), s.end(i));
        });
    }

    @FunctionalInterface
    interface BytesPredicate {
        boolean test(Values.Bytes x, long xs, long xe, Values.Bytes y, long ys, long ye);
    }

    private static Predicate.Node twoStrings(Expr.Call c, List<Predicate.Node> a, Binding b, BytesPredicate p) {
        Functions.requireString(c, a, 0, b);
        Functions.requireString(c, a, 1, b);
        return Strict.bool(a, (v, i) -> {
            Values.Bytes x = Strict.str(v, 0);
            Values.Bytes y = Strict.str(v, 1);
            return p.test(x, x.start(i), x.end(i), y, y.start(i), y.end(i));
        });
    }

    private static Predicate.Node strpos(Expr.Call c, List<Predicate.Node> a, Binding b) {
        Functions.requireString(c, a, 0, b);
        Functions.requireString(c, a, 1, b);
        return Strict.longs(ValueType.INT, a, (v, i) -> {
            Values.Bytes x = Strict.str(v, 0);
            Values.Bytes y = Strict.str(v, 1);
            long xs = x.start(i);
            long at = Utf8.indexOf(x, xs, x.end(i), y, y.start(i), y.end(i));
            return at < 0 ? 0 : Utf8.charCount(x, xs, at) + 1;
        });
    }

    /** substr(s, start[, count]): the characters in [start, start + count) ∩ [1, length], as in PostgreSQL. */
    private static Predicate.Node substr(Expr.Call c, List<Predicate.Node> a, Binding b) {
        Functions.requireString(c, a, 0, b);
        Functions.requireInteger(c, a, 1, b);
        if (a.size() == 3) {
            Functions.requireInteger(c, a, 2, b);
        }
        boolean counted = a.size() == 3;
        return Strict.bytes(ValueType.STRING, a, (v, i, out) -> {
            Values.Bytes s = Strict.str(v, 0);
            long start = Strict.integer(v, 1, i);
            long from = Math.max(start, 1);
            long to = Long.MAX_VALUE;
            if (counted) {
                long count = Strict.integer(v, 2, i);
                if (count < 0) {
                    throw new FilterEvaluationException("negative substring length not allowed: " + count);
                }
                to = start + count; // exclusive, may be before from
            }
            if (to <= from) {
                return true;
            }
            long ss = s.start(i);
            long se = s.end(i);
            long p = Utf8.skip(s, ss, se, from - 1);
            long q = to == Long.MAX_VALUE ? se : Utf8.skip(s, p, se, to - from);
            out.put(s, p, q);
            return true;
        });
    }

    private static Predicate.Node leftRight(Expr.Call c, List<Predicate.Node> a, Binding b, boolean left) {
        Functions.requireString(c, a, 0, b);
        Functions.requireInteger(c, a, 1, b);
        return Strict.bytes(ValueType.STRING, a, (v, i, out) -> {
            Values.Bytes s = Strict.str(v, 0);
            long n = Strict.integer(v, 1, i);
            long ss = s.start(i);
            long se = s.end(i);
            long len = Utf8.charCount(s, ss, se);
            long keep = n >= 0 ? Math.min(n, len) : Math.max(0, len + n);
            if (left) {
                out.put(s, ss, Utf8.skip(s, ss, se, keep));
            } else {
                out.put(s, Utf8.skip(s, ss, se, len - keep), se);
            }
            return true;
        });
    }

    private static Predicate.Node reverse(Expr.Call c, List<Predicate.Node> a, Binding b) {
        Functions.requireString(c, a, 0, b);
        return Strict.bytes(ValueType.STRING, a, (v, i, out) -> {
            String t = Utf8.string(Strict.str(v, 0), i);
            out.put(new StringBuilder(t).reverse().toString().getBytes(StandardCharsets.UTF_8));
            return true;
        });
    }

    private static Predicate.Node trim(Expr.Call c, List<Predicate.Node> a, Binding b, boolean leading, boolean trailing) {
        Functions.requireString(c, a, 0, b);
        if (a.size() == 2) {
            Functions.requireString(c, a, 1, b);
        }
        boolean custom = a.size() == 2;
        return Strict.bytes(ValueType.STRING, a, (v, i, out) -> {
            Values.Bytes s = Strict.str(v, 0);
            long ss = s.start(i);
            long se = s.end(i);
            if (!custom) {
                while (leading && ss < se && s.byteAt(ss) == ' ') {
                    ss++;
                }
                while (trailing && se > ss && s.byteAt(se - 1) == ' ') {
                    se--;
                }
                out.put(s, ss, se);
                return true;
            }
            String chars = Utf8.string(Strict.str(v, 1), i);
            String t = Utf8.string(s, i);
            int from = 0;
            int to = t.length();
            while (leading && from < to && chars.indexOf(t.codePointAt(from)) >= 0) {
                from += Character.charCount(t.codePointAt(from));
            }
            while (trailing && to > from && chars.indexOf(t.codePointBefore(to)) >= 0) {
                to -= Character.charCount(t.codePointBefore(to));
            }
            out.put(t.substring(from, to).getBytes(StandardCharsets.UTF_8));
            return true;
        });
    }

    /** concat(a, b, ...): NULL arguments count as empty strings; the result is never NULL. */
    private static Predicate.Node concat(Expr.Call c, List<Predicate.Node> a, Binding b) {
        for (int k = 0; k < a.size(); k++) {
            Functions.requireString(c, a, k, b);
        }
        List<Predicate.Node> parts = a.stream().filter(n -> !n.type().isNull()).toList();
        return Nodes.of(ValueType.STRING, (batch, rows) -> {
            Values[] v = new Values[parts.size()];
            for (int k = 0; k < v.length; k++) {
                v[k] = parts.get(k).eval(batch, rows);
            }
            BytesOut out = new BytesOut(rows, rows * 8 * Math.max(1, v.length));
            for (int i = 0; i < rows; i++) {
                for (Values x : v) {
                    if (x.isValid(i)) {
                        Values.Bytes s = (Values.Bytes) x;
                        out.put(s, s.start(i), s.end(i));
                    }
                }
                out.end();
            }
            return out.build();
        });
    }

    /** {@code a || b}: strings, or a string and an integer (written in decimal, as DataFusion casts it). */
    private static Predicate.Node concatOperator(Expr.Call c, List<Predicate.Node> a, Binding b) {
        Functions.require(c, a, 0, b, "a string or an integer", ValueType.Kind.STRING, ValueType.Kind.INT, ValueType.Kind.UINT);
        Functions.require(c, a, 1, b, "a string or an integer", ValueType.Kind.STRING, ValueType.Kind.INT, ValueType.Kind.UINT);
        if (a.get(0).type().isInteger() && a.get(1).type().isInteger()) {
            throw b.error(c, "|| needs at least one string operand");
        }
        return Strict.bytes(ValueType.STRING, a, (v, i, out) -> {
            put(v[0], i, out);
            put(v[1], i, out);
            return true;
        });
    }

    private static void put(Values v, int i, BytesOut out) {
        if (v instanceof Values.Bytes s) {
            out.put(s, s.start(i), s.end(i));
        } else {
            Values.Longs l = (Values.Longs) v;
            out.put((l.unsigned() ? Long.toUnsignedString(l.get(i)) : Long.toString(l.get(i))).getBytes(StandardCharsets.US_ASCII));
        }
    }

    private static Predicate.Node replace(Expr.Call c, List<Predicate.Node> a, Binding b) {
        for (int k = 0; k < 3; k++) {
            Functions.requireString(c, a, k, b);
        }
        return Strict.bytes(ValueType.STRING, a, (v, i, out) -> {
            Values.Bytes s = Strict.str(v, 0);
            Values.Bytes from = Strict.str(v, 1);
            Values.Bytes to = Strict.str(v, 2);
            long ss = s.start(i);
            long se = s.end(i);
            long fs = from.start(i);
            long fe = from.end(i);
            if (fe == fs) {
                // Rust's str::replace with an empty pattern inserts the replacement around every character.
                out.put(to, to.start(i), to.end(i));
                long p = ss;
                while (p < se) {
                    long q = Utf8.skip(s, p, se, 1);
                    out.put(s, p, q);
                    out.put(to, to.start(i), to.end(i));
                    p = q;
                }
                return true;
            }
            long p = ss;
            while (true) {
                long at = Utf8.indexOf(s, p, se, from, fs, fe);
                if (at < 0) {
                    out.put(s, p, se);
                    return true;
                }
                out.put(s, p, at);
                out.put(to, to.start(i), to.end(i));
                p = at + (fe - fs);
            }
        });
    }
}
