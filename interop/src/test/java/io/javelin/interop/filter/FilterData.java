package io.javelin.interop.filter;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/** Generated rows with every filterable column type: nulls, Unicode, empty lists, nested structs, JSON text. */
final class FilterData {

    static final String[] WORDS = {"apple", "Banana", "cherry", "ÄPFEL", "straße", "naïve", "日本語", "", " pad ",
        "a_b%c", "APPLE", "ab", "abc", "xyz", "Ωmega", "emoji😀", "a.b", "50%"};
    static final String[] TAGS = {"a", "b", "c", "dog", "cat", "Ä", "", "x y"};

    static final Schema SCHEMA = new Schema(List.of(
            new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
            nullable("i", new ArrowType.Int(32, true)),
            nullable("b", new ArrowType.Int(64, true)),
            nullable("f", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
            nullable("s", ArrowType.Utf8.INSTANCE),
            nullable("s2", ArrowType.Utf8.INSTANCE),
            nullable("bo", ArrowType.Bool.INSTANCE),
            nullable("d", new ArrowType.Date(DateUnit.DAY)),
            nullable("t", new ArrowType.Timestamp(TimeUnit.MICROSECOND, null)),
            new Field("tags", FieldType.nullable(ArrowType.List.INSTANCE),
                    List.of(nullable("item", ArrowType.Utf8.INSTANCE))),
            new Field("nums", FieldType.nullable(ArrowType.List.INSTANCE),
                    List.of(nullable("item", new ArrowType.Int(64, true)))),
            new Field("st", FieldType.nullable(ArrowType.Struct.INSTANCE), List.of(
                    nullable("x", new ArrowType.Int(32, true)),
                    nullable("y", ArrowType.Utf8.INSTANCE))),
            nullable("js", ArrowType.Utf8.INSTANCE),
            new Field("jb", new FieldType(true, ArrowType.Utf8.INSTANCE, null,
                    java.util.Map.of("ARROW:extension:name", "arrow.json")), null)));

    private FilterData() {
    }

    static Field nullable(String name, ArrowType type) {
        return new Field(name, FieldType.nullable(type), null);
    }

    static void fill(VectorSchemaRoot root, int rows, long seed) {
        Random r = new Random(seed);
        root.allocateNew();
        BigIntVector id = (BigIntVector) root.getVector("id");
        IntVector i = (IntVector) root.getVector("i");
        BigIntVector b = (BigIntVector) root.getVector("b");
        Float8Vector f = (Float8Vector) root.getVector("f");
        VarCharVector s = (VarCharVector) root.getVector("s");
        VarCharVector s2 = (VarCharVector) root.getVector("s2");
        BitVector bo = (BitVector) root.getVector("bo");
        DateDayVector d = (DateDayVector) root.getVector("d");
        TimeStampMicroVector t = (TimeStampMicroVector) root.getVector("t");
        ListVector tags = (ListVector) root.getVector("tags");
        ListVector nums = (ListVector) root.getVector("nums");
        StructVector st = (StructVector) root.getVector("st");
        VarCharVector js = (VarCharVector) root.getVector("js");
        VarCharVector jb = (VarCharVector) root.getVector("jb");
        VarCharVector tagItems = (VarCharVector) tags.getDataVector();
        BigIntVector numItems = (BigIntVector) nums.getDataVector();
        IntVector sx = (IntVector) st.getChild("x");
        VarCharVector sy = (VarCharVector) st.getChild("y");
        int tagAt = 0;
        int numAt = 0;
        for (int rr = 0; rr < rows; rr++) {
            final int row = rr;
            id.setSafe(row, row);
            setOrNull(r, () -> i.setSafe(row, r.nextInt(41) - 20), () -> i.setNull(row));
            setOrNull(r, () -> b.setSafe(row, r.nextInt(2001) - 1000), () -> b.setNull(row));
            setOrNull(r, () -> f.setSafe(row, Math.round((r.nextDouble() * 20 - 10) * 100) / 100.0), () -> f.setNull(row));
            setOrNull(r, () -> s.setSafe(row, utf8(word(r))), () -> s.setNull(row));
            setOrNull(r, () -> s2.setSafe(row, utf8(WORDS[r.nextInt(4)])), () -> s2.setNull(row));
            setOrNull(r, () -> bo.setSafe(row, r.nextBoolean() ? 1 : 0), () -> bo.setNull(row));
            setOrNull(r, () -> d.setSafe(row, 18000 + r.nextInt(1000)), () -> d.setNull(row));
            setOrNull(r, () -> t.setSafe(row, 1_600_000_000_000_000L + r.nextLong(100_000_000_000_000L)), () -> t.setNull(row));
            if (r.nextInt(8) == 0) {
                tags.setNull(row);
            } else {
                tags.startNewValue(row);
                int n = r.nextInt(4);
                for (int k = 0; k < n; k++) {
                    if (r.nextInt(12) == 0) {
                        tagItems.setNull(tagAt++);
                    } else {
                        tagItems.setSafe(tagAt++, utf8(TAGS[r.nextInt(TAGS.length)]));
                    }
                }
                tags.endValue(row, n);
            }
            if (r.nextInt(8) == 0) {
                nums.setNull(row);
            } else {
                nums.startNewValue(row);
                int n = r.nextInt(4);
                for (int k = 0; k < n; k++) {
                    if (r.nextInt(12) == 0) {
                        numItems.setNull(numAt++);
                    } else {
                        numItems.setSafe(numAt++, r.nextInt(10));
                    }
                }
                nums.endValue(row, n);
            }
            if (r.nextInt(8) == 0) {
                st.setNull(row);
            } else {
                st.setIndexDefined(row);
                setOrNull(r, () -> sx.setSafe(row, r.nextInt(21) - 10), () -> sx.setNull(row));
                setOrNull(r, () -> sy.setSafe(row, utf8(word(r))), () -> sy.setNull(row));
            }
            setOrNull(r, () -> js.setSafe(row, utf8(json(r))), () -> js.setNull(row));
            setOrNull(r, () -> jb.setSafe(row, utf8(json(r))), () -> jb.setNull(row));
        }
        tagItems.setValueCount(tagAt);
        numItems.setValueCount(numAt);
        root.setRowCount(rows);
    }

    private static String word(Random r) {
        return WORDS[r.nextInt(WORDS.length)];
    }

    private static String json(Random r) {
        if (r.nextInt(20) == 0) {
            return new String[] {"[3,\"x\",true]", "[1.5,[1,2]]", "\"str\"", "42", "null", "[]", " { } "}[r.nextInt(7)];
        }
        StringBuilder sb = new StringBuilder("{");
        sb.append("\"n\":").append(switch (r.nextInt(8)) {
            case 0 -> "\"" + r.nextInt(10) + "\"";
            case 1 -> (r.nextInt(200) - 100) / 10.0;
            case 2 -> "null";
            default -> String.valueOf(r.nextInt(10));
        });
        if (r.nextBoolean()) {
            sb.append(",\"name\":\"").append(TAGS[r.nextInt(TAGS.length)]).append('"');
        }
        if (r.nextBoolean()) {
            sb.append(",\"x\":").append(r.nextInt(100) / 10.0);
        }
        if (r.nextBoolean()) {
            sb.append(",\"ok\":").append(r.nextInt(5) == 0 ? "\"" + (r.nextBoolean() ? "yes" : "No") + "\"" : r.nextBoolean());
        }
        if (r.nextBoolean()) {
            sb.append(",\"arr\":[");
            int n = r.nextInt(3);
            for (int k = 0; k < n; k++) {
                sb.append(k == 0 ? "" : ",").append('"').append(TAGS[r.nextInt(4)]).append('"');
            }
            sb.append(']');
        }
        if (r.nextBoolean()) {
            sb.append(",\"o\":{\"k\":").append(r.nextInt(5)).append(r.nextBoolean() ? ",\"l\":[" + r.nextInt(3) + ",{\"m\":\"" + TAGS[r.nextInt(4)] + "\"}]" : "").append('}');
        }
        if (r.nextInt(4) == 0) {
            sb.append(",\"f\":").append(new String[] {"1e300", "-0.0", "0.1", "1.5e-7", "123456789012345678901", "18446744073709551615", "-9223372036854775808", "2.50", "1E2"}[r.nextInt(9)]);
        }
        if (r.nextInt(6) == 0) {
            sb.append(",\"u\":\"").append(new String[] {"\\u00e4\\n", "tab\\t", "q\\\"x", "\\u0001", "sl\\/"}[r.nextInt(5)]).append('"');
        }
        return sb.append('}').toString();
    }

    private static void setOrNull(Random r, Runnable set, Runnable nul) {
        if (r.nextInt(10) == 0) {
            nul.run();
        } else {
            set.run();
        }
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Writes the rows as a new dataset with lance-core, so both engines read Lance's own files. */
    static void writeWithLance(BufferAllocator alloc, String uri, int rows, long seed, int perFile) throws Exception {
        writeWithLance(alloc, uri, rows, seed, perFile, org.lance.WriteParams.WriteMode.CREATE, false);
    }

    static void writeWithLance(BufferAllocator alloc, String uri, int rows, long seed, int perFile,
                               org.lance.WriteParams.WriteMode mode, boolean stableRowIds) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, alloc);
             ArrowStreamWriter w = new ArrowStreamWriter(root, null, out)) {
            w.start();
            fill(root, rows, seed);
            w.writeBatch();
            w.end();
        }
        try (ArrowReader reader = new ArrowStreamReader(new ByteArrayInputStream(out.toByteArray()), alloc);
             ArrowArrayStream stream = ArrowArrayStream.allocateNew(alloc)) {
            Data.exportArrayStream(alloc, reader, stream);
            org.lance.WriteParams p = new org.lance.WriteParams.Builder().withMaxRowsPerFile(perFile).withMode(mode)
                    .withEnableStableRowIds(stableRowIds)
                    .withDataStorageVersion("2.1").build();
            org.lance.Dataset.create(alloc, stream, uri, p).close();
        }
    }
}
