package io.javelin.engine.filter;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A filter bound to a schema and ready to evaluate over batches. Evaluation is column-at-a-time over
 * whole batches with SQL three-valued logic; only rows where the filter is TRUE are selected.
 *
 * <pre>{@code
 * Predicate p = Predicate.compile("score > 0.5 AND name LIKE 'ab%'", schema);
 * Selection s = p.evaluate(batch);
 * }</pre>
 */
public final class Predicate {

    /** The special columns a filter may read although no schema has them; the scan supplies them per batch. */
    public static final Set<String> ROW_COLUMNS = Set.of("_rowid", "_rowaddr", "_row_created_at_version",
            "_row_last_updated_at_version");

    private final String source;
    private final Node root;
    private final Set<String> columns;
    private final Set<String> rowColumns;

    private Predicate(String source, Node root, Set<String> columns, Set<String> rowColumns) {
        this.source = source;
        this.root = root;
        this.columns = columns;
        this.rowColumns = rowColumns;
    }

    /** Parses and binds {@code filter} against {@code schema}; errors are {@link FilterParseException}s with positions. */
    public static Predicate compile(String filter, Schema schema) {
        Expr expr = FilterParser.parse(filter);
        Binder binder = new Binder(filter, schema);
        Node node = Binder.matched(binder.bind(expr), expr);
        if (node.type().kind() != ValueType.Kind.BOOL && node.type().kind() != ValueType.Kind.NULL) {
            throw new FilterParseException(filter, expr.position(),
                    "filter must be a boolean expression, not " + node.type().description());
        }
        return new Predicate(filter, node, Set.copyOf(binder.columns), Set.copyOf(binder.rowColumns));
    }

    /** Binds a value expression of any type (for {@link ValueExpression}); adds the columns it reads to {@code columnsOut}. */
    static Node bindValue(String source, Expr expr, Schema schema, Set<String> columnsOut) {
        Binder b = new Binder(source, schema);
        Node n = b.bind(expr);
        columnsOut.addAll(b.columns);
        return n;
    }

    public String source() {
        return source;
    }

    /** Top-level column names the filter reads (what a scan must fetch to evaluate it). */
    public Set<String> referencedColumns() {
        return columns;
    }

    /**
     * The {@link #ROW_COLUMNS} the filter reads: the batch passed to {@link #evaluate} must carry them
     * as uint64 vectors of those names.
     */
    public Set<String> rowColumns() {
        return rowColumns;
    }

    public Selection evaluate(VectorSchemaRoot batch) {
        int rows = batch.getRowCount();
        Values v = root.eval(batch, rows);
        long[] out = new long[Bits.words(rows)];
        if (v instanceof Values.Bools b) {
            long[] valid = b.validOrAll();
            for (int k = 0; k < out.length; k++) {
                out[k] = b.value()[k] & valid[k];
            }
        }
        Bits.clearTail(out, rows);
        return new Selection(out, rows);
    }

    @Override
    public String toString() {
        return "Predicate[" + source + "]";
    }

    /** A bound sub-expression. */
    interface Node {
        ValueType type();

        Values eval(VectorSchemaRoot batch, int rows);
    }

    /** Resolves columns and literal types and checks that operands fit together. */
    private static final class Binder implements Binding {
        private final String source;
        private final Schema schema;
        private final Set<String> columns = new LinkedHashSet<>();
        private final Set<String> rowColumns = new LinkedHashSet<>();

        Binder(String source, Schema schema) {
            this.source = source;
            this.schema = schema;
        }

        @Override
        public FilterParseException error(Expr at, String message) {
            return new FilterParseException(source, at.position(), message);
        }

        @Override
        public Node bind(Expr e) {
            return switch (e) {
                case Expr.Column c -> column(c);
                case Expr.Literal l -> literal(l);
                case Expr.And a -> Logic.and(bindBool(a.left()), bindBool(a.right()));
                case Expr.Or o -> Logic.or(bindBool(o.left()), bindBool(o.right()));
                case Expr.Not n -> Logic.not(bindBool(n.operand()));
                case Expr.IsNull n -> Logic.isNull(matched(bind(n.operand()), n.operand()), n.negated());
                case Expr.IsBool b -> Logic.isBool(bindBool(b.operand()), b.target(), b.negated());
                case Expr.Compare c -> compare(c.op(), c.left(), c.right(), c);
                case Expr.Between b -> {
                    Node ge = compare(Expr.CompareOp.GE, b.operand(), b.low(), b);
                    Node le = compare(Expr.CompareOp.LE, b.operand(), b.high(), b);
                    Node both = Logic.and(ge, le);
                    yield b.negated() ? Logic.not(both) : both;
                }
                case Expr.In in -> {
                    Node any = null;
                    for (Expr value : in.values()) {
                        Node eq = compare(Expr.CompareOp.EQ, in.operand(), value, value);
                        any = any == null ? eq : Logic.or(any, eq);
                    }
                    yield in.negated() ? Logic.not(any) : any;
                }
                case Expr.Like l -> {
                    Node operand = bind(l.operand());
                    String op = l.caseInsensitive() ? "ILIKE" : "LIKE";
                    if (!operand.type().isBytes() && operand.type().kind() != ValueType.Kind.NULL) {
                        throw error(l, op + " needs a string operand, not " + operand.type().description());
                    }
                    if (operand.type().isNull()) {
                        yield Constant.nul();
                    }
                    Node like = Comparisons.like(operand, l.pattern(), l.caseInsensitive(),
                            l.escape() == null ? '\\' : l.escape());
                    yield l.negated() ? Logic.not(like) : like;
                }
                case Expr.Call c -> Functions.bind(c, this);
                case Expr.Case c -> ConditionalFunctions.caseWhen(c, this);
                case Expr.Subscript s -> ListFunctions.subscript(s, this);
                case Expr.ArrayLiteral a -> ListFunctions.literal(a, this);
                case Expr.IsDistinct d -> ConditionalFunctions.isDistinct(d, this);
                case Expr.Arithmetic a -> Arithmetic.of(a, bind(a.left()), bind(a.right()), this);
                case Expr.Negate n -> Arithmetic.negate(n, bind(n.operand()), this);
                case Expr.Cast c -> Casts.cast(c, bind(c.operand()), this);
            };
        }

        /** As in Lance, a regexp_match used as a condition means "matched". */
        static Node matched(Node n, Expr e) {
            if (n.type().kind() == ValueType.Kind.LIST && e instanceof Expr.Call c && c.name().equals("regexp_match")) {
                return Logic.isNull(n, true);
            }
            return n;
        }

        @Override
        public Node bindBool(Expr e) {
            Node n = matched(bind(e), e);
            ValueType.Kind k = n.type().kind();
            if (k != ValueType.Kind.BOOL && k != ValueType.Kind.NULL) {
                throw error(e, "expected a boolean expression, found " + n.type().description());
            }
            return n;
        }

        Node column(Expr.Column c) {
            List<String> path = c.path();
            if (path.size() == 1 && ROW_COLUMNS.contains(path.getFirst())
                    && schema.getFields().stream().noneMatch(f -> f.getName().equals(path.getFirst()))) {
                rowColumns.add(path.getFirst());
                return new ColumnNode(path, ValueType.UINT);
            }
            Field field = null;
            List<Field> candidates = schema.getFields();
            for (int depth = 0; depth < path.size(); depth++) {
                String name = path.get(depth);
                field = candidates.stream().filter(f -> f.getName().equals(name)).findFirst().orElse(null);
                if (field == null) {
                    throw error(c, "no column '" + String.join(".", path.subList(0, depth + 1)) + "'");
                }
                if (depth < path.size() - 1) {
                    if (!(field.getType() instanceof ArrowType.Struct)) {
                        throw error(c, "'" + String.join(".", path.subList(0, depth + 1)) + "' is not a struct");
                    }
                    candidates = field.getChildren();
                }
            }
            ValueType type = ColumnValues.typeOf(field);
            if (type == null) {
                throw error(c, "column '" + c.dotted() + "' of type " + field.getType() + " cannot be used in a filter");
            }
            columns.add(path.getFirst());
            return new ColumnNode(path, type);
        }

        Node literal(Expr.Literal l) {
            Object v = l.value();
            if (l.type() != null) {
                return Casts.typedLiteral(l, this);
            }
            return switch (v) {
                case null -> Constant.nul();
                case Long x -> Constant.ofLong(x, ValueType.INT);
                case Double x -> Constant.ofDouble(x);
                case Boolean x -> Constant.ofBool(x);
                case String s -> Constant.ofBytes(s.getBytes(StandardCharsets.UTF_8), ValueType.STRING, s);
                default -> throw error(l, "unsupported literal " + v);
            };
        }

        Node compare(Expr.CompareOp op, Expr left, Expr right, Expr at) {
            Node l = bind(left);
            Node r = bind(right);
            // Coerce string literals to the other side's temporal or numeric type, as SQL engines do.
            l = Casts.coerceLiteral(l, r.type(), left, this);
            r = Casts.coerceLiteral(r, l.type(), right, this);
            return Comparisons.compare(op, l, r, at, this);
        }
    }

    /** A column, possibly nested in structs; nulls of any enclosing struct make the value null. */
    private record ColumnNode(List<String> path, ValueType type) implements Node {
        @Override
        public Values eval(VectorSchemaRoot batch, int rows) {
            FieldVector v = batch.getVector(path.getFirst());
            if (v == null) {
                throw new FilterEvaluationException("batch has no column '" + path.getFirst() + "'");
            }
            long[] parentValid = null;
            for (int depth = 1; depth < path.size(); depth++) {
                parentValid = ColumnValues.validity(v, rows, parentValid);
                v = (FieldVector) ((StructVector) v).getChild(path.get(depth));
            }
            return ColumnValues.read(v, type, rows, parentValid);
        }
    }

    /** Constants: evaluated once per batch as length-1 broadcast columns. */
    record Constant(ValueType type, Values.Longs longs, Values.Doubles doubles, Values.Decimals decimals,
                    byte[] bytes, Boolean bool, String text) implements Node {
        static Constant nul() {
            return new Constant(ValueType.NULL, null, null, null, null, null, null);
        }

        static Constant ofLong(long v, ValueType type) {
            return new Constant(type, new Values.Longs(new long[] {v}, null, true, type.kind() == ValueType.Kind.UINT, 1),
                    null, null, null, null, null);
        }

        static Constant ofDouble(double v) {
            return new Constant(ValueType.FLOAT, null, new Values.Doubles(new double[] {v}, null, true, 1),
                    null, null, null, null);
        }

        static Constant ofDecimal(BigDecimal v, int scale) {
            BigInteger unscaled = v.setScale(scale, RoundingMode.UNNECESSARY).unscaledValue();
            long lo = unscaled.longValue();
            long hi = unscaled.shiftRight(64).longValue();
            return new Constant(ValueType.decimal(scale), null, null,
                    new Values.Decimals(new long[] {hi}, new long[] {lo}, scale, null, true, 1), null, null, null);
        }

        static Constant ofBool(boolean v) {
            return new Constant(ValueType.BOOL, null, null, null, null, v, null);
        }

        static Constant ofBytes(byte[] v, ValueType type, String text) {
            return new Constant(type, null, null, null, v, null, text);
        }

        @Override
        public Values eval(VectorSchemaRoot batch, int rows) {
            return switch (type.kind()) {
                case NULL -> new Values.Bools(new long[Bits.words(rows)], new long[Bits.words(rows)], rows);
                case BOOL -> new Values.Bools(bool ? Bits.allSet(rows) : new long[Bits.words(rows)], null, rows);
                case INT, UINT, DATE, TIMESTAMP -> withRows(longs, rows);
                case FLOAT -> new Values.Doubles(doubles.v(), null, true, rows);
                case DECIMAL -> new Values.Decimals(decimals.hi(), decimals.lo(), decimals.scale(), null, true, rows);
                case STRING, BINARY -> new Values.Bytes(null, null, 0, null, bytes, rows);
                case LIST -> throw new IllegalStateException("no list constants");
            };
        }

        private static Values.Longs withRows(Values.Longs l, int rows) {
            return new Values.Longs(l.v(), null, true, l.unsigned(), rows);
        }
    }

    static LocalDate parseDate(String text) {
        return LocalDate.parse(text.trim());
    }

    /** Parses a timestamp literal ('2021-01-01 00:00:00[.fff][+hh:mm|Z]' or a date) to nanoseconds since the epoch (UTC). */
    static BigInteger parseTimestampNanos(String text) {
        String s = text.trim().replace(' ', 'T');
        try {
            OffsetDateTime odt = OffsetDateTime.parse(s);
            return nanos(odt.toEpochSecond(), odt.getNano());
        } catch (DateTimeParseException e) {
            try {
                LocalDateTime ldt = LocalDateTime.parse(s);
                return nanos(ldt.toEpochSecond(ZoneOffset.UTC), ldt.getNano());
            } catch (DateTimeParseException e2) {
                LocalDate d = LocalDate.parse(s);
                return nanos(d.toEpochDay() * 86_400L, 0);
            }
        }
    }

    private static BigInteger nanos(long seconds, int nano) {
        return BigInteger.valueOf(seconds).multiply(BigInteger.valueOf(1_000_000_000L)).add(BigInteger.valueOf(nano));
    }

}
