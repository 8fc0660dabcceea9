package io.javelin.engine.filter;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import org.apache.arrow.vector.VectorSchemaRoot;

/** Comparison and LIKE nodes over pairs of columns or constants, with numeric and temporal coercion. */
final class Comparisons {

    private Comparisons() {
    }

    /** Orders row {@code i} of the left operand against row {@code i} of the right one. */
    @FunctionalInterface
    interface RowOrder {
        int compare(int row);
    }

    /** Builds the per-batch row order for two evaluated operands. */
    @FunctionalInterface
    interface OrderFactory {
        RowOrder create(Values left, Values right);
    }

    static Predicate.Node compare(Expr.CompareOp op, Predicate.Node l, Predicate.Node r, Expr at, BindErrors errors) {
        ValueType lt = l.type();
        ValueType rt = r.type();
        if (lt.kind() == ValueType.Kind.NULL || rt.kind() == ValueType.Kind.NULL) {
            return Predicate.Constant.nul();
        }
        if (lt.kind() == ValueType.Kind.DECIMAL && r instanceof Predicate.Constant c) {
            r = decimalConstant(c, lt.scale());
            rt = r.type();
        } else if (rt.kind() == ValueType.Kind.DECIMAL && l instanceof Predicate.Constant c) {
            l = decimalConstant(c, rt.scale());
            lt = l.type();
        }
        if (lt.kind() == ValueType.Kind.LIST && rt.kind() == ValueType.Kind.LIST) {
            return listEquality(op, l, r, at, errors);
        }
        if (lt.isJsonb() != rt.isJsonb()) {
            // Lance refuses to turn a literal into JSONB; compare a json_get_* result instead
            throw errors.error(at, "cannot compare " + lt.description() + " with " + rt.description()
                    + "; use json_get_string/json_get_int/json_extract to compare a JSON value");
        }
        OrderFactory order = orderFor(lt, rt);
        if (order == null) {
            throw errors.error(at, "cannot compare " + lt.description() + " with " + rt.description());
        }
        return new CompareNode(op, l, r, order);
    }

    /** {@code list = list} / {@code <>}: same length and pairwise equal elements, NULL elements equal to each other. */
    private static Predicate.Node listEquality(Expr.CompareOp op, Predicate.Node l, Predicate.Node r, Expr at, BindErrors errors) {
        if (op != Expr.CompareOp.EQ && op != Expr.CompareOp.NE) {
            throw errors.error(at, "lists can only be compared with = and <>");
        }
        ValueType le = l.type().element();
        ValueType re = r.type().element();
        ElementEquality eq = le.isNull() || re.isNull() ? (x, i, y, j) -> false : ElementEquality.of(le, re);
        if (eq == null) {
            throw errors.error(at, "cannot compare " + l.type().description() + " with " + r.type().description());
        }
        boolean negate = op == Expr.CompareOp.NE;
        return Strict.bool(java.util.List.of(l, r), (v, i) -> {
            Values.Lists a = (Values.Lists) v[0];
            Values.Lists b = (Values.Lists) v[1];
            int n = a.end(i) - a.start(i);
            boolean same = n == b.end(i) - b.start(i);
            for (int k = 0; same && k < n; k++) {
                int p = a.start(i) + k;
                int q = b.start(i) + k;
                boolean pv = a.items().isValid(p);
                boolean qv = b.items().isValid(q);
                same = pv == qv && (!pv || eq.equal(a.items(), p, b.items(), q));
            }
            return same != negate;
        });
    }

    /** Converts a numeric constant to a decimal of the column's scale when that is exact. */
    private static Predicate.Node decimalConstant(Predicate.Constant c, int scale) {
        BigDecimal value = switch (c.type().kind()) {
            case INT -> BigDecimal.valueOf(c.longs().v()[0]);
            case UINT -> new BigDecimal(Long.toUnsignedString(c.longs().v()[0]));
            case FLOAT -> Double.isFinite(c.doubles().v()[0]) ? BigDecimal.valueOf(c.doubles().v()[0]) : null;
            default -> null;
        };
        if (value == null || value.stripTrailingZeros().scale() > scale || value.precision() - value.scale() + scale > 38) {
            return c;
        }
        return Predicate.Constant.ofDecimal(value, scale);
    }

    private static OrderFactory orderFor(ValueType lt, ValueType rt) {
        ValueType.Kind a = lt.kind();
        ValueType.Kind b = rt.kind();
        if (lt.isNumeric() && rt.isNumeric()) {
            if ((a == ValueType.Kind.INT || a == ValueType.Kind.UINT) && (b == ValueType.Kind.INT || b == ValueType.Kind.UINT)) {
                return (x, y) -> integerOrder((Values.Longs) x, (Values.Longs) y);
            }
            if (a == ValueType.Kind.DECIMAL && b == ValueType.Kind.DECIMAL && lt.scale() == rt.scale()) {
                return (x, y) -> {
                    Values.Decimals dx = (Values.Decimals) x;
                    Values.Decimals dy = (Values.Decimals) y;
                    return i -> dx.compare(i, dy, i);
                };
            }
            return (x, y) -> {
                DoubleAt dx = doubles(x);
                DoubleAt dy = doubles(y);
                return i -> Double.compare(dx.get(i), dy.get(i));
            };
        }
        if (isTemporal(a) && isTemporal(b)) {
            long ua = unit(lt);
            long ub = unit(rt);
            long common = Math.min(ua, ub);
            long fa = ua / common;
            long fb = ub / common;
            return (x, y) -> {
                Values.Longs lx = (Values.Longs) x;
                Values.Longs ly = (Values.Longs) y;
                return i -> Long.compare(lx.get(i) * fa, ly.get(i) * fb);
            };
        }
        if (lt.isBytes() && rt.isBytes()) {
            return (x, y) -> {
                Values.Bytes bx = (Values.Bytes) x;
                Values.Bytes by = (Values.Bytes) y;
                return i -> compareBytes(bx, i, by, i);
            };
        }
        if (a == ValueType.Kind.BOOL && b == ValueType.Kind.BOOL) {
            return (x, y) -> {
                Values.Bools bx = (Values.Bools) x;
                Values.Bools by = (Values.Bools) y;
                return i -> Boolean.compare(Bits.get(bx.value(), i), Bits.get(by.value(), i));
            };
        }
        return null;
    }

    private static boolean isTemporal(ValueType.Kind k) {
        return k == ValueType.Kind.DATE || k == ValueType.Kind.TIMESTAMP;
    }

    private static long unit(ValueType t) {
        return t.kind() == ValueType.Kind.DATE ? 86_400_000_000_000L : t.unitNanos();
    }

    private static RowOrder integerOrder(Values.Longs x, Values.Longs y) {
        if (x.unsigned() && y.unsigned()) {
            return i -> Long.compareUnsigned(x.get(i), y.get(i));
        }
        if (x.unsigned() || y.unsigned()) {
            // One side unsigned: a negative signed value is below every unsigned one.
            return i -> {
                long a = x.get(i);
                long b = y.get(i);
                if (x.unsigned()) {
                    return b < 0 ? 1 : Long.compareUnsigned(a, b);
                }
                return a < 0 ? -1 : Long.compareUnsigned(a, b);
            };
        }
        return i -> Long.compare(x.get(i), y.get(i));
    }

    @FunctionalInterface
    interface DoubleAt {
        double get(int row);
    }

    static DoubleAt doubles(Values v) {
        return switch (v) {
            case Values.Doubles d -> d::get;
            case Values.Longs l -> l.unsigned()
                    ? i -> unsignedToDouble(l.get(i))
                    : i -> (double) l.get(i);
            case Values.Decimals d -> d::toDouble;
            default -> throw new IllegalStateException("not numeric: " + v);
        };
    }

    static double unsignedToDouble(long v) {
        return v >= 0 ? v : (double) (v >>> 1) * 2.0 + (v & 1);
    }

    /** Unsigned lexicographic byte order, which for UTF-8 equals code point order. */
    static int compareBytes(Values.Bytes x, int i, Values.Bytes y, int j) {
        long xs = x.start(i);
        long xl = x.end(i) - xs;
        long ys = y.start(j);
        long yl = y.end(j) - ys;
        long n = Math.min(xl, yl);
        for (long k = 0; k < n; k++) {
            int c = Integer.compare(x.byteAt(xs + k) & 0xFF, y.byteAt(ys + k) & 0xFF);
            if (c != 0) {
                return c;
            }
        }
        return Long.compare(xl, yl);
    }

    private record CompareNode(Expr.CompareOp op, Predicate.Node left, Predicate.Node right, OrderFactory order)
            implements Predicate.Node {
        @Override
        public ValueType type() {
            return ValueType.BOOL;
        }

        @Override
        public Values eval(VectorSchemaRoot batch, int rows) {
            Values l = left.eval(batch, rows);
            Values r = right.eval(batch, rows);
            RowOrder cmp = order.create(l, r);
            long[] value = new long[Bits.words(rows)];
            long[] valid = new long[Bits.words(rows)];
            for (int i = 0; i < rows; i++) {
                if (!l.isValid(i) || !r.isValid(i)) {
                    continue;
                }
                Bits.set(valid, i);
                int c = cmp.compare(i);
                boolean hit = switch (op) {
                    case EQ -> c == 0;
                    case NE -> c != 0;
                    case LT -> c < 0;
                    case LE -> c <= 0;
                    case GT -> c > 0;
                    case GE -> c >= 0;
                };
                if (hit) {
                    Bits.set(value, i);
                }
            }
            return new Values.Bools(value, valid, rows);
        }
    }

    static Predicate.Node like(Predicate.Node operand, String pattern) {
        return like(operand, pattern, false, '\\');
    }

    /** [I]LIKE with an escape character; ILIKE matches case-insensitively (Unicode) through a regular expression. */
    static Predicate.Node like(Predicate.Node operand, String pattern, boolean caseInsensitive, char escape) {
        if (caseInsensitive) {
            java.util.regex.Pattern re = java.util.regex.Pattern.compile(LikePattern.toRegex(pattern, escape),
                    java.util.regex.Pattern.CASE_INSENSITIVE | java.util.regex.Pattern.UNICODE_CASE
                            | java.util.regex.Pattern.DOTALL);
            return Nodes.of(ValueType.BOOL, (batch, rows) -> {
                java.util.regex.Matcher m = re.matcher("");
                Utf8.Chars chars = new Utf8.Chars();
                return Strict.bool(java.util.List.of(operand), (v, i) -> {
                    Values.Bytes b = Strict.str(v, 0);
                    Utf8.decode(b, b.start(i), b.end(i), chars);
                    return m.reset(chars).matches();
                }).eval(batch, rows);
            });
        }
        LikePattern compiled = LikePattern.compile(pattern, escape);
        return new Predicate.Node() {
            @Override
            public ValueType type() {
                return ValueType.BOOL;
            }

            @Override
            public Values eval(VectorSchemaRoot batch, int rows) {
                Values v = operand.eval(batch, rows);
                long[] value = new long[Bits.words(rows)];
                long[] valid = new long[Bits.words(rows)];
                if (!(v instanceof Values.Bytes b)) {
                    return new Values.Bools(value, valid, rows); // NULL operand
                }
                for (int i = 0; i < rows; i++) {
                    if (!b.isValid(i)) {
                        continue;
                    }
                    Bits.set(valid, i);
                    if (compiled.matches(b, b.start(i), b.end(i))) {
                        Bits.set(value, i);
                    }
                }
                return new Values.Bools(value, valid, rows);
            }
        };
    }

    /** SQL LIKE with {@code %} (any run) and {@code _} (one character), {@code \} escapes; matched on UTF-8 bytes. */
    record LikePattern(byte[][] literals, boolean[] anyBefore, int[] singlesBefore, boolean anyAtEnd, int singlesAtEnd) {

        /** The same pattern as a Java regular expression matching whole values. */
        static String toRegex(String pattern, char escape) {
            StringBuilder re = new StringBuilder();
            for (int i = 0; i < pattern.length(); i++) {
                char c = pattern.charAt(i);
                if (c == escape && i + 1 < pattern.length()) {
                    re.append(java.util.regex.Pattern.quote(String.valueOf(pattern.charAt(++i))));
                } else if (c == '%') {
                    re.append(".*");
                } else if (c == '_') {
                    re.append('.');
                } else {
                    re.append(java.util.regex.Pattern.quote(String.valueOf(c)));
                }
            }
            return re.toString();
        }

        static LikePattern compile(String pattern) {
            return compile(pattern, '\\');
        }

        static LikePattern compile(String pattern, char escape) {
            java.util.List<byte[]> lits = new java.util.ArrayList<>();
            java.util.List<Boolean> any = new java.util.ArrayList<>();
            java.util.List<Integer> singles = new java.util.ArrayList<>();
            StringBuilder cur = new StringBuilder();
            boolean pendingAny = false;
            int pendingSingles = 0;
            for (int i = 0; i < pattern.length(); i++) {
                char c = pattern.charAt(i);
                if (c == escape && i + 1 < pattern.length()) {
                    cur.append(pattern.charAt(++i));
                } else if (c == '%' || c == '_') {
                    if (!cur.isEmpty()) {
                        lits.add(cur.toString().getBytes(StandardCharsets.UTF_8));
                        any.add(pendingAny);
                        singles.add(pendingSingles);
                        cur.setLength(0);
                        pendingAny = false;
                        pendingSingles = 0;
                    }
                    if (c == '%') {
                        pendingAny = true;
                    } else {
                        pendingSingles++;
                    }
                } else {
                    cur.append(c);
                }
            }
            if (!cur.isEmpty()) {
                lits.add(cur.toString().getBytes(StandardCharsets.UTF_8));
                any.add(pendingAny);
                singles.add(pendingSingles);
                pendingAny = false;
                pendingSingles = 0;
            }
            boolean[] anyArr = new boolean[any.size()];
            int[] singlesArr = new int[singles.size()];
            for (int i = 0; i < anyArr.length; i++) {
                anyArr[i] = any.get(i);
                singlesArr[i] = singles.get(i);
            }
            return new LikePattern(lits.toArray(new byte[0][]), anyArr, singlesArr, pendingAny, pendingSingles);
        }

        boolean matches(Values.Bytes b, long start, long end) {
            return match(b, 0, start, end);
        }

        /** Backtracking only at '%' boundaries; each literal segment is compared byte-wise. */
        private boolean match(Values.Bytes b, int seg, long pos, long end) {
            if (seg == literals.length) {
                long after = skipChars(b, pos, end, singlesAtEnd);
                if (after < 0) {
                    return false;
                }
                return anyAtEnd || after == end;
            }
            long p = skipChars(b, pos, end, singlesBefore[seg]);
            if (p < 0) {
                return false;
            }
            byte[] lit = literals[seg];
            if (!anyBefore[seg]) {
                return startsWith(b, p, end, lit) && match(b, seg + 1, p + lit.length, end);
            }
            for (long q = p; q + lit.length <= end; q++) {
                if (isCharStart(b, q) && startsWith(b, q, end, lit) && match(b, seg + 1, q + lit.length, end)) {
                    return true;
                }
            }
            return false;
        }

        private static boolean isCharStart(Values.Bytes b, long pos) {
            return (b.byteAt(pos) & 0xC0) != 0x80;
        }

        /** Skips {@code n} UTF-8 characters; -1 when the value ends first. */
        private static long skipChars(Values.Bytes b, long pos, long end, int n) {
            for (int k = 0; k < n; k++) {
                if (pos >= end) {
                    return -1;
                }
                pos++;
                while (pos < end && (b.byteAt(pos) & 0xC0) == 0x80) {
                    pos++;
                }
            }
            return pos;
        }

        private static boolean startsWith(Values.Bytes b, long pos, long end, byte[] lit) {
            if (end - pos < lit.length) {
                return false;
            }
            for (int k = 0; k < lit.length; k++) {
                if (b.byteAt(pos + k) != lit[k]) {
                    return false;
                }
            }
            return true;
        }
    }
}
