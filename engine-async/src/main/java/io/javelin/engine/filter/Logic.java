package io.javelin.engine.filter;

import org.apache.arrow.vector.VectorSchemaRoot;

/** AND, OR, NOT and the IS predicates with SQL three-valued logic, one 64-row word at a time. */
final class Logic {

    private Logic() {
    }

    private static Values.Bools bools(Predicate.Node n, VectorSchemaRoot batch, int rows) {
        return (Values.Bools) n.eval(batch, rows);
    }

    static Predicate.Node and(Predicate.Node left, Predicate.Node right) {
        return new BoolNode() {
            @Override
            public Values eval(VectorSchemaRoot batch, int rows) {
                Values.Bools a = bools(left, batch, rows);
                Values.Bools b = bools(right, batch, rows);
                long[] va = a.validOrAll();
                long[] vb = b.validOrAll();
                int n = Bits.words(rows);
                long[] value = new long[n];
                long[] valid = new long[n];
                for (int k = 0; k < n; k++) {
                    long ta = a.value()[k] & va[k];
                    long tb = b.value()[k] & vb[k];
                    long fa = ~a.value()[k] & va[k];
                    long fb = ~b.value()[k] & vb[k];
                    value[k] = ta & tb;
                    valid[k] = (va[k] & vb[k]) | fa | fb; // known when both known, or either is FALSE
                }
                return new Values.Bools(value, valid, rows);
            }
        };
    }

    static Predicate.Node or(Predicate.Node left, Predicate.Node right) {
        return new BoolNode() {
            @Override
            public Values eval(VectorSchemaRoot batch, int rows) {
                Values.Bools a = bools(left, batch, rows);
                Values.Bools b = bools(right, batch, rows);
                long[] va = a.validOrAll();
                long[] vb = b.validOrAll();
                int n = Bits.words(rows);
                long[] value = new long[n];
                long[] valid = new long[n];
                for (int k = 0; k < n; k++) {
                    long ta = a.value()[k] & va[k];
                    long tb = b.value()[k] & vb[k];
                    value[k] = ta | tb;
                    valid[k] = (va[k] & vb[k]) | ta | tb; // known when both known, or either is TRUE
                }
                return new Values.Bools(value, valid, rows);
            }
        };
    }

    static Predicate.Node not(Predicate.Node operand) {
        return new BoolNode() {
            @Override
            public Values eval(VectorSchemaRoot batch, int rows) {
                Values.Bools a = bools(operand, batch, rows);
                long[] va = a.validOrAll();
                long[] value = new long[va.length];
                for (int k = 0; k < value.length; k++) {
                    value[k] = ~a.value()[k] & va[k];
                }
                Bits.clearTail(value, rows);
                return new Values.Bools(value, a.valid(), rows);
            }
        };
    }

    static Predicate.Node isNull(Predicate.Node operand, boolean negated) {
        return new BoolNode() {
            @Override
            public Values eval(VectorSchemaRoot batch, int rows) {
                Values v = operand.eval(batch, rows);
                long[] valid = v instanceof Values.Bools b ? b.validOrAll() : v.validityWords();
                long[] value = new long[Bits.words(rows)];
                for (int k = 0; k < value.length; k++) {
                    value[k] = negated ? valid[k] : ~valid[k];
                }
                Bits.clearTail(value, rows);
                return new Values.Bools(value, null, rows);
            }
        };
    }

    /** {@code x IS [NOT] TRUE|FALSE}: NULL counts as neither TRUE nor FALSE, and the result is never NULL. */
    static Predicate.Node isBool(Predicate.Node operand, boolean target, boolean negated) {
        return new BoolNode() {
            @Override
            public Values eval(VectorSchemaRoot batch, int rows) {
                Values.Bools a = bools(operand, batch, rows);
                long[] va = a.validOrAll();
                long[] value = new long[va.length];
                for (int k = 0; k < value.length; k++) {
                    long hit = (target ? a.value()[k] : ~a.value()[k]) & va[k];
                    value[k] = negated ? ~hit : hit;
                }
                Bits.clearTail(value, rows);
                return new Values.Bools(value, null, rows);
            }
        };
    }

    abstract static class BoolNode implements Predicate.Node {
        @Override
        public ValueType type() {
            return ValueType.BOOL;
        }
    }
}
