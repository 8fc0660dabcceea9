package io.javelin.engine.filter;

import java.util.ArrayList;
import java.util.List;

/** CASE, coalesce, nullif and IS [NOT] DISTINCT FROM; branches are evaluated per batch and gathered per row. */
final class ConditionalFunctions {

    private ConditionalFunctions() {
    }

    static void register(Functions.Registry r) {
        r.add("coalesce", 1, Integer.MAX_VALUE, ConditionalFunctions::coalesce);
        r.alias("nvl", "coalesce");
        r.alias("ifnull", "coalesce");
        r.add("nullif", 2, 2, ConditionalFunctions::nullif);
    }

    /** The type two branches share: equal types, NULL with anything, integers widen to floats. */
    static ValueType commonType(ValueType a, ValueType b, Expr at, BindErrors errors) {
        if (a == null || a.isNull()) {
            return b;
        }
        if (b.isNull() || a.equals(b)) {
            return a;
        }
        if (a.isInteger() && b.isInteger()) {
            return ValueType.INT;
        }
        if (a.isNumeric() && b.isNumeric()) {
            return a.kind() == ValueType.Kind.DECIMAL && b.kind() == ValueType.Kind.DECIMAL && a.scale() == b.scale()
                    ? a : ValueType.FLOAT;
        }
        if (a.isBytes() && b.isBytes()) {
            return a.kind() == b.kind() ? a : ValueType.BINARY;
        }
        if (a.isTemporal() && b.isTemporal()) {
            long ua = a.kind() == ValueType.Kind.DATE ? 86_400_000_000_000L : a.unitNanos();
            long ub = b.kind() == ValueType.Kind.DATE ? 86_400_000_000_000L : b.unitNanos();
            return ValueType.timestamp(Math.min(ua, ub));
        }
        throw errors.error(at, "incompatible types " + a.description() + " and " + b.description());
    }

    /** Converts {@code n}'s values to {@code target} (one of the widenings {@link #commonType} allows). */
    static Predicate.Node coerce(Predicate.Node n, ValueType target) {
        ValueType from = n.type();
        if (from.equals(target) || from.isNull() || from.isBytes() && target.isBytes()) {
            return n;
        }
        if (target.kind() == ValueType.Kind.FLOAT) {
            return Nodes.of(target, (batch, rows) -> {
                Values v = n.eval(batch, rows);
                Comparisons.DoubleAt d = Comparisons.doubles(v);
                double[] out = new double[rows];
                long[] valid = v.validityWords();
                for (int i = 0; i < rows; i++) {
                    if (Bits.get(valid, i)) {
                        out[i] = d.get(i);
                    }
                }
                return new Values.Doubles(out, valid, false, rows);
            });
        }
        if (target.isInteger()) {
            return Nodes.of(target, (batch, rows) -> {
                Values.Longs l = (Values.Longs) n.eval(batch, rows);
                return new Values.Longs(l.v(), l.valid(), l.constant(), target.kind() == ValueType.Kind.UINT, l.rows());
            });
        }
        if (target.kind() == ValueType.Kind.TIMESTAMP) {
            long fromUnit = from.kind() == ValueType.Kind.DATE ? 86_400_000_000_000L : from.unitNanos();
            long factor = fromUnit / target.unitNanos();
            return Nodes.of(target, (batch, rows) -> {
                Values.Longs l = (Values.Longs) n.eval(batch, rows);
                long[] out = new long[rows];
                for (int i = 0; i < rows; i++) {
                    out[i] = l.get(i) * factor;
                }
                return new Values.Longs(out, l.validityWords(), false, false, rows);
            });
        }
        return n;
    }

    private static ValueType branchType(List<Predicate.Node> branches, List<Expr> at, Binding b) {
        ValueType t = null;
        for (int k = 0; k < branches.size(); k++) {
            t = commonType(t, branches.get(k).type(), at.get(k), b);
        }
        if (t != null && !ValueBuilder.supports(t)) {
            throw b.error(at.getFirst(), "conditional expressions cannot return lists");
        }
        return t == null ? ValueType.NULL : t;
    }

    private static Predicate.Node coalesce(Expr.Call c, List<Predicate.Node> a, Binding b) {
        ValueType t = branchType(a, c.args(), b);
        List<Predicate.Node> args = a.stream().map(n -> coerce(n, t)).toList();
        return Nodes.of(t, (batch, rows) -> {
            Values[] v = new Values[args.size()];
            for (int k = 0; k < v.length; k++) {
                v[k] = args.get(k).eval(batch, rows);
            }
            ValueBuilder out = new ValueBuilder(t, rows);
            for (int i = 0; i < rows; i++) {
                Values pick = null;
                for (Values x : v) {
                    if (x.isValid(i)) {
                        pick = x;
                        break;
                    }
                }
                if (pick == null) {
                    out.appendNull();
                } else {
                    out.append(pick, i);
                }
            }
            return out.build();
        });
    }

    private static Predicate.Node nullif(Expr.Call c, List<Predicate.Node> a, Binding b) {
        Predicate.Node value = a.get(0);
        if (value.type().isNull()) {
            return value;
        }
        if (!ValueBuilder.supports(value.type())) {
            throw b.error(c.args().get(0), "nullif cannot return lists");
        }
        Predicate.Node eq = Comparisons.compare(Expr.CompareOp.EQ, value, a.get(1), c, b);
        return Nodes.of(value.type(), (batch, rows) -> {
            Values v = value.eval(batch, rows);
            Values.Bools same = (Values.Bools) eq.eval(batch, rows);
            long[] sv = same.validOrAll();
            ValueBuilder out = new ValueBuilder(value.type(), rows);
            for (int i = 0; i < rows; i++) {
                if (Bits.get(same.value(), i) && Bits.get(sv, i)) {
                    out.appendNull();
                } else {
                    out.append(v, i);
                }
            }
            return out.build();
        });
    }

    static Predicate.Node caseWhen(Expr.Case e, Binding b) {
        List<Predicate.Node> conditions = new ArrayList<>();
        Predicate.Node operand = e.operand() == null ? null : b.bind(e.operand());
        for (Expr w : e.whens()) {
            if (operand == null) {
                conditions.add(b.bindBool(w));
            } else {
                Predicate.Node wn = b.bind(w);
                conditions.add(Comparisons.compare(Expr.CompareOp.EQ, operand, wn, w, b));
            }
        }
        List<Predicate.Node> results = new ArrayList<>();
        List<Expr> at = new ArrayList<>(e.thens());
        for (Expr t : e.thens()) {
            results.add(b.bind(t));
        }
        if (e.otherwise() != null) {
            results.add(b.bind(e.otherwise()));
            at.add(e.otherwise());
        }
        ValueType t = branchType(results, at, b);
        List<Predicate.Node> branches = results.stream().map(n -> coerce(n, t)).toList();
        boolean hasElse = e.otherwise() != null;
        return Nodes.of(t, (batch, rows) -> {
            int n = conditions.size();
            long[][] hit = new long[n][];
            for (int k = 0; k < n; k++) {
                Values.Bools c = (Values.Bools) conditions.get(k).eval(batch, rows);
                long[] valid = c.validOrAll();
                hit[k] = new long[valid.length];
                for (int w = 0; w < valid.length; w++) {
                    hit[k][w] = c.value()[w] & valid[w];
                }
            }
            Values[] v = new Values[branches.size()];
            for (int k = 0; k < v.length; k++) {
                v[k] = branches.get(k).eval(batch, rows);
            }
            ValueBuilder out = new ValueBuilder(t, rows);
            for (int i = 0; i < rows; i++) {
                int pick = hasElse ? n : -1;
                for (int k = 0; k < n; k++) {
                    if (Bits.get(hit[k], i)) {
                        pick = k;
                        break;
                    }
                }
                if (pick < 0) {
                    out.appendNull();
                } else {
                    out.append(v[pick], i);
                }
            }
            return out.build();
        });
    }

    /** {@code a IS [NOT] DISTINCT FROM b}: NULLs are equal to each other and distinct from every value. */
    static Predicate.Node isDistinct(Expr.IsDistinct e, Binding b) {
        Predicate.Node l = b.bind(e.left());
        Predicate.Node r = b.bind(e.right());
        l = Casts.coerceLiteral(l, r.type(), e.left(), b);
        r = Casts.coerceLiteral(r, l.type(), e.right(), b);
        Predicate.Node left = l;
        Predicate.Node right = r;
        Predicate.Node eq = left.type().isNull() || right.type().isNull() ? null
                : Comparisons.compare(Expr.CompareOp.EQ, left, right, e, b);
        boolean negated = e.negated();
        return Nodes.of(ValueType.BOOL, (batch, rows) -> {
            long[] lv = left.eval(batch, rows).validityWords();
            long[] rv = right.eval(batch, rows).validityWords();
            Values.Bools same = eq == null ? null : (Values.Bools) eq.eval(batch, rows);
            long[] value = new long[Bits.words(rows)];
            for (int w = 0; w < value.length; w++) {
                long bothValid = lv[w] & rv[w];
                long equal = same == null ? 0 : same.value()[w] & bothValid;
                long notDistinct = equal | ~lv[w] & ~rv[w];
                value[w] = negated ? notDistinct : ~notDistinct;
            }
            Bits.clearTail(value, rows);
            return new Values.Bools(value, null, rows);
        });
    }
}
