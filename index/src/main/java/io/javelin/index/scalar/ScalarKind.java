package io.javelin.index.scalar;

import io.javelin.index.CorruptIndexException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Comparator;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float2Vector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.LargeVarBinaryVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt2Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * How scalar index values are held and ordered in Java, per Arrow type. Values are boxed only at
 * index-query edges and in per-page work, never in the vector kernels:
 * <ul>
 *   <li>{@link #SIGNED}: Int8..Int64, Date32/64, Timestamp → {@code Long}, signed order;</li>
 *   <li>{@link #UNSIGNED}: UInt8..UInt64 → {@code Long} holding the raw bits, unsigned order;</li>
 *   <li>{@link #FLOAT}: Float16/32/64 → {@code Double} (exact widening), IEEE total order
 *       {@code -NaN < -inf < … < -0 < +0 < … < +inf < NaN} as Lance sorts BTree pages;</li>
 *   <li>{@link #UTF8}: Utf8/LargeUtf8 → {@code String}, ordered by UTF-8 bytes (= code points);</li>
 *   <li>{@link #BINARY}: Binary/LargeBinary → {@link Bytes}, unsigned lexicographic;</li>
 *   <li>{@link #BOOL}: {@code Boolean}, false < true.</li>
 * </ul>
 */
public enum ScalarKind {
    SIGNED, UNSIGNED, FLOAT, UTF8, BINARY, BOOL;

    /** Immutable byte string with value equality (binary keys). */
    public record Bytes(byte[] value) implements Comparable<Bytes> {
        @Override
        public boolean equals(Object o) {
            return o instanceof Bytes b && Arrays.equals(value, b.value);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(value);
        }

        @Override
        public int compareTo(Bytes o) {
            return Arrays.compareUnsigned(value, o.value);
        }
    }

    public static ScalarKind of(ArrowType t, String resource) {
        return switch (t.getTypeID()) {
            case Int -> ((ArrowType.Int) t).getIsSigned() ? SIGNED : UNSIGNED;
            case Date, Timestamp, Time, Duration -> SIGNED;
            case FloatingPoint -> FLOAT;
            case Utf8, LargeUtf8 -> UTF8;
            case Binary, LargeBinary -> BINARY;
            case Bool -> BOOL;
            default -> throw new CorruptIndexException(resource, "Unsupported scalar index value type " + t);
        };
    }

    /** Total order used to sort values (never called with null). */
    @SuppressWarnings("unchecked")
    public int compare(Object a, Object b) {
        return switch (this) {
            case SIGNED -> Long.compare((Long) a, (Long) b);
            case UNSIGNED -> Long.compareUnsigned((Long) a, (Long) b);
            case FLOAT -> Long.compare(totalOrderKey((Double) a), totalOrderKey((Double) b));
            case UTF8 -> compareUtf8((String) a, (String) b);
            case BINARY -> ((Bytes) a).compareTo((Bytes) b);
            case BOOL -> Boolean.compare((Boolean) a, (Boolean) b);
        };
    }

    /** Nulls first, then {@link #compare}. */
    public Comparator<Object> nullsFirst() {
        return (a, b) -> a == null ? (b == null ? 0 : -1) : (b == null ? 1 : compare(a, b));
    }

    /** Maps IEEE bits to a signed long whose order is the total order (Rust's {@code total_cmp}). */
    public static long totalOrderKey(double d) {
        long bits = Double.doubleToRawLongBits(d);
        return bits ^ ((bits >> 63) >>> 1);
    }

    static int compareUtf8(String a, String b) {
        int n = Math.min(a.length(), b.length());
        for (int i = 0; i < n; ) {
            int ca = a.codePointAt(i), cb = b.codePointAt(i);
            if (ca != cb) {
                return Integer.compare(ca, cb);
            }
            i += Character.charCount(ca);
        }
        return Integer.compare(a.length(), b.length());
    }

    /** Normalises a user-supplied literal to this kind's Java type (e.g. an Integer to Long). */
    public Object coerce(Object v) {
        if (v == null) {
            return null;
        }
        return switch (this) {
            case SIGNED, UNSIGNED -> ((Number) v).longValue();
            case FLOAT -> ((Number) v).doubleValue();
            case UTF8 -> v.toString();
            case BINARY -> v instanceof byte[] b ? new Bytes(b.clone()) : (Bytes) v;
            case BOOL -> (Boolean) v;
        };
    }

    /** The value at {@code i}, or null. */
    public static Object get(FieldVector v, int i) {
        if (v.isNull(i)) {
            return null;
        }
        return switch (v) {
            case Float2Vector f -> (double) Float.float16ToFloat(f.get(i));
            case Float4Vector f -> (double) f.get(i);
            case Float8Vector f -> f.get(i);
            case UInt1Vector u -> (long) (u.get(i) & 0xFF);
            case UInt2Vector u -> (long) u.get(i);
            case UInt4Vector u -> Integer.toUnsignedLong(u.get(i));
            case UInt8Vector u -> u.get(i);
            case BaseIntVector b -> b.getValueAsLong(i);
            case DateMilliVector d -> d.get(i);
            case TimeStampVector t -> t.get(i);
            case VarCharVector s -> new String(s.get(i), StandardCharsets.UTF_8);
            case LargeVarCharVector s -> new String(s.get(i), StandardCharsets.UTF_8);
            case VarBinaryVector b -> new Bytes(b.get(i));
            case LargeVarBinaryVector b -> new Bytes(b.get(i));
            case BitVector b -> b.get(i) != 0;
            default -> throw new IllegalArgumentException("Unsupported vector " + v.getClass().getSimpleName());
        };
    }

    /** Writes {@code value} (null allowed) at {@code i} of a vector of this value's type. */
    public static void set(FieldVector v, int i, Object value) {
        if (value == null) {
            v.setNull(i);
            return;
        }
        switch (v) {
            case Float2Vector f -> f.setSafe(i, Float.floatToFloat16((float) (double) (Double) value));
            case Float4Vector f -> f.setSafe(i, (float) (double) (Double) value);
            case Float8Vector f -> f.setSafe(i, (Double) value);
            case TinyIntVector t -> t.setSafe(i, (byte) (long) (Long) value);
            case SmallIntVector t -> t.setSafe(i, (short) (long) (Long) value);
            case IntVector t -> t.setSafe(i, (int) (long) (Long) value);
            case BigIntVector t -> t.setSafe(i, (Long) value);
            case UInt1Vector t -> t.setSafe(i, (byte) (long) (Long) value);
            case UInt2Vector t -> t.setSafe(i, (char) (long) (Long) value);
            case UInt4Vector t -> t.setSafe(i, (int) (long) (Long) value);
            case UInt8Vector t -> t.setSafe(i, (Long) value);
            case DateDayVector t -> t.setSafe(i, (int) (long) (Long) value);
            case DateMilliVector t -> t.setSafe(i, (Long) value);
            case TimeStampVector t -> t.setSafe(i, (Long) value);
            case VarCharVector s -> s.setSafe(i, ((String) value).getBytes(StandardCharsets.UTF_8));
            case LargeVarCharVector s -> s.setSafe(i, ((String) value).getBytes(StandardCharsets.UTF_8));
            case VarBinaryVector b -> b.setSafe(i, ((Bytes) value).value());
            case LargeVarBinaryVector b -> b.setSafe(i, ((Bytes) value).value());
            case BitVector b -> b.setSafe(i, (Boolean) value ? 1 : 0);
            default -> throw new IllegalArgumentException("Unsupported vector " + v.getClass().getSimpleName());
        }
    }

    /** Little-endian / UTF-8 / raw bytes of a value as Lance's bloom filter hashes them ({@code as_bytes.rs}). */
    public static byte[] hashBytes(FieldVector v, int i) {
        return switch (v) {
            case VarCharVector s -> s.get(i);
            case LargeVarCharVector s -> s.get(i);
            case VarBinaryVector b -> b.get(i);
            case LargeVarBinaryVector b -> b.get(i);
            case BitVector b -> new byte[] {(byte) b.get(i)};
            default -> {
                int w = v.getField().getType() instanceof ArrowType.FloatingPoint fp
                        ? switch (fp.getPrecision()) { case HALF -> 2; case SINGLE -> 4; case DOUBLE -> 8; }
                        : ((org.apache.arrow.vector.BaseFixedWidthVector) v).getTypeWidth();
                byte[] out = new byte[w];
                v.getDataBuffer().getBytes((long) i * w, out); // Arrow buffers are little-endian
                yield out;
            }
        };
    }
}
