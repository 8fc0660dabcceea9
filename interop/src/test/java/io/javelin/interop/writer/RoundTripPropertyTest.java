package io.javelin.interop.writer;

import io.javelin.encoding.file.LanceFileReader;
import io.javelin.encoding.io.LocalFileSource;
import io.javelin.encoding.writer.LanceFileVersion;
import io.javelin.encoding.writer.TestBatches;
import io.javelin.encoding.writer.WriteOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Random schemas and data (seeded): write with our writer, read back with lance-core and with our
 * reader, both must equal what was written.
 */
class RoundTripPropertyTest {

    @TempDir
    Path dir;

    static List<Long> seeds() {
        List<Long> s = new ArrayList<>();
        long base = Long.getLong("javelin.roundtrip.seed", 20261129L);
        int n = Integer.getInteger("javelin.roundtrip.cases", 24);
        for (int i = 0; i < n; i++) {
            s.add(base + i);
        }
        return s;
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void randomSchemaRoundTrips(long seed) throws Exception {
        Random rnd = new Random(seed);
        LanceFileVersion version = LanceFileVersion.values()[rnd.nextInt(3)];
        Schema schema = randomSchema(rnd, version);
        String only = System.getProperty("javelin.roundtrip.only");
        if (only != null) {
            List<Field> keep = new ArrayList<>();
            for (String name : only.split(",")) {
                keep.add(schema.findField(name));
            }
            schema = new Schema(keep);
        }
        int batches = 1 + rnd.nextInt(3);
        int rows = 1 + rnd.nextInt(rnd.nextBoolean() ? 50 : 3000);
        long pageSize = rnd.nextBoolean() ? WriteOptions.DEFAULT_PAGE_SIZE : 4096 + rnd.nextInt(64 * 1024);
        WriteOptions opts = new WriteOptions(version, pageSize);
        String what = "seed " + seed + " v" + version + " rows " + batches + "x" + rows + " page " + pageSize + " " + schema;
        try (BufferAllocator alloc = new RootAllocator()) {
            boolean v20 = version == LanceFileVersion.V2_0;
            List<List<Object>> exp = LanceReadBack.expected(schema, alloc, seed, batches, rows, v20);
            Path file = LanceReadBack.write(dir, "rt.lance", schema, alloc, seed, batches, rows, opts);
            System.out.println("CASE " + what);
            List<List<Object>> lance = LanceReadBack.readWithLance(file, alloc, schema, v20);
            List<List<Object>> ours = readWithJavelin(file, alloc, schema, v20);
            LanceReadBack.assertSame(schema, exp, lance, "lance-core " + what);
            LanceReadBack.assertSame(schema, exp, ours, "javelin reader " + what);
        }
    }

    static List<List<Object>> readWithJavelin(Path file, BufferAllocator alloc, Schema schema, boolean v20) {
        List<List<Object>> cols = new ArrayList<>();
        for (int c = 0; c < schema.getFields().size(); c++) {
            cols.add(new ArrayList<>());
        }
        try (LanceFileReader r = LanceFileReader.open(LocalFileSource.open(file)).block()) {
            // Consume on the scan's thread (toIterable() would park a parallel thread; see the reader's tests).
            r.scan(LanceFileReader.ScanOptions.all(1000), alloc).doOnNext(root -> {
                try (root) {
                    LanceReadBack.collect(root, cols, v20);
                }
            }).blockLast();
        }
        return cols;
    }

    static Schema randomSchema(Random rnd, LanceFileVersion v) {
        List<Field> fields = new ArrayList<>();
        fields.add(TestBatches.f("id", new ArrowType.Int(64, true), false));
        int n = 1 + rnd.nextInt(6);
        for (int i = 0; i < n; i++) {
            fields.add(randomField(rnd, "c" + i, 0, v));
        }
        return new Schema(fields);
    }

    static Field randomField(Random rnd, String name, int depth, LanceFileVersion v) {
        boolean nullable = rnd.nextInt(4) != 0;
        int k = rnd.nextInt(depth >= 2 ? 14 : 19);
        Map<String, String> meta = randomMeta(rnd, v);
        return switch (k) {
            case 0 -> TestBatches.f(name, new ArrowType.Int(8, true), nullable, meta);
            case 1 -> TestBatches.f(name, new ArrowType.Int(16, false), nullable, meta);
            case 2 -> TestBatches.f(name, new ArrowType.Int(32, true), nullable, meta);
            case 3 -> TestBatches.f(name, new ArrowType.Int(64, false), nullable, meta);
            case 4 -> TestBatches.f(name, new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE), nullable, meta);
            case 5 -> TestBatches.f(name, new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE), nullable, meta);
            case 6 -> TestBatches.f(name, ArrowType.Bool.INSTANCE, nullable);
            case 7 -> TestBatches.f(name, ArrowType.Utf8.INSTANCE, nullable, meta);
            case 8 -> TestBatches.f(name, ArrowType.LargeUtf8.INSTANCE, nullable, meta);
            case 9 -> TestBatches.f(name, ArrowType.Binary.INSTANCE, nullable, meta);
            case 10 -> TestBatches.f(name, new ArrowType.Date(DateUnit.DAY), nullable, meta);
            case 11 -> TestBatches.f(name, new ArrowType.Timestamp(TimeUnit.MICROSECOND, rnd.nextBoolean() ? "UTC" : null),
                    nullable, meta);
            case 12 -> TestBatches.f(name, new ArrowType.Decimal(20, 4, 128), nullable, meta);
            case 13 -> TestBatches.f(name, new ArrowType.FixedSizeList(1 + rnd.nextInt(rnd.nextBoolean() ? 8 : 200)), nullable,
                    TestBatches.f("item", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE), rnd.nextBoolean()));
            case 14, 15 -> TestBatches.f(name, rnd.nextBoolean() ? ArrowType.List.INSTANCE : ArrowType.LargeList.INSTANCE,
                    nullable, randomField(rnd, "item", depth + 1, v));
            case 16, 17 -> {
                int m = 1 + rnd.nextInt(3);
                Field[] children = new Field[m];
                for (int j = 0; j < m; j++) {
                    children[j] = randomField(rnd, name + "_" + j, depth + 1, v);
                }
                yield TestBatches.f(name, ArrowType.Struct.INSTANCE, nullable, children);
            }
            default -> v == LanceFileVersion.V2_2
                    ? TestBatches.f(name, new ArrowType.Map(false), nullable,
                            TestBatches.f("entries", ArrowType.Struct.INSTANCE, false,
                                    TestBatches.f("key", ArrowType.Utf8.INSTANCE, false),
                                    randomField(rnd, "value", depth + 1, v)))
                    : TestBatches.f(name, ArrowType.Utf8.INSTANCE, nullable, meta);
        };
    }

    static Map<String, String> randomMeta(Random rnd, LanceFileVersion v) {
        return switch (rnd.nextInt(10)) {
            case 0 -> Map.of("lance-encoding:compression", "zstd");
            case 1 -> Map.of("lance-encoding:compression", "lz4");
            case 2 -> Map.of("lance-encoding:compression", "none");
            case 3 -> v == LanceFileVersion.V2_0 ? Map.of() : Map.of("lance-encoding:structural-encoding", "fullzip");
            case 4 -> Map.of("lance-encoding:rle-threshold", "0.9");
            default -> Map.of();
        };
    }
}
