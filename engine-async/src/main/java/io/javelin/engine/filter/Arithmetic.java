package io.javelin.engine.filter;

import org.apache.arrow.vector.VectorSchemaRoot;

/** +, -, *, /, % and unary minus. Integer arithmetic is exact (overflow and division by zero are errors). */
final class Arithmetic {

    private Arithmetic() {
    }

    static Predicate.Node of(Expr.Arithmetic a, Predicate.Node l, Predicate.Node r, BindErrors errors) {
        ValueType lt = l.type();
        ValueType rt = r.type();
        if (lt.kind() == ValueType.Kind.NULL || rt.kind() == ValueType.Kind.NULL) {
            return Predicate.Constant.nul();
        }
        if (!lt.isNumeric() || !rt.isNumeric()) {
            throw errors.error(a, "arithmetic needs numbers, not " + lt.description() + " and " + rt.description());
        }
        boolean integer = lt.kind() == ValueType.Kind.INT && rt.kind() == ValueType.Kind.INT;
        Expr.ArithmeticOp op = a.op();
        return new Predicate.Node() {
            @Override
            public ValueType type() {
                return integer ? ValueType.INT : ValueType.FLOAT;
            }

            @Override
            public Values eval(VectorSchemaRoot batch, int rows) {
                Values x = l.eval(batch, rows);
                Values y = r.eval(batch, rows);
                long[] valid = bothValid(x, y, rows);
                if (integer) {
                    Values.Longs lx = (Values.Longs) x;
                    Values.Longs ly = (Values.Longs) y;
                    long[] out = new long[rows];
                    for (int i = 0; i < rows; i++) {
                        if (valid == null || Bits.get(valid, i)) {
                            out[i] = apply(op, lx.get(i), ly.get(i));
                        }
                    }
                    return new Values.Longs(out, valid, false, false, rows);
                }
                Comparisons.DoubleAt dx = Comparisons.doubles(x);
                Comparisons.DoubleAt dy = Comparisons.doubles(y);
                double[] out = new double[rows];
                for (int i = 0; i < rows; i++) {
                    if (valid == null || Bits.get(valid, i)) {
                        out[i] = apply(op, dx.get(i), dy.get(i));
                    }
                }
                return new Values.Doubles(out, valid, false, rows);
            }
        };
    }

    static Predicate.Node negate(Expr.Negate n, Predicate.Node operand, BindErrors errors) {
        ValueType t = operand.type();
        if (t.kind() == ValueType.Kind.NULL) {
            return operand;
        }
        if (t.kind() != ValueType.Kind.INT && t.kind() != ValueType.Kind.FLOAT) {
            throw errors.error(n, "cannot negate " + t.description());
        }
        return new Predicate.Node() {
            @Override
            public ValueType type() {
                return t;
            }

            @Override
            public Values eval(VectorSchemaRoot batch, int rows) {
                Values v = operand.eval(batch, rows);
                long[] valid = v.validityWords();
                if (v instanceof Values.Longs l) {
                    long[] out = new long[rows];
                    for (int i = 0; i < rows; i++) {
                        if (Bits.get(valid, i)) {
                            try {
                                out[i] = Math.negateExact(l.get(i));
                            } catch (ArithmeticException e) {
                                throw new FilterEvaluationException("integer overflow negating " + l.get(i));
                            }
                        }
                    }
                    return new Values.Longs(out, valid, false, false, rows);
                }
                Values.Doubles d = (Values.Doubles) v;
                double[] out = new double[rows];
                for (int i = 0; i < rows; i++) {
                    out[i] = -d.get(i);
                }
                return new Values.Doubles(out, valid, false, rows);
            }
        };
    }

    static long[] bothValid(Values x, Values y, int rows) {
        long[] a = x.validityWords();
        long[] b = y.validityWords();
        for (int k = 0; k < a.length; k++) {
            a[k] &= b[k];
        }
        return a;
    }

    private static long apply(Expr.ArithmeticOp op, long a, long b) {
        try {
            return switch (op) {
                case ADD -> Math.addExact(a, b);
                case SUBTRACT -> Math.subtractExact(a, b);
                case MULTIPLY -> Math.multiplyExact(a, b);
                case DIVIDE -> {
                    if (b == 0) {
                        throw new FilterEvaluationException("division by zero");
                    }
                    yield Math.divideExact(a, b);
                }
                case MODULO -> {
                    if (b == 0) {
                        throw new FilterEvaluationException("division by zero");
                    }
                    yield a % b;
                }
            };
        } catch (ArithmeticException e) {
            throw new FilterEvaluationException("integer overflow in " + a + " " + op + " " + b);
        }
    }

    private static double apply(Expr.ArithmeticOp op, double a, double b) {
        return switch (op) {
            case ADD -> a + b;
            case SUBTRACT -> a - b;
            case MULTIPLY -> a * b;
            case DIVIDE -> a / b;
            case MODULO -> a % b;
        };
    }
}
