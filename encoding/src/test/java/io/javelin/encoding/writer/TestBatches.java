package io.javelin.encoding.writer;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float2Vector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.LargeVarBinaryVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.TimeStampNanoTZVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt2Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Seeded test data: the golden "types" table (file-format golden README) plus extra shapes, with
 * nulls at every level, empty values and long values. Values are filled generically from the
 * Arrow type so random schemas work too.
 */
public final class TestBatches {
    private TestBatches() {
    }

    public static Field f(String name, ArrowType t, boolean nullable, Field... children) {
        return new Field(name, new FieldType(nullable, t, null), List.of(children));
    }

    public static Field f(String name, ArrowType t, boolean nullable, Map<String, String> meta, Field... children) {
        return new Field(name, new FieldType(nullable, t, null, meta), List.of(children));
    }

    /** The golden types table schema. */
    public static Schema goldenTypes() {
        return new Schema(List.of(
                f("id", new ArrowType.Int(64, true), false),
                f("i8", new ArrowType.Int(8, true), true),
                f("i16", new ArrowType.Int(16, true), true),
                f("i32", new ArrowType.Int(32, true), true),
                f("i64", new ArrowType.Int(64, true), true),
                f("u8", new ArrowType.Int(8, false), true),
                f("u16", new ArrowType.Int(16, false), true),
                f("u32", new ArrowType.Int(32, false), true),
                f("u64", new ArrowType.Int(64, false), true),
                f("f16", new ArrowType.FloatingPoint(FloatingPointPrecision.HALF), true),
                f("f32", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE), true),
                f("f64", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE), true),
                f("b", ArrowType.Bool.INSTANCE, true),
                f("s", ArrowType.Utf8.INSTANCE, true),
                f("ls", ArrowType.LargeUtf8.INSTANCE, true),
                f("bin", ArrowType.Binary.INSTANCE, true),
                f("d32", new ArrowType.Date(org.apache.arrow.vector.types.DateUnit.DAY), true),
                f("ts_us", new ArrowType.Timestamp(TimeUnit.MICROSECOND, null), true),
                f("ts_ns_utc", new ArrowType.Timestamp(TimeUnit.NANOSECOND, "UTC"), true),
                f("dec", new ArrowType.Decimal(20, 4, 128), true),
                f("vec", new ArrowType.FixedSizeList(128), true,
                        f("item", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE), false)),
                f("li32", ArrowType.List.INSTANCE, true, f("item", new ArrowType.Int(32, true), true)),
                f("lstr", ArrowType.List.INSTANCE, true, f("item", ArrowType.Utf8.INSTANCE, true)),
                f("st", ArrowType.Struct.INSTANCE, true,
                        f("a", new ArrowType.Int(32, true), true),
                        f("b", ArrowType.Utf8.INSTANCE, true))));
    }

    /** Extra shapes: large types, nested lists/structs, FSL with null items, small FSL, fixed binary. */
    public static Schema extraTypes() {
        return new Schema(List.of(
                f("lb", ArrowType.LargeBinary.INSTANCE, true),
                f("ll", ArrowType.LargeList.INSTANCE, true, f("item", new ArrowType.Int(64, true), true)),
                f("fsl4", new ArrowType.FixedSizeList(4), true,
                        f("item", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE), true)),
                f("fsb", new ArrowType.FixedSizeBinary(3), true),
                f("lst", ArrowType.List.INSTANCE, true,
                        f("item", ArrowType.Struct.INSTANCE, true,
                                f("x", new ArrowType.Int(16, true), true),
                                f("ys", ArrowType.List.INSTANCE, true, f("item", ArrowType.Utf8.INSTANCE, true)))),
                f("sl", ArrowType.Struct.INSTANCE, true,
                        f("l", ArrowType.List.INSTANCE, true, f("item", new ArrowType.Int(8, false), false)),
                        f("t", ArrowType.Struct.INSTANCE, true, f("z", ArrowType.Bool.INSTANCE, true))),
                f("allnull", new ArrowType.Int(32, true), true),
                f("nn_s", ArrowType.Utf8.INSTANCE, false)));
    }

    public static Schema mapSchema() {
        return new Schema(List.of(
                f("id", new ArrowType.Int(32, true), false),
                f("m", new ArrowType.Map(false), true,
                        f("entries", ArrowType.Struct.INSTANCE, false,
                                f("key", ArrowType.Utf8.INSTANCE, false),
                                f("value", new ArrowType.Int(64, true), true)))));
    }

    /** Fills a batch of {@code rows} rows, rows numbered from {@code firstRow}. */
    public static VectorSchemaRoot batch(Schema schema, BufferAllocator alloc, long seed, long firstRow, int rows) {
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, alloc);
        root.allocateNew();
        Random rnd = new Random(seed ^ firstRow * 0x9E3779B97F4A7C15L);
        int col = 0;
        for (FieldVector v : root.getFieldVectors()) {
            for (int i = 0; i < rows; i++) {
                long row = firstRow + i;
                if ("id".equals(v.getName())) {
                    setValue(v, i, row, rnd, 0);
                } else if (special(v, i, row)) {
                    continue;
                } else if ("allnull".equals(v.getName())) {
                    v.setNull(i);
                } else if (v.getField().isNullable() && (row % 13 == col % 13)) {
                    setNullSafe(v, i);
                } else {
                    setValue(v, i, row, rnd, 0);
                }
            }
            v.setValueCount(rows);
            col++;
        }
        root.setRowCount(rows);
        return root;
    }

    /** Name-driven shapes for encoding tests: const_*, runs_*, dict_*, txt_*. */
    static boolean special(FieldVector v, int i, long row) {
        String n = v.getName();
        if (n.startsWith("const_") && v instanceof IntVector x) {
            x.setSafe(i, 42);
            return true;
        }
        if (n.startsWith("runs_") && v instanceof IntVector x) {
            x.setSafe(i, (int) (row / 500));
            return true;
        }
        if (n.startsWith("dict_") && v instanceof VarCharVector x) {
            if (row % 17 == 5) {
                x.setNull(i);
            } else {
                x.setSafe(i, ("category-" + (row * 7 % 8)).getBytes(StandardCharsets.UTF_8));
            }
            return true;
        }
        if (n.startsWith("txt_") && v instanceof VarCharVector x) {
            if (row % 19 == 4) {
                x.setNull(i);
            } else {
                x.setSafe(i, ("the quick brown fox " + row + " jumps over the lazy dog " + (row % 100))
                        .getBytes(StandardCharsets.UTF_8));
            }
            return true;
        }
        if (n.startsWith("small_") && v instanceof BigIntVector x) {
            x.setSafe(i, row % 1000);
            return true;
        }
        return false;
    }

    /** Columns forcing each encoding through field metadata (as the golden "encodings" tables). */
    public static Schema encodings(boolean v20) {
        List<Field> fs = new ArrayList<>(List.of(
                f("id", new ArrowType.Int(64, true), false),
                f("txt_zstd", ArrowType.Utf8.INSTANCE, true, Map.of("lance-encoding:compression", "zstd")),
                f("txt_lz4", ArrowType.Utf8.INSTANCE, true, Map.of("lance-encoding:compression", "lz4")),
                f("small_zstd", new ArrowType.Int(64, true), true,
                        Map.of("lance-encoding:compression", "zstd", "lance-encoding:compression-level", "3")),
                f("f_bss", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE), true,
                        Map.of("lance-encoding:bss", "on", "lance-encoding:compression", "zstd")),
                f("dict_s", ArrowType.Utf8.INSTANCE, true, Map.of("lance-encoding:dict-divisor", "2")),
                f("const_i", new ArrowType.Int(32, true), false),
                f("runs_i", new ArrowType.Int(32, true), false, Map.of("lance-encoding:rle-threshold", "1.0")),
                f("txt_fullzip", ArrowType.Utf8.INSTANCE, true,
                        Map.of("lance-encoding:structural-encoding", "fullzip")),
                f("txt_fsst", ArrowType.Utf8.INSTANCE, true),
                f("txt_none", ArrowType.Utf8.INSTANCE, true, Map.of("lance-encoding:compression", "none")),
                f("small_bp", new ArrowType.Int(64, true), true),
                f("ls", ArrowType.LargeUtf8.INSTANCE, true, Map.of("lance-encoding:compression", "zstd")),
                f("vec", new ArrowType.FixedSizeList(128), true,
                        f("item", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE), false))));
        if (!v20) {
            fs.add(f("i_mini", new ArrowType.FixedSizeList(80), true, Map.of("lance-encoding:structural-encoding", "miniblock"),
                    f("item", new ArrowType.Int(8, true), true)));
        }
        return new Schema(fs);
    }

    static boolean nullHere(Field f, Random rnd, int depth) {
        return f.isNullable() && rnd.nextInt(11) == 0;
    }

    /** Sets a non-null value at {@code i}; children get random nulls. */
    static void setValue(ValueVector v, int i, long row, Random rnd, int depth) {
        switch (v) {
            case BigIntVector x -> x.setSafe(i, "id".equals(x.getName()) && depth == 0 ? row : special(rnd, row, Long.MIN_VALUE, Long.MAX_VALUE, rnd.nextLong()));
            case TinyIntVector x -> x.setSafe(i, (byte) special(rnd, row, Byte.MIN_VALUE, Byte.MAX_VALUE, rnd.nextInt()));
            case SmallIntVector x -> x.setSafe(i, (short) special(rnd, row, Short.MIN_VALUE, Short.MAX_VALUE, rnd.nextInt()));
            case IntVector x -> x.setSafe(i, (int) special(rnd, row, Integer.MIN_VALUE, Integer.MAX_VALUE, rnd.nextInt(1000)));
            case UInt1Vector x -> x.setSafe(i, (byte) special(rnd, row, 0, -1, rnd.nextInt(200)));
            case UInt2Vector x -> x.setSafe(i, (char) special(rnd, row, 0, 0xFFFF, rnd.nextInt(60000)));
            case UInt4Vector x -> x.setSafe(i, (int) special(rnd, row, 0, -1, rnd.nextInt()));
            case UInt8Vector x -> x.setSafe(i, special(rnd, row, 0, -1, rnd.nextLong() & 0xFFFFFFFFFFL));
            case Float2Vector x -> x.setSafe(i, (short) (row % 97 == 3 ? 0x7E00 : rnd.nextInt(0x7C00)));
            case Float4Vector x -> x.setSafe(i, row % 97 == 5 ? Float.NaN : row % 97 == 6 ? -0.0f
                    : row % 97 == 7 ? Float.MIN_VALUE : rnd.nextFloat() * 100 - 50);
            case Float8Vector x -> x.setSafe(i, row % 97 == 5 ? Double.NEGATIVE_INFINITY : rnd.nextGaussian());
            case BitVector x -> x.setSafe(i, rnd.nextBoolean() ? 1 : 0);
            case VarCharVector x -> x.setSafe(i, string(rnd, row));
            case LargeVarCharVector x -> x.setSafe(i, row % 500 == 7 ? longString(rnd, row, 1000 + rnd.nextInt(2000))
                    : ("row-" + row + "-" + rnd.nextInt(1000)).getBytes(StandardCharsets.UTF_8));
            case VarBinaryVector x -> x.setSafe(i, bytes(rnd, rnd.nextInt(33)));
            case LargeVarBinaryVector x -> x.setSafe(i, bytes(rnd, row % 50 == 3 ? 5000 : rnd.nextInt(40)));
            case DateDayVector x -> x.setSafe(i, (int) (18000 + rnd.nextInt(5000)));
            case TimeStampMicroVector x -> x.setSafe(i, 1_600_000_000_000_000L + row * 1_000_000L + rnd.nextInt(1000));
            case org.apache.arrow.vector.TimeStampMicroTZVector x -> x.setSafe(i, 1_600_000_000_000_000L + row * 1000L);
            case TimeStampNanoTZVector x -> x.setSafe(i, 1_600_000_000_000_000_000L + row * 1_000_000_000L + rnd.nextInt(1000));
            case DecimalVector x -> x.setSafe(i, BigDecimal.valueOf(rnd.nextLong() % 10_000_000_000_000L, 4));
            case FixedSizeBinaryVector x -> x.setSafe(i, bytes(rnd, x.getByteWidth()));
            case FixedSizeListVector x -> {
                int dim = x.getListSize();
                x.setNotNull(i);
                FieldVector c = x.getDataVector();
                for (int j = 0; j < dim; j++) {
                    int ci = i * dim + j;
                    if (nullHere(c.getField(), rnd, depth + 1)) {
                        setNullSafe(c, ci);
                    } else {
                        setValue(c, ci, row, rnd, depth + 1);
                    }
                }
                c.setValueCount(Math.max(c.getValueCount(), (i + 1) * dim));
            }
            case MapVector x -> fillList(x, i, row, rnd, depth, 4);
            case ListVector x -> fillList(x, i, row, rnd, depth, depth == 0 ? 6 : 3);
            case LargeListVector x -> {
                long start = x.startNewValue(i);
                int n = rnd.nextInt(5);
                FieldVector c = x.getDataVector();
                for (int j = 0; j < n; j++) {
                    int ci = (int) start + j;
                    if (nullHere(c.getField(), rnd, depth + 1)) {
                        setNullSafe(c, ci);
                    } else {
                        setValue(c, ci, row, rnd, depth + 1);
                    }
                }
                c.setValueCount((int) start + n);
                x.endValue(i, n);
            }
            case StructVector x -> {
                x.setIndexDefined(i);
                for (FieldVector c : x.getChildrenFromFields()) {
                    if (nullHere(c.getField(), rnd, depth + 1)) {
                        setNullSafe(c, i);
                    } else {
                        setValue(c, i, row, rnd, depth + 1);
                    }
                    c.setValueCount(Math.max(c.getValueCount(), i + 1));
                }
            }
            default -> throw new IllegalArgumentException("No generator for " + v.getClass());
        }
    }

    private static void fillList(ListVector x, int i, long row, Random rnd, int depth, int max) {
        int start = x.startNewValue(i);
        int n = rnd.nextInt(max);
        FieldVector c = x.getDataVector();
        for (int j = 0; j < n; j++) {
            int ci = start + j;
            if (nullHere(c.getField(), rnd, depth + 1)) {
                setNullSafe(c, ci);
            } else {
                setValue(c, ci, row, rnd, depth + 1);
            }
        }
        c.setValueCount(start + n);
        x.endValue(i, n);
    }

    static void setNullSafe(FieldVector v, int i) {
        switch (v) {
            case ListVector l -> {
                l.startNewValue(i);
                l.endValue(i, 0);
                l.setNull(i);
            }
            case LargeListVector l -> {
                l.startNewValue(i);
                l.endValue(i, 0);
                l.setNull(i);
            }
            case FixedSizeListVector l -> {
                l.setNull(i);
                FieldVector c = l.getDataVector();
                int dim = l.getListSize();
                while (c.getValueCapacity() < (i + 1) * dim) {
                    c.reAlloc();
                }
                if (!c.getField().isNullable() && c instanceof org.apache.arrow.vector.BaseFixedWidthVector fw) {
                    for (int j = i * dim; j < (i + 1) * dim; j++) {
                        fw.setIndexDefined(j);
                    }
                }
                c.setValueCount(Math.max(c.getValueCount(), (i + 1) * dim));
            }
            case StructVector s -> {
                s.setNull(i);
                for (FieldVector c : s.getChildrenFromFields()) {
                    if (c.getField().isNullable()) {
                        setNullSafe(c, i);
                    } else {
                        // A non-nullable child under a null struct still holds a valid value (as Arrow producers do).
                        setValue(c, i, i, new Random(i), 1);
                    }
                    c.setValueCount(Math.max(c.getValueCount(), i + 1));
                }
            }
            default -> {
                while (v.getValueCapacity() <= i) {
                    v.reAlloc();
                }
                v.setNull(i);
            }
        }
    }

    private static long special(Random rnd, long row, long min, long max, long other) {
        if (row % 97 == 1) {
            return min;
        }
        if (row % 97 == 2) {
            return max;
        }
        return other;
    }

    static byte[] string(Random rnd, long row) {
        String[] parts = {"a", "ä", "λ", "あ", "🙂", "lance", " ", "x"};
        int n = rnd.nextInt(25);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) {
            sb.append(parts[rnd.nextInt(parts.length)]);
        }
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    static byte[] longString(Random rnd, long row, int len) {
        StringBuilder sb = new StringBuilder("row-" + row + "-");
        while (sb.length() < len) {
            sb.append("lorem ipsum ").append(rnd.nextInt(100)).append(' ');
        }
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    static byte[] bytes(Random rnd, int n) {
        byte[] b = new byte[n];
        rnd.nextBytes(b);
        return b;
    }

    /** A row value as comparable Java objects (byte[] wrapped so equals compares contents). */
    public static Object normalize(Object o) {
        if (o == null) {
            return null;
        }
        if (o instanceof byte[] b) {
            return ByteBuffer.wrap(b);
        }
        if (o instanceof List<?> l) {
            List<Object> out = new ArrayList<>(l.size());
            for (Object e : l) {
                out.add(normalize(e));
            }
            return out;
        }
        if (o instanceof Map<?, ?> m) {
            java.util.TreeMap<String, Object> out = new java.util.TreeMap<>();
            for (Map.Entry<?, ?> e : m.entrySet()) {
                out.put(String.valueOf(e.getKey()), normalize(e.getValue()));
            }
            return out;
        }
        if (o instanceof org.apache.arrow.vector.util.Text t) {
            return t.toString();
        }
        return o;
    }
}
