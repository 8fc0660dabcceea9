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

    /** {@code [NOT] LIKE|ILIKE pattern [ESCAPE 'c']}; {@code escape} is null for the default backslash. */
    record Like(Expr operand, String pattern, boolean negated, boolean caseInsensitive, Character escape, int position)
            implements Expr {
        public Like(Expr operand, String pattern, boolean negated, int position) {
            this(operand, pattern, negated, false, null, position);
        }
    }

    /** A function call {@code name(args...)}; {@code name} is lower case. Operators like {@code ||} are calls too. */
    record Call(String name, List<Expr> args, int position) implements Expr {
    }

    /** {@code CASE [operand] WHEN w THEN t ... [ELSE e] END}; {@code operand} and {@code otherwise} may be null. */
    record Case(Expr operand, List<Expr> whens, List<Expr> thens, Expr otherwise, int position) implements Expr {
    }

    /** A list element {@code base[index]} (1-based). */
    record Subscript(Expr base, Expr index, int position) implements Expr {
    }

    /** A list literal {@code [a, b, ...]}. */
    record ArrayLiteral(List<Expr> items, int position) implements Expr {
    }

    /** {@code a IS [NOT] DISTINCT FROM b}: null-safe (in)equality, never null. */
    record IsDistinct(Expr left, Expr right, boolean negated, int position) implements Expr {
    }

    record Cast(Expr operand, SqlType type, int position) implements Expr {
    }
}
