package io.javelin.engine.filter;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.time.DateTimeException;
import org.apache.arrow.vector.VectorSchemaRoot;

/** CAST, typed literals ({@code date '…'}, {@code timestamp(3) '…'}, {@code decimal(8,3) '…'}) and literal coercion. */
final class Casts {

    private static final long NANOS_PER_DAY = 86_400_000_000_000L;

    private Casts() {
    }

    static long precisionToUnitNanos(int precision) {
        return switch (precision) {
            case 0 -> 1_000_000_000L;
            case 3 -> 1_000_000L;
            case 9 -> 1L;
            default -> 1_000L;
        };
    }

    static Predicate.Node typedLiteral(Expr.Literal l, BindErrors errors) {
        String text = (String) l.value();
        SqlType t = l.type();
        try {
            return switch (t.kind()) {
                case DATE -> Predicate.Constant.ofLong(Predicate.parseDate(text).toEpochDay(), ValueType.DATE);
                case TIMESTAMP -> timestampConstant(text, precisionToUnitNanos(t.precision()));
                case DECIMAL -> decimalConstant(new BigDecimal(text.trim()), t.scale(), t.precision(), l, errors);
                default -> throw errors.error(l, "unsupported typed literal");
            };
        } catch (DateTimeException | NumberFormatException e) {
            throw errors.error(l, "cannot interpret '" + text + "' as " + t.kind().name().toLowerCase());
        }
    }

    private static Predicate.Constant timestampConstant(String text, long unitNanos) {
        BigInteger nanos = Predicate.parseTimestampNanos(text);
        BigInteger[] qr = nanos.divideAndRemainder(BigInteger.valueOf(unitNanos));
        BigInteger floor = qr[1].signum() < 0 ? qr[0].subtract(BigInteger.ONE) : qr[0];
        return Predicate.Constant.ofLong(floor.longValueExact(), ValueType.timestamp(unitNanos));
    }

    private static Predicate.Constant decimalConstant(BigDecimal v, int scale, int precision, Expr at, BindErrors errors) {
        try {
            BigDecimal scaled = v.setScale(scale, RoundingMode.UNNECESSARY);
            if (scaled.precision() > precision && scaled.signum() != 0) {
                throw errors.error(at, "value " + v + " does not fit DECIMAL(" + precision + "," + scale + ")");
            }
            return Predicate.Constant.ofDecimal(scaled, scale);
        } catch (ArithmeticException e) {
            throw errors.error(at, "value " + v + " has more than " + scale + " decimal places");
        }
    }

    /** A string constant compared with a typed operand takes that operand's type (e.g. date_col = '2021-01-01'). */
    static Predicate.Node coerceLiteral(Predicate.Node node, ValueType target, Expr at, BindErrors errors) {
        if (!(node instanceof Predicate.Constant c) || c.type().kind() != ValueType.Kind.STRING || c.text() == null) {
            return node;
        }
        String text = c.text();
        try {
            return switch (target.kind()) {
                case DATE -> Predicate.Constant.ofLong(Predicate.parseDate(text).toEpochDay(), ValueType.DATE);
                case TIMESTAMP -> timestampConstant(text, target.unitNanos());
                case INT -> Predicate.Constant.ofLong(Long.parseLong(text.trim()), ValueType.INT);
                case UINT -> Predicate.Constant.ofLong(Long.parseUnsignedLong(text.trim()), ValueType.UINT);
                case FLOAT -> Predicate.Constant.ofDouble(Double.parseDouble(text.trim()));
                case DECIMAL -> decimalConstant(new BigDecimal(text.trim()), target.scale(), 38, at, errors);
                case BOOL -> Predicate.Constant.ofBool(parseBool(text, at, errors));
                default -> node;
            };
        } catch (DateTimeException | NumberFormatException e) {
            throw errors.error(at, "cannot interpret '" + text + "' as " + target.description());
        }
    }

    private static boolean parseBool(String text, Expr at, BindErrors errors) {
        return switch (text.trim().toLowerCase()) {
            case "true", "t", "1" -> true;
            case "false", "f", "0" -> false;
            default -> throw errors.error(at, "cannot interpret '" + text + "' as boolean");
        };
    }

    static Predicate.Node cast(Expr.Cast c, Predicate.Node operand, BindErrors errors) {
        SqlType target = c.type();
        ValueType from = operand.type();
        if (from.kind() == ValueType.Kind.NULL) {
            return operand;
        }
        if (operand instanceof Predicate.Constant k && from.kind() == ValueType.Kind.STRING && k.text() != null) {
            if (target.kind() == SqlType.Kind.STRING) {
                return operand;
            }
            if (target.kind() == SqlType.Kind.BINARY) {
                return Predicate.Constant.ofBytes(k.bytes(), ValueType.BINARY, null);
            }
            Expr.Literal lit = new Expr.Literal(k.text(), target, c.position());
            if (target.kind() == SqlType.Kind.DATE || target.kind() == SqlType.Kind.TIMESTAMP
                    || target.kind() == SqlType.Kind.DECIMAL) {
                return typedLiteral(lit, errors);
            }
            return coerceLiteral(operand, valueTypeOf(target), c, errors);
        }
        return switch (target.kind()) {
            case INT8, UINT8, INT16, UINT16, INT32, UINT32, INT64, UINT64 -> toInteger(c, operand, target, errors);
            case FLOAT32, FLOAT64 -> toFloat(c, operand, target.kind() == SqlType.Kind.FLOAT32, errors);
            case DATE, TIMESTAMP -> toTemporal(c, operand, target, errors);
            case STRING, BINARY -> {
                if (!from.isBytes()) {
                    throw errors.error(c, "cannot cast a " + from.description() + " column to " + target.kind());
                }
                ValueType to = target.kind() == SqlType.Kind.STRING ? ValueType.STRING : ValueType.BINARY;
                yield retype(operand, to);
            }
            case BOOLEAN -> {
                if (from.kind() == ValueType.Kind.BOOL) {
                    yield operand;
                }
                if (from.kind() == ValueType.Kind.INT || from.kind() == ValueType.Kind.UINT) {
                    yield Comparisons.compare(Expr.CompareOp.NE, operand, Predicate.Constant.ofLong(0, ValueType.INT), c, errors);
                }
                throw errors.error(c, "cannot cast " + from.description() + " to BOOLEAN");
            }
            case DECIMAL -> {
                if (from.kind() == ValueType.Kind.DECIMAL && from.scale() == target.scale()) {
                    yield operand;
                }
                throw errors.error(c, "CAST of a " + from.description() + " column to DECIMAL is not supported");
            }
        };
    }

    private static ValueType valueTypeOf(SqlType t) {
        return switch (t.kind()) {
            case BOOLEAN -> ValueType.BOOL;
            case UINT64 -> ValueType.UINT;
            case FLOAT32, FLOAT64 -> ValueType.FLOAT;
            case STRING -> ValueType.STRING;
            case BINARY -> ValueType.BINARY;
            default -> ValueType.INT;
        };
    }

    private static Predicate.Node retype(Predicate.Node operand, ValueType to) {
        return new Predicate.Node() {
            @Override
            public ValueType type() {
                return to;
            }

            @Override
            public Values eval(VectorSchemaRoot batch, int rows) {
                return operand.eval(batch, rows);
            }
        };
    }

    private static Predicate.Node toInteger(Expr.Cast c, Predicate.Node operand, SqlType target, BindErrors errors) {
        ValueType from = operand.type();
        if (!from.isNumeric() && !from.isBytes() && from.kind() != ValueType.Kind.BOOL) {
            throw errors.error(c, "cannot cast " + from.description() + " to " + target.kind());
        }
        boolean unsigned64 = target.kind() == SqlType.Kind.UINT64;
        long[] range = switch (target.kind()) {
            case INT8 -> new long[] {Byte.MIN_VALUE, Byte.MAX_VALUE};
            case UINT8 -> new long[] {0, 255};
            case INT16 -> new long[] {Short.MIN_VALUE, Short.MAX_VALUE};
            case UINT16 -> new long[] {0, 65535};
            case INT32 -> new long[] {Integer.MIN_VALUE, Integer.MAX_VALUE};
            case UINT32 -> new long[] {0, 0xFFFF_FFFFL};
            case UINT64 -> new long[] {0, Long.MAX_VALUE};
            default -> new long[] {Long.MIN_VALUE, Long.MAX_VALUE};
        };
        return new Predicate.Node() {
            @Override
            public ValueType type() {
                return unsigned64 ? ValueType.UINT : ValueType.INT;
            }

            @Override
            public Values eval(VectorSchemaRoot batch, int rows) {
                Values v = operand.eval(batch, rows);
                long[] valid = v.validityWords();
                long[] out = new long[rows];
                for (int i = 0; i < rows; i++) {
                    if (!Bits.get(valid, i)) {
                        continue;
                    }
                    long x = switch (v) {
                        case Values.Longs l -> {
                            if (l.unsigned() && l.get(i) < 0 && !unsigned64) {
                                throw new FilterEvaluationException("value " + Long.toUnsignedString(l.get(i)) + " out of range for " + target.kind());
                            }
                            yield l.get(i);
                        }
                        case Values.Doubles d -> {
                            double dv = d.get(i);
                            if (Double.isNaN(dv) || dv < -9.223372036854776E18 || dv >= 9.223372036854776E18) {
                                throw new FilterEvaluationException("value " + dv + " out of range for " + target.kind());
                            }
                            yield (long) dv;
                        }
                        case Values.Decimals d -> (long) d.toDouble(i);
                        case Values.Bools b -> Bits.get(b.value(), i) ? 1 : 0;
                        case Values.Bytes b -> parseLong(b, i);
                        case Values.Lists l -> throw new IllegalStateException("list cast to integer");
                    };
                    if (!(v instanceof Values.Longs l && l.unsigned() && unsigned64) && (x < range[0] || x > range[1])) {
                        throw new FilterEvaluationException("value " + x + " out of range for " + target.kind());
                    }
                    out[i] = x;
                }
                return new Values.Longs(out, valid, false, unsigned64, rows);
            }
        };
    }

    private static long parseLong(Values.Bytes b, int i) {
        String s = text(b, i).trim();
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            throw new FilterEvaluationException("cannot cast '" + s + "' to an integer");
        }
    }

    private static String text(Values.Bytes b, int i) {
        long start = b.start(i);
        int len = (int) (b.end(i) - start);
        byte[] bytes = new byte[len];
        for (int k = 0; k < len; k++) {
            bytes[k] = b.byteAt(start + k);
        }
        return new String(bytes, StandardCharsets.UTF_8);
    }

    private static Predicate.Node toFloat(Expr.Cast c, Predicate.Node operand, boolean single, BindErrors errors) {
        ValueType from = operand.type();
        if (!from.isNumeric() && !from.isBytes()) {
            throw errors.error(c, "cannot cast " + from.description() + " to a floating point type");
        }
        return new Predicate.Node() {
            @Override
            public ValueType type() {
                return ValueType.FLOAT;
            }

            @Override
            public Values eval(VectorSchemaRoot batch, int rows) {
                Values v = operand.eval(batch, rows);
                long[] valid = v.validityWords();
                double[] out = new double[rows];
                Comparisons.DoubleAt at = v instanceof Values.Bytes ? null : Comparisons.doubles(v);
                for (int i = 0; i < rows; i++) {
                    if (!Bits.get(valid, i)) {
                        continue;
                    }
                    double d;
                    if (at != null) {
                        d = at.get(i);
                    } else {
                        String s = text((Values.Bytes) v, i).trim();
                        try {
                            d = Double.parseDouble(s);
                        } catch (NumberFormatException e) {
                            throw new FilterEvaluationException("cannot cast '" + s + "' to a floating point number");
                        }
                    }
                    out[i] = single ? (float) d : d;
                }
                return new Values.Doubles(out, valid, false, rows);
            }
        };
    }

    private static Predicate.Node toTemporal(Expr.Cast c, Predicate.Node operand, SqlType target, BindErrors errors) {
        ValueType from = operand.type();
        if (from.kind() != ValueType.Kind.DATE && from.kind() != ValueType.Kind.TIMESTAMP) {
            throw errors.error(c, "cannot cast a " + from.description() + " column to " + target.kind());
        }
        long fromUnit = from.kind() == ValueType.Kind.DATE ? NANOS_PER_DAY : from.unitNanos();
        long toUnit = target.kind() == SqlType.Kind.DATE ? NANOS_PER_DAY : precisionToUnitNanos(target.precision());
        ValueType to = target.kind() == SqlType.Kind.DATE ? ValueType.DATE : ValueType.timestamp(toUnit);
        return new Predicate.Node() {
            @Override
            public ValueType type() {
                return to;
            }

            @Override
            public Values eval(VectorSchemaRoot batch, int rows) {
                Values.Longs v = (Values.Longs) operand.eval(batch, rows);
                long[] out = new long[rows];
                for (int i = 0; i < rows; i++) {
                    long x = v.get(i);
                    out[i] = fromUnit >= toUnit ? x * (fromUnit / toUnit) : Math.floorDiv(x, toUnit / fromUnit);
                }
                return new Values.Longs(out, v.validityWords(), false, false, rows);
            }
        };
    }
}
