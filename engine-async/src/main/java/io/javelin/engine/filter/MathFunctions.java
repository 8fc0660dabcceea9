package io.javelin.engine.filter;

import java.util.List;

/**
 * Numeric functions: {@code abs} keeps integers exact (overflow is an error); {@code round}, {@code floor},
 * {@code ceil}, {@code trunc}, {@code sqrt} and {@code power} compute in double precision as DataFusion does,
 * {@code round} rounding half away from zero.
 */
final class MathFunctions {

    private MathFunctions() {
    }

    static void register(Functions.Registry r) {
        r.add("abs", 1, 1, MathFunctions::abs);
        r.add("round", 1, 2, MathFunctions::round);
        r.add("floor", 1, 1, (c, a, b) -> unary(c, a, b, Math::floor));
        r.add("ceil", 1, 1, (c, a, b) -> unary(c, a, b, Math::ceil));
        r.alias("ceiling", "ceil");
        r.add("trunc", 1, 1, (c, a, b) -> unary(c, a, b, x -> x < 0 ? Math.ceil(x) : Math.floor(x)));
        r.add("sqrt", 1, 1, (c, a, b) -> unary(c, a, b, Math::sqrt));
        r.add("power", 2, 2, MathFunctions::power);
        r.alias("pow", "power");
    }

    private static Predicate.Node abs(Expr.Call c, List<Predicate.Node> a, Binding b) {
        Functions.requireNumeric(c, a, 0, b);
        ValueType t = a.getFirst().type();
        if (t.kind() == ValueType.Kind.INT) {
            return Strict.longs(ValueType.INT, a, (v, i) -> {
                long x = Strict.integer(v, 0, i);
                if (x == Long.MIN_VALUE) {
                    throw new FilterEvaluationException("integer overflow in abs(" + x + ")");
                }
                return Math.abs(x);
            });
        }
        if (t.kind() == ValueType.Kind.UINT) {
            return a.getFirst();
        }
        return unary(c, a, b, Math::abs);
    }

    @FunctionalInterface
    interface DoubleOp {
        double apply(double x);
    }

    private static Predicate.Node unary(Expr.Call c, List<Predicate.Node> a, Binding b, DoubleOp op) {
        Functions.requireNumeric(c, a, 0, b);
        return Strict.doubles(a, (v, i) -> op.apply(v[0].get(i)));
    }

    static double roundHalfAway(double x) {
        double m = Math.abs(x);
        double t = Math.floor(m);
        double r = m - t >= 0.5 ? t + 1 : t;
        return Math.copySign(r, x);
    }

    private static Predicate.Node round(Expr.Call c, List<Predicate.Node> a, Binding b) {
        Functions.requireNumeric(c, a, 0, b);
        if (a.size() == 2) {
            Functions.requireInteger(c, a, 1, b);
        }
        return Strict.doubles(a, (v, i) -> {
            double x = v[0].get(i);
            if (v.length == 1) {
                return roundHalfAway(x);
            }
            double scale = Math.pow(10, v[1].get(i));
            return roundHalfAway(x * scale) / scale;
        });
    }

    private static Predicate.Node power(Expr.Call c, List<Predicate.Node> a, Binding b) {
        Functions.requireNumeric(c, a, 0, b);
        Functions.requireNumeric(c, a, 1, b);
        return Strict.doubles(a, (v, i) -> Math.pow(v[0].get(i), v[1].get(i)));
    }
}
