package io.javelin.engine.filter;

import java.util.List;

/**
 * Row kernels for strict functions (NULL when any argument is NULL), evaluated over whole batches: the
 * arguments are evaluated once per batch and the kernel runs per valid row on primitive data.
 */
final class Strict {

    private Strict() {
    }

    @FunctionalInterface
    interface ToBytes {
        /** Writes row {@code row}'s result into {@code out}; returns false for NULL. */
        boolean apply(Values[] a, int row, BytesOut out);
    }

    @FunctionalInterface
    interface ToBool {
        boolean test(Values[] a, int row);
    }

    @FunctionalInterface
    interface ToLong {
        long apply(Values[] a, int row);
    }

    /** A kernel over numeric arguments, each read as double. */
    @FunctionalInterface
    interface ToDouble {
        double apply(Comparisons.DoubleAt[] a, int row);
    }

    private static Values[] evalAll(List<Predicate.Node> args, org.apache.arrow.vector.VectorSchemaRoot batch, int rows) {
        Values[] v = new Values[args.size()];
        for (int k = 0; k < v.length; k++) {
            v[k] = args.get(k).eval(batch, rows);
        }
        return v;
    }

    static Predicate.Node bytes(ValueType type, List<Predicate.Node> args, ToBytes fn) {
        if (Nodes.anyNull(args)) {
            return Nodes.nul();
        }
        return Nodes.of(type, (batch, rows) -> {
            Values[] a = evalAll(args, batch, rows);
            long[] valid = Nodes.allValid(rows, a);
            BytesOut out = new BytesOut(rows, rows * 8);
            for (int i = 0; i < rows; i++) {
                if (Nodes.valid(valid, i) && fn.apply(a, i, out)) {
                    out.end();
                } else {
                    out.endNull();
                }
            }
            return out.build();
        });
    }

    static Predicate.Node bool(List<Predicate.Node> args, ToBool fn) {
        if (Nodes.anyNull(args)) {
            return Nodes.nul();
        }
        return Nodes.of(ValueType.BOOL, (batch, rows) -> {
            Values[] a = evalAll(args, batch, rows);
            long[] valid = Nodes.allValid(rows, a);
            long[] value = new long[Bits.words(rows)];
            for (int i = 0; i < rows; i++) {
                if (Nodes.valid(valid, i) && fn.test(a, i)) {
                    Bits.set(value, i);
                }
            }
            return new Values.Bools(value, valid, rows);
        });
    }

    static Predicate.Node longs(ValueType type, List<Predicate.Node> args, ToLong fn) {
        if (Nodes.anyNull(args)) {
            return Nodes.nul();
        }
        return Nodes.of(type, (batch, rows) -> {
            Values[] a = evalAll(args, batch, rows);
            long[] valid = Nodes.allValid(rows, a);
            long[] out = new long[rows];
            for (int i = 0; i < rows; i++) {
                if (Nodes.valid(valid, i)) {
                    out[i] = fn.apply(a, i);
                }
            }
            return new Values.Longs(out, valid, false, type.kind() == ValueType.Kind.UINT, rows);
        });
    }

    static Predicate.Node doubles(List<Predicate.Node> args, ToDouble fn) {
        if (Nodes.anyNull(args)) {
            return Nodes.nul();
        }
        return Nodes.of(ValueType.FLOAT, (batch, rows) -> {
            Values[] a = evalAll(args, batch, rows);
            long[] valid = Nodes.allValid(rows, a);
            Comparisons.DoubleAt[] d = new Comparisons.DoubleAt[a.length];
            for (int k = 0; k < a.length; k++) {
                d[k] = Comparisons.doubles(a[k]);
            }
            double[] out = new double[rows];
            for (int i = 0; i < rows; i++) {
                if (Nodes.valid(valid, i)) {
                    out[i] = fn.apply(d, i);
                }
            }
            return new Values.Doubles(out, valid, false, rows);
        });
    }

    static Values.Bytes str(Values[] a, int k) {
        return (Values.Bytes) a[k];
    }

    static long integer(Values[] a, int k, int row) {
        return ((Values.Longs) a[k]).get(row);
    }
}
