package io.javelin.engine.filter;

import java.util.List;

/** The syntax tree of a filter expression. Every node remembers where it started in the source text. */
public sealed interface Expr {

    int position();

    /** A column reference; {@code path} has one element per nesting level (struct field access). */
    record Column(List<String> path, int position) implements Expr {
        public String dotted() {
            return String.join(".", path);
        }
    }

    /** A literal; {@code value} is Long, Double, String, Boolean, or null for NULL; typed literals carry {@code type}. */
    record Literal(Object value, SqlType type, int position) implements Expr {
    }

    enum ArithmeticOp { ADD, SUBTRACT, MULTIPLY, DIVIDE, MODULO }

    record Arithmetic(ArithmeticOp op, Expr left, Expr right, int position) implements Expr {
    }

    record Negate(Expr operand, int position) implements Expr {
    }

    enum CompareOp { EQ, NE, LT, LE, GT, GE }

    record Compare(CompareOp op, Expr left, Expr right, int position) implements Expr {
    }

    record And(Expr left, Expr right, int position) implements Expr {
    }

    record Or(Expr left, Expr right, int position) implements Expr {
    }

    record Not(Expr operand, int position) implements Expr {
    }

    record IsNull(Expr operand, boolean negated, int position) implements Expr {
    }

    /** {@code x IS [NOT] TRUE|FALSE}: never null. */
    record IsBool(Expr operand, boolean target, boolean negated, int position) implements Expr {
    }

    record In(Expr operand, List<Expr> values, boolean negated, int position) implements Expr {
    }

    record Between(Expr operand, Expr low, Expr high, boolean negated, int position) implements Expr {
    }

    record Like(Expr operand, String pattern, boolean negated, int position) implements Expr {
    }

    record Cast(Expr operand, SqlType type, int position) implements Expr {
    }
}
