package io.javelin.engine.filter;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt2Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A SQL value expression ({@code price * 1.1}, {@code CAST(id AS string)}, {@code a + b}, {@code x > 3})
 * bound to a schema and evaluated column-at-a-time into a new Arrow vector: what {@code add_columns}
 * with SQL expressions, {@code update ... SET} and merge-insert conditions compute. Same grammar and
 * evaluator as filters.
 *
 * <p>Result type when not given: a bare column keeps its Arrow type; integer arithmetic takes the
 * widest integer column it reads (Int64 when it reads none, as a literal-only expression is), floats
 * become Float64, booleans Bool, strings Utf8, dates Date32, timestamps the unit (and zone) of the
 * timestamp column read. Nullable unless every column read is non-nullable.
 */
public final class ValueExpression {

    private final String source;
    private final Predicate.Node node;
    private final Set<String> columns;
    private final Field inferred;

    private ValueExpression(String source, Predicate.Node node, Set<String> columns, Field inferred) {
        this.source = source;
        this.node = node;
        this.columns = columns;
        this.inferred = inferred;
    }

    /** Parses and binds; errors are {@link FilterParseException}s with positions. */
    public static ValueExpression compile(String expression, Schema schema) {
        Expr expr = FilterParser.parse(expression);
        Set<String> cols = new LinkedHashSet<>();
        Predicate.Node node = Predicate.bindValue(expression, expr, schema, cols);
        List<Field> read = new ArrayList<>();
        collect(expr, schema, read);
        return new ValueExpression(expression, node, Set.copyOf(cols), infer(expression, expr, node.type(), read));
    }

    public String source() {
        return source;
    }

    /** Top-level columns the expression reads. */
    public Set<String> referencedColumns() {
        return columns;
    }

    /** The inferred result field, named {@code name}. */
    public Field resultField(String name) {
        return new Field(name, inferred.getFieldType(), inferred.getChildren());
    }

    /** Evaluates over {@code batch} into a new vector of {@code target}'s type (the caller owns it). */
    public FieldVector evaluate(VectorSchemaRoot batch, Field target, BufferAllocator allocator) {
        int rows = batch.getRowCount();
        Values v = node.eval(batch, rows);
        FieldVector out = target.createVector(allocator);
        try {
            out.allocateNew();
            write(v, node.type(), out, rows);
            out.setValueCount(rows);
            return out;
        } catch (RuntimeException e) {
            out.close();
            throw e;
        }
    }

    private static void collect(Expr e, Schema schema, List<Field> out) {
        switch (e) {
            case Expr.Column c -> {
                Field f = null;
                List<Field> candidates = schema.getFields();
                for (String p : c.path()) {
                    f = candidates.stream().filter(x -> x.getName().equals(p)).findFirst().orElse(null);
                    if (f == null) {
                        return;
                    }
                    candidates = f.getChildren();
                }
                out.add(f);
            }
            case Expr.Arithmetic a -> {
                collect(a.left(), schema, out);
                collect(a.right(), schema, out);
            }
            case Expr.Negate n -> collect(n.operand(), schema, out);
            case Expr.Compare c -> {
                collect(c.left(), schema, out);
                collect(c.right(), schema, out);
            }
            case Expr.And a -> {
                collect(a.left(), schema, out);
                collect(a.right(), schema, out);
            }
            case Expr.Or o -> {
                collect(o.left(), schema, out);
                collect(o.right(), schema, out);
            }
            case Expr.Not n -> collect(n.operand(), schema, out);
            case Expr.IsNull n -> collect(n.operand(), schema, out);
            case Expr.IsBool b -> collect(b.operand(), schema, out);
            case Expr.In in -> {
                collect(in.operand(), schema, out);
                in.values().forEach(x -> collect(x, schema, out));
            }
            case Expr.Between b -> {
                collect(b.operand(), schema, out);
                collect(b.low(), schema, out);
                collect(b.high(), schema, out);
            }
            case Expr.Like l -> collect(l.operand(), schema, out);
            case Expr.Cast c -> collect(c.operand(), schema, out);
            case Expr.Literal l -> { }
            case Expr.Call c -> c.args().forEach(x -> collect(x, schema, out));
            case Expr.Case c -> {
                if (c.operand() != null) {
                    collect(c.operand(), schema, out);
                }
                c.whens().forEach(x -> collect(x, schema, out));
                c.thens().forEach(x -> collect(x, schema, out));
                if (c.otherwise() != null) {
                    collect(c.otherwise(), schema, out);
                }
            }
            case Expr.Subscript s -> {
                collect(s.base(), schema, out);
                collect(s.index(), schema, out);
            }
            case Expr.ArrayLiteral a -> a.items().forEach(x -> collect(x, schema, out));
            case Expr.IsDistinct d -> {
                collect(d.left(), schema, out);
                collect(d.right(), schema, out);
            }
        }
    }

    private static Field infer(String source, Expr expr, ValueType t, List<Field> read) {
        boolean nullable = read.isEmpty() ? hasNullLiteral(expr) || t.kind() == ValueType.Kind.NULL
                : read.stream().anyMatch(Field::isNullable);
        if (expr instanceof Expr.Column && read.size() == 1) {
            Field f = read.getFirst();
            return new Field(f.getName(), f.getFieldType(), f.getChildren());
        }
        ArrowType type = switch (t.kind()) {
            case NULL -> ArrowType.Null.INSTANCE;
            case BOOL -> ArrowType.Bool.INSTANCE;
            case INT -> {
                int width = 0;
                boolean signed = true;
                for (Field f : read) {
                    if (f.getType() instanceof ArrowType.Int i && i.getBitWidth() > width) {
                        width = i.getBitWidth();
                        signed = i.getIsSigned();
                    }
                }
                yield width == 0 ? new ArrowType.Int(64, true) : new ArrowType.Int(width, signed);
            }
            case UINT -> new ArrowType.Int(64, false);
            case FLOAT -> new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
            case DECIMAL -> new ArrowType.Decimal(38, t.scale(), 128);
            case DATE -> new ArrowType.Date(org.apache.arrow.vector.types.DateUnit.DAY);
            case TIMESTAMP -> {
                String tz = null;
                for (Field f : read) {
                    if (f.getType() instanceof ArrowType.Timestamp ts) {
                        tz = ts.getTimezone();
                    }
                }
                yield new ArrowType.Timestamp(unitOf(t.unitNanos()), tz);
            }
            case STRING -> ArrowType.Utf8.INSTANCE;
            case BINARY -> ArrowType.Binary.INSTANCE;
            case LIST -> throw new FilterParseException(source, expr.position(),
                    "list-valued expressions cannot be computed into a column yet");
        };
        if (type instanceof ArrowType.Null) {
            nullable = true;
        }
        return new Field("expr", new FieldType(nullable, type, null), null);
    }

    private static boolean hasNullLiteral(Expr e) {
        return e instanceof Expr.Literal l && l.value() == null;
    }

    private static TimeUnit unitOf(long nanos) {
        if (nanos == 1_000_000_000L) {
            return TimeUnit.SECOND;
        }
        if (nanos == 1_000_000L) {
            return TimeUnit.MILLISECOND;
        }
        if (nanos == 1_000L) {
            return TimeUnit.MICROSECOND;
        }
        return TimeUnit.NANOSECOND;
    }

    private void fail(String what, FieldVector out) {
        throw new FilterEvaluationException("cannot store " + what + " of '" + source + "' in column '"
                + out.getField().getName() + "' of type " + out.getField().getType());
    }

    private void write(Values v, ValueType t, FieldVector out, int rows) {
        if (t.kind() == ValueType.Kind.NULL || out.getField().getType() instanceof ArrowType.Null) {
            return; // allocateNew left every slot null
        }
        for (int i = 0; i < rows; i++) {
            if (!v.isValid(i)) {
                continue; // validity stays 0
            }
            switch (v) {
                case Values.Longs l -> setLong(out, i, l.get(i), t, l.unsigned());
                case Values.Doubles d -> setDouble(out, i, d.get(i));
                case Values.Bools b -> {
                    if (out instanceof BitVector bv) {
                        bv.setSafe(i, Bits.get(b.value(), i) ? 1 : 0);
                    } else {
                        fail("a boolean", out);
                    }
                }
                case Values.Decimals d -> setDecimal(out, i, d, t);
                case Values.Bytes b -> setBytes(out, i, b);
                case Values.Lists l -> fail("a list", out);
            }
        }
    }

    private void setLong(FieldVector out, int i, long x, ValueType t, boolean unsigned) {
        if (t.kind() == ValueType.Kind.TIMESTAMP || t.kind() == ValueType.Kind.DATE) {
            setTemporal(out, i, x, t);
            return;
        }
        switch (out) {
            case BigIntVector v -> v.setSafe(i, checkedUnsigned(x, unsigned, Long.MIN_VALUE, Long.MAX_VALUE, out));
            case IntVector v -> v.setSafe(i, (int) range(x, Integer.MIN_VALUE, Integer.MAX_VALUE, out));
            case SmallIntVector v -> v.setSafe(i, (short) range(x, Short.MIN_VALUE, Short.MAX_VALUE, out));
            case TinyIntVector v -> v.setSafe(i, (byte) range(x, Byte.MIN_VALUE, Byte.MAX_VALUE, out));
            case UInt8Vector v -> {
                if (!unsigned && x < 0) {
                    fail("negative value " + x, out);
                }
                v.setSafe(i, x);
            }
            case UInt4Vector v -> v.setSafe(i, (int) range(x, 0, 0xFFFF_FFFFL, out));
            case UInt2Vector v -> v.setSafe(i, (char) range(x, 0, 0xFFFF, out));
            case UInt1Vector v -> v.setSafe(i, (byte) range(x, 0, 0xFF, out));
            case Float8Vector v -> v.setSafe(i, unsigned ? Comparisons.unsignedToDouble(x) : (double) x);
            case Float4Vector v -> v.setSafe(i, (float) (unsigned ? Comparisons.unsignedToDouble(x) : (double) x));
            case DecimalVector v -> v.setSafe(i, BigDecimal.valueOf(x).setScale(v.getScale()));
            default -> fail("an integer", out);
        }
    }

    private long checkedUnsigned(long x, boolean unsigned, long lo, long hi, FieldVector out) {
        if (unsigned && x < 0) {
            fail("value " + Long.toUnsignedString(x) + " (out of range)", out);
        }
        return x;
    }

    private long range(long x, long lo, long hi, FieldVector out) {
        if (x < lo || x > hi) {
            fail("value " + x + " (out of range)", out);
        }
        return x;
    }

    private void setTemporal(FieldVector out, int i, long x, ValueType t) {
        long nanos = t.kind() == ValueType.Kind.DATE ? 86_400_000_000_000L : t.unitNanos();
        switch (out) {
            case DateDayVector v -> v.setSafe(i, (int) (t.kind() == ValueType.Kind.DATE ? x
                    : Math.floorDiv(x, 86_400_000_000_000L / nanos)));
            case DateMilliVector v -> v.setSafe(i, convert(x, nanos, 1_000_000L));
            case TimeStampVector v -> {
                TimeUnit u = ((ArrowType.Timestamp) v.getField().getType()).getUnit();
                v.setSafe(i, convert(x, nanos, ColumnValues.unitNanos(u)));
            }
            default -> fail("a " + t.description(), out);
        }
    }

    private static long convert(long x, long fromNanos, long toNanos) {
        if (fromNanos == toNanos) {
            return x;
        }
        if (fromNanos > toNanos) {
            return Math.multiplyExact(x, fromNanos / toNanos);
        }
        return Math.floorDiv(x, toNanos / fromNanos);
    }

    private void setDouble(FieldVector out, int i, double x) {
        switch (out) {
            case Float8Vector v -> v.setSafe(i, x);
            case Float4Vector v -> v.setSafe(i, (float) x);
            case DecimalVector v -> v.setSafe(i, BigDecimal.valueOf(x).setScale(v.getScale(), java.math.RoundingMode.HALF_UP));
            default -> fail("a floating point value", out);
        }
    }

    private void setDecimal(FieldVector out, int i, Values.Decimals d, ValueType t) {
        int a = d.constant() ? 0 : i;
        BigInteger unscaled = BigInteger.valueOf(d.hi()[a]).shiftLeft(64).or(new BigInteger(Long.toUnsignedString(d.lo()[a])));
        BigDecimal x = new BigDecimal(unscaled, d.scale());
        switch (out) {
            case DecimalVector v -> v.setSafe(i, x.setScale(v.getScale(), java.math.RoundingMode.HALF_UP));
            case Float8Vector v -> v.setSafe(i, x.doubleValue());
            case Float4Vector v -> v.setSafe(i, x.floatValue());
            default -> fail("a decimal", out);
        }
    }

    private void setBytes(FieldVector out, int i, Values.Bytes b) {
        long s = b.start(i);
        long e = b.end(i);
        byte[] bytes = new byte[(int) (e - s)];
        for (int k = 0; k < bytes.length; k++) {
            bytes[k] = b.byteAt(s + k);
        }
        switch (out) {
            case BaseVariableWidthVector v -> v.setSafe(i, bytes);
            case BaseLargeVariableWidthVector v -> v.setSafe(i, bytes);
            default -> fail("the string '" + new String(bytes, StandardCharsets.UTF_8) + "'", out);
        }
    }
}
