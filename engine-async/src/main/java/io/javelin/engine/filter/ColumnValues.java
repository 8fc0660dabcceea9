package io.javelin.engine.filter;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float2Vector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/** Reads an Arrow column into {@link Values} in place, and maps Arrow types to filter types. */
final class ColumnValues {

    private ColumnValues() {
    }

    /** The filter type of an Arrow field, or null when filters cannot use it directly. */
    static ValueType typeOf(Field field) {
        ArrowType t = field.getType();
        return switch (t) {
            case ArrowType.Bool b -> ValueType.BOOL;
            case ArrowType.Int i -> !i.getIsSigned() && i.getBitWidth() == 64 ? ValueType.UINT : ValueType.INT;
            case ArrowType.FloatingPoint f -> ValueType.FLOAT;
            case ArrowType.Decimal d -> d.getBitWidth() == 128 ? ValueType.decimal(d.getScale()) : null;
            case ArrowType.Date d -> d.getUnit() == org.apache.arrow.vector.types.DateUnit.DAY ? ValueType.DATE : ValueType.timestamp(1_000_000L);
            case ArrowType.Timestamp ts -> ValueType.timestamp(unitNanos(ts.getUnit()));
            case ArrowType.Utf8 u -> ValueType.STRING;
            case ArrowType.LargeUtf8 u -> ValueType.STRING;
            case ArrowType.Binary b -> isLanceJson(field) ? ValueType.JSONB : ValueType.BINARY;
            case ArrowType.LargeBinary b -> isLanceJson(field) ? ValueType.JSONB : ValueType.BINARY;
            case ArrowType.List l -> listOf(field);
            case ArrowType.LargeList l -> listOf(field);
            case ArrowType.FixedSizeList l -> listOf(field);
            default -> null;
        };
    }

    static boolean isLanceJson(Field field) {
        return field.getMetadata() != null && "lance.json".equals(field.getMetadata().get("ARROW:extension:name"));
    }

    private static ValueType listOf(Field field) {
        ValueType element = field.getChildren().isEmpty() ? null : typeOf(field.getChildren().getFirst());
        return element == null || element.kind() == ValueType.Kind.LIST ? null : ValueType.list(element);
    }

    static long unitNanos(TimeUnit unit) {
        return switch (unit) {
            case SECOND -> 1_000_000_000L;
            case MILLISECOND -> 1_000_000L;
            case MICROSECOND -> 1_000L;
            case NANOSECOND -> 1L;
        };
    }

    /** Validity words of a vector, ANDed with {@code parentValid} (null = all valid) for nested fields. */
    static long[] validity(FieldVector vector, int rows, long[] parentValid) {
        if (vector.getNullCount() == 0 && parentValid == null) {
            return null;
        }
        long[] w = new long[Bits.words(rows)];
        ArrowBuf buf = vector.getValidityBuffer();
        for (int i = 0; i < rows; i++) {
            if ((buf.getByte(i >>> 3) >>> (i & 7) & 1) != 0) {
                Bits.set(w, i);
            }
        }
        if (parentValid != null) {
            for (int k = 0; k < w.length; k++) {
                w[k] &= parentValid[k];
            }
        }
        return w;
    }

    static Values read(FieldVector vector, ValueType type, int rows, long[] parentValid) {
        long[] valid = validity(vector, rows, parentValid);
        switch (type.kind()) {
            case BOOL: {
                ArrowBuf bits = ((BitVector) vector).getDataBuffer();
                long[] value = new long[Bits.words(rows)];
                for (int i = 0; i < rows; i++) {
                    if ((bits.getByte(i >>> 3) >>> (i & 7) & 1) != 0) {
                        Bits.set(value, i);
                    }
                }
                return new Values.Bools(value, valid, rows);
            }
            case INT, UINT, DATE, TIMESTAMP: {
                long[] v = new long[rows];
                readIntegers(vector, rows, v);
                return new Values.Longs(v, valid, false, type.kind() == ValueType.Kind.UINT, rows);
            }
            case FLOAT: {
                double[] v = new double[rows];
                switch (vector) {
                    case Float8Vector f -> {
                        for (int i = 0; i < rows; i++) {
                            v[i] = f.getDataBuffer().getDouble((long) i * 8);
                        }
                    }
                    case Float4Vector f -> {
                        for (int i = 0; i < rows; i++) {
                            v[i] = f.getDataBuffer().getFloat((long) i * 4);
                        }
                    }
                    case Float2Vector f -> {
                        for (int i = 0; i < rows; i++) {
                            v[i] = Float.float16ToFloat(f.getDataBuffer().getShort((long) i * 2));
                        }
                    }
                    default -> throw new IllegalStateException("not a float vector: " + vector.getField());
                }
                return new Values.Doubles(v, valid, false, rows);
            }
            case DECIMAL: {
                ArrowBuf data = ((DecimalVector) vector).getDataBuffer();
                long[] hi = new long[rows];
                long[] lo = new long[rows];
                for (int i = 0; i < rows; i++) {
                    lo[i] = data.getLong((long) i * 16);
                    hi[i] = data.getLong((long) i * 16 + 8);
                }
                return new Values.Decimals(hi, lo, type.scale(), valid, false, rows);
            }
            case STRING, BINARY: {
                if (vector instanceof BaseLargeVariableWidthVector large) {
                    return new Values.Bytes(large.getOffsetBuffer(), large.getDataBuffer(), 8, valid, null, rows);
                }
                BaseVariableWidthVector var = (BaseVariableWidthVector) vector;
                return new Values.Bytes(var.getOffsetBuffer(), var.getDataBuffer(), 4, valid, null, rows);
            }
            case LIST:
                return readList(vector, type, rows, valid);
            default:
                throw new IllegalStateException("unreadable filter type " + type);
        }
    }

    private static Values readList(FieldVector vector, ValueType type, int rows, long[] valid) {
        int[] offsets = new int[rows + 1];
        FieldVector items;
        switch (vector) {
            case org.apache.arrow.vector.complex.ListVector l -> {
                ArrowBuf o = l.getOffsetBuffer();
                for (int i = 0; i <= rows; i++) {
                    offsets[i] = rows == 0 ? 0 : o.getInt((long) i * 4);
                }
                items = l.getDataVector();
            }
            case org.apache.arrow.vector.complex.LargeListVector l -> {
                ArrowBuf o = l.getOffsetBuffer();
                for (int i = 0; i <= rows; i++) {
                    offsets[i] = rows == 0 ? 0 : Math.toIntExact(o.getLong((long) i * 8));
                }
                items = l.getDataVector();
            }
            case org.apache.arrow.vector.complex.FixedSizeListVector l -> {
                for (int i = 0; i <= rows; i++) {
                    offsets[i] = i * l.getListSize();
                }
                items = l.getDataVector();
            }
            default -> throw new IllegalStateException("not a list vector: " + vector.getField());
        }
        int base = offsets[0];
        int itemRows = offsets[rows];
        Values itemValues = read(items, type.element(), itemRows, null);
        if (base != 0) {
            throw new IllegalStateException("list offsets must start at 0");
        }
        return new Values.Lists(offsets, itemValues, valid, false, rows);
    }

    private static void readIntegers(FieldVector vector, int rows, long[] out) {
        ArrowBuf data = ((BaseFixedWidthVector) vector).getDataBuffer();
        ArrowType t = vector.getField().getType();
        int width;
        boolean signed;
        if (t instanceof ArrowType.Int i) {
            width = i.getBitWidth() / 8;
            signed = i.getIsSigned();
        } else if (vector instanceof DateDayVector) {
            width = 4;
            signed = true;
        } else if (vector instanceof TimeStampVector || t instanceof ArrowType.Date) {
            width = 8;
            signed = true;
        } else {
            throw new IllegalStateException("not an integer vector: " + vector.getField());
        }
        for (int i = 0; i < rows; i++) {
            long at = (long) i * width;
            out[i] = switch (width) {
                case 1 -> signed ? data.getByte(at) : data.getByte(at) & 0xFFL;
                case 2 -> signed ? data.getShort(at) : data.getShort(at) & 0xFFFFL;
                case 4 -> signed ? data.getInt(at) : data.getInt(at) & 0xFFFF_FFFFL;
                default -> data.getLong(at);
            };
        }
    }
}
