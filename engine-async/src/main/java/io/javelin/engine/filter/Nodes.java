package io.javelin.engine.filter;

import org.apache.arrow.vector.VectorSchemaRoot;

/** Small helpers to build bound nodes and their outputs. */
final class Nodes {

    private Nodes() {
    }

    @FunctionalInterface
    interface Eval {
        Values eval(VectorSchemaRoot batch, int rows);
    }

    static Predicate.Node of(ValueType type, Eval eval) {
        return new Predicate.Node() {
            @Override
            public ValueType type() {
                return type;
            }

            @Override
            public Values eval(VectorSchemaRoot batch, int rows) {
                return eval.eval(batch, rows);
            }
        };
    }

    /** Validity words that are set where every input is valid (null = all valid). */
    static long[] allValid(int rows, Values... in) {
        long[] out = null;
        for (Values v : in) {
            long[] w = rawValid(v);
            if (w == null) {
                continue;
            }
            if (out == null) {
                out = w.clone();
            } else {
                for (int k = 0; k < out.length; k++) {
                    out[k] &= w[k];
                }
            }
        }
        return out;
    }

    /** The validity words of a non-constant column as stored (null = no nulls); constants are expanded. */
    static long[] rawValid(Values v) {
        return switch (v) {
            case Values.Bools b -> b.valid();
            case Values.Longs l -> l.valid() == null ? null : l.constant() ? v.validityWords() : l.valid();
            case Values.Doubles d -> d.valid() == null ? null : d.constant() ? v.validityWords() : d.valid();
            case Values.Decimals d -> d.valid() == null ? null : d.constant() ? v.validityWords() : d.valid();
            case Values.Bytes b -> b.constant() ? null : b.valid();
            case Values.Lists l -> l.valid() == null ? null : l.constant() ? v.validityWords() : l.valid();
        };
    }

    static boolean valid(long[] valid, int row) {
        return valid == null || Bits.get(valid, row);
    }

    /** A NULL constant, as strict functions return when an argument is a NULL literal. */
    static Predicate.Node nul() {
        return Predicate.Constant.nul();
    }

    static boolean anyNull(java.util.List<Predicate.Node> args) {
        for (Predicate.Node n : args) {
            if (n.type().isNull()) {
                return true;
            }
        }
        return false;
    }
}
