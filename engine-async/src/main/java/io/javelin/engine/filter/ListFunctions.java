package io.javelin.engine.filter;

import java.util.ArrayList;
import java.util.List;

/**
 * List functions with DataFusion's semantics: {@code array_has}/{@code array_has_any}/{@code array_has_all}
 * are NULL for a NULL list and otherwise TRUE/FALSE (NULL elements match nothing); positions and
 * subscripts are 1-based and out-of-range subscripts are NULL; list literals {@code [a, b]}.
 */
final class ListFunctions {

    private ListFunctions() {
    }

    static void register(Functions.Registry r) {
        r.add("array_has", 2, 2, ListFunctions::has);
        r.alias("array_contains", "array_has");
        r.alias("list_has", "array_has");
        r.alias("list_contains", "array_has");
        r.add("array_has_any", 2, 2, (c, a, b) -> hasSet(c, a, b, true));
        r.alias("list_has_any", "array_has_any");
        r.alias("arrays_overlap", "array_has_any");
        r.add("array_has_all", 2, 2, (c, a, b) -> hasSet(c, a, b, false));
        r.alias("list_has_all", "array_has_all");
        r.add("array_length", 1, 2, ListFunctions::length);
        r.alias("list_length", "array_length");
        r.add("cardinality", 1, 1, ListFunctions::length);
        r.add("empty", 1, 1, ListFunctions::empty);
        r.alias("array_empty", "empty");
        r.add("array_position", 2, 3, ListFunctions::position);
        r.alias("list_position", "array_position");
        r.alias("array_indexof", "array_position");
        r.add("make_array", 0, Integer.MAX_VALUE, (c, a, b) -> literal(c, a, b));
        r.alias("make_list", "make_array");
        r.add("array_element", 2, 2, (c, a, b) -> subscript(c, a.get(0), a.get(1), c.args().get(0), c.args().get(1), b));
        r.alias("list_element", "array_element");
    }

    private static void requireList(Expr.Call c, List<Predicate.Node> a, int i, Binding b) {
        Functions.require(c, a, i, b, "a list", ValueType.Kind.LIST);
    }

    private static ElementEquality equality(Expr at, ValueType element, ValueType needle, Binding b, String fn) {
        ElementEquality eq = element == null || needle.isNull() ? (x, i, y, j) -> false : ElementEquality.of(element, needle);
        if (eq == null) {
            throw b.error(at, fn + " cannot compare list elements of type " + element.description() + " with "
                    + needle.description());
        }
        return eq;
    }

    private static Predicate.Node has(Expr.Call c, List<Predicate.Node> a, Binding b) {
        requireList(c, a, 0, b);
        if (a.get(0).type().isNull() || a.get(1).type().isNull()) {
            return Nodes.nul();
        }
        ElementEquality eq = equality(c.args().get(1), a.get(0).type().element(), a.get(1).type(), b, c.name());
        return Strict.bool(a, (v, i) -> {
            Values.Lists l = (Values.Lists) v[0];
            Values items = l.items();
            for (int j = l.start(i); j < l.end(i); j++) {
                if (items.isValid(j) && eq.equal(items, j, v[1], i)) {
                    return true;
                }
            }
            return false;
        });
    }

    /** array_has_any (some element of the second list is in the first) or array_has_all (every one is). */
    private static Predicate.Node hasSet(Expr.Call c, List<Predicate.Node> a, Binding b, boolean any) {
        requireList(c, a, 0, b);
        requireList(c, a, 1, b);
        if (a.get(0).type().isNull() || a.get(1).type().isNull()) {
            return Nodes.nul();
        }
        ValueType needles = a.get(1).type().element();
        ElementEquality eq = equality(c.args().get(1), a.get(0).type().element(), needles, b, c.name());
        Predicate.Node strict = Strict.bool(a, (v, i) -> {
            Values.Lists hay = (Values.Lists) v[0];
            Values.Lists want = (Values.Lists) v[1];
            Values hi = hay.items();
            Values wi = want.items();
            for (int k = want.start(i); k < want.end(i); k++) {
                boolean found = false;
                if (wi.isValid(k)) {
                    for (int j = hay.start(i); j < hay.end(i) && !found; j++) {
                        found = hi.isValid(j) && eq.equal(hi, j, wi, k);
                    }
                } else {
                    // DataFusion compares rows: a NULL needle matches a NULL element.
                    for (int j = hay.start(i); j < hay.end(i) && !found; j++) {
                        found = !hi.isValid(j);
                    }
                }
                if (found == any) {
                    return any;
                }
            }
            return !any;
        });
        // DataFusion: with an empty second list the answer is FALSE (any) or TRUE (all), even for a NULL first list.
        return Nodes.of(ValueType.BOOL, (batch, rows) -> {
            Values.Bools r = (Values.Bools) strict.eval(batch, rows);
            Values.Lists want = (Values.Lists) a.get(1).eval(batch, rows);
            long[] value = r.value();
            long[] valid = r.valid() == null ? Bits.allSet(rows) : r.valid();
            for (int i = 0; i < rows; i++) {
                if (want.isValid(i) && want.end(i) == want.start(i)) {
                    Bits.set(valid, i);
                    if (any) {
                        value[i >>> 6] &= ~(1L << (i & 63));
                    } else {
                        Bits.set(value, i);
                    }
                }
            }
            return new Values.Bools(value, valid, rows);
        });
    }

    private static Predicate.Node length(Expr.Call c, List<Predicate.Node> a, Binding b) {
        requireList(c, a, 0, b);
        if (a.size() == 2) {
            Functions.requireInteger(c, a, 1, b);
        }
        return Nodes.of(ValueType.UINT, (batch, rows) -> {
            Values[] v = new Values[a.size()];
            for (int k = 0; k < v.length; k++) {
                v[k] = a.get(k).eval(batch, rows);
            }
            if (a.getFirst().type().isNull()) {
                return new Values.Longs(new long[rows], new long[Bits.words(rows)], false, true, rows);
            }
            Values.Lists l = (Values.Lists) v[0];
            long[] valid = Nodes.allValid(rows, v);
            valid = valid == null ? Bits.allSet(rows) : valid;
            long[] out = new long[rows];
            for (int i = 0; i < rows; i++) {
                if (!Bits.get(valid, i)) {
                    continue;
                }
                int n = l.end(i) - l.start(i);
                if (v.length == 2 && Strict.integer(v, 1, i) != 1) {
                    valid[i >>> 6] &= ~(1L << (i & 63)); // no such dimension
                } else {
                    out[i] = n;
                }
            }
            return new Values.Longs(out, valid, false, true, rows);
        });
    }

    private static Predicate.Node empty(Expr.Call c, List<Predicate.Node> a, Binding b) {
        requireList(c, a, 0, b);
        return Strict.bool(a, (v, i) -> {
            Values.Lists l = (Values.Lists) v[0];
            return l.end(i) == l.start(i);
        });
    }

    /** array_position(list, x[, from]): the 1-based index of the first element equal to x, else NULL. */
    private static Predicate.Node position(Expr.Call c, List<Predicate.Node> a, Binding b) {
        requireList(c, a, 0, b);
        if (a.size() == 3) {
            Functions.requireInteger(c, a, 2, b);
        }
        if (a.get(0).type().isNull() || a.size() == 3 && a.get(2).type().isNull()) {
            return Nodes.nul();
        }
        ElementEquality eq = equality(c.args().get(1), a.get(0).type().element(), a.get(1).type(), b, c.name());
        // DataFusion compares rows here: a NULL needle finds the first NULL element.
        return Nodes.of(ValueType.UINT, (batch, rows) -> {
            Values[] v = new Values[a.size()];
            for (int k = 0; k < v.length; k++) {
                v[k] = a.get(k).eval(batch, rows);
            }
            Values.Lists l = (Values.Lists) v[0];
            long[] valid = new long[Bits.words(rows)];
            long[] out = new long[rows];
            for (int i = 0; i < rows; i++) {
                if (!l.isValid(i) || v.length == 3 && !v[2].isValid(i)) {
                    continue;
                }
                int from = v.length == 3 ? (int) Math.max(1, Strict.integer(v, 2, i)) : 1;
                Values items = l.items();
                boolean nullNeedle = !v[1].isValid(i);
                for (int j = l.start(i) + from - 1; j < l.end(i); j++) {
                    if (nullNeedle ? !items.isValid(j) : items.isValid(j) && eq.equal(items, j, v[1], i)) {
                        out[i] = j - l.start(i) + 1;
                        Bits.set(valid, i);
                        break;
                    }
                }
            }
            return new Values.Longs(out, valid, false, true, rows);
        });
    }

    /** {@code list[i]}: 1-based; negative indexes count from the end; out of range is NULL. */
    static Predicate.Node subscript(Expr.Call c, Predicate.Node list, Predicate.Node index, Expr listAt, Expr indexAt, Binding b) {
        if (list.type().isNull() || index.type().isNull()) {
            return Nodes.nul();
        }
        if (list.type().kind() != ValueType.Kind.LIST) {
            throw b.error(listAt, "cannot subscript a " + list.type().description() + " with []");
        }
        if (!index.type().isInteger()) {
            throw b.error(indexAt, "a list subscript must be an integer, not " + index.type().description());
        }
        ValueType element = list.type().element();
        return Nodes.of(element, (batch, rows) -> {
            Values.Lists l = (Values.Lists) list.eval(batch, rows);
            Values.Longs k = (Values.Longs) index.eval(batch, rows);
            ValueBuilder out = new ValueBuilder(element, rows);
            for (int i = 0; i < rows; i++) {
                if (!l.isValid(i) || !k.isValid(i)) {
                    out.appendNull();
                    continue;
                }
                long n = l.end(i) - l.start(i);
                long at = k.get(i);
                long pos = at > 0 ? at - 1 : at < 0 ? n + at : -1;
                if (pos < 0 || pos >= n) {
                    out.appendNull();
                } else {
                    out.append(l.items(), (int) (l.start(i) + pos));
                }
            }
            return out.build();
        });
    }

    static Predicate.Node subscript(Expr.Subscript s, Binding b) {
        return subscript(null, b.bind(s.base()), b.bind(s.index()), s.base(), s.index(), b);
    }

    /** A list literal of constants; its element type is the items' common type. */
    static Predicate.Node literal(Expr at, List<Predicate.Node> items, Binding b) {
        ValueType element = null;
        for (int k = 0; k < items.size(); k++) {
            Predicate.Node n = items.get(k);
            Expr itemAt = at instanceof Expr.ArrayLiteral al ? al.items().get(k)
                    : at instanceof Expr.Call c ? c.args().get(k) : at;
            if (!(n instanceof Predicate.Constant)) {
                throw b.error(itemAt, "list literals may only hold constants");
            }
            element = ConditionalFunctions.commonType(element, n.type(), itemAt, b);
        }
        ValueType type = element == null ? ValueType.NULL : element;
        int[] offsets = {0, items.size()};
        List<Predicate.Node> constants = new ArrayList<>(items);
        ValueType listType = ValueType.list(type);
        return Nodes.of(listType, (batch, rows) -> {
            ValueBuilder vb = new ValueBuilder(type, constants.size());
            for (Predicate.Node n : constants) {
                vb.append(ConditionalFunctions.coerce(n, type).eval(batch, 1), 0);
            }
            return new Values.Lists(offsets, vb.build(), null, true, rows);
        });
    }

    static Predicate.Node literal(Expr.ArrayLiteral l, Binding b) {
        List<Predicate.Node> items = new ArrayList<>();
        for (Expr e : l.items()) {
            items.add(b.bind(e));
        }
        return literal(l, items, b);
    }
}
