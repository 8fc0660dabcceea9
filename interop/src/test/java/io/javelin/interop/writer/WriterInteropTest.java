package io.javelin.interop.writer;

import io.javelin.encoding.writer.TestBatches;
import java.nio.file.Path;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.Schema;
import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.encoding.pb.ColumnMetadata;
import io.javelin.encoding.writer.LanceFileVersion;
import io.javelin.encoding.writer.WriteOptions;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** lance-core 7.0.0 reads back exactly what our writer wrote. */
class WriterInteropTest {

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"2.0", "2.1", "2.2"})
    void goldenTypes(String version) throws Exception {
        Path file = roundTrip(TestBatches.goldenTypes(), version, 2, 500, "golden");
        System.out.println("golden v" + version + "\n" + FileInspect.describe(file, version.equals("2.0")));
    }

    @ParameterizedTest
    @ValueSource(strings = {"2.0", "2.1", "2.2"})
    void extraTypes(String version) throws Exception {
        roundTrip(TestBatches.extraTypes(), version, 3, 700, "extra");
    }

    @ParameterizedTest
    @ValueSource(strings = {"2.1", "2.2"})
    void forcedEncodings(String version) throws Exception {
        Path file = roundTrip(TestBatches.encodings(false), version, 2, 3000, "encodings");
        String d = FileInspect.describe(file, false);
        System.out.println("encodings v" + version + "\n" + d);
        assertThat(d).contains("general", "byte_stream_split", "rle", "dictionary", "full_zip_layout", "fsst",
                "inline_bitpacking", "COMPRESSION_ALGORITHM_ZSTD", "COMPRESSION_ALGORITHM_LZ4");
    }

    @Test
    void forcedEncodings20() throws Exception {
        Path file = roundTrip(TestBatches.encodings(true), "2.0", 2, 3000, "encodings");
        String d = FileInspect.describe(file, true);
        System.out.println("encodings v2.0\n" + d);
        assertThat(d).contains("dictionary", "scheme: \"zstd\"", "scheme: \"lz4\"");
    }

    @ParameterizedTest
    @CsvSource({"2.1,miniblock", "2.2,miniblock", "2.1,fullzip", "2.2,fullzip"})
    void nullStructAboveList(String version, String structural) throws Exception {
        Schema schema = new Schema(List.of(
                TestBatches.f("c0", ArrowType.Struct.INSTANCE, true,
                        TestBatches.f("c0_0", new ArrowType.Int(32, true), false),
                        TestBatches.f("c0_2", ArrowType.List.INSTANCE, true,
                                TestBatches.f("item", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE), false,
                                        java.util.Map.of("lance-encoding:structural-encoding", structural))))));
        if (System.getProperty("javelin.debug.lancecore") != null) {
            try (BufferAllocator alloc = new RootAllocator()) {
                Path theirs = dir.resolve("lc.lance");
                try (org.lance.file.LanceFileWriter w = org.lance.file.LanceFileWriter.open(theirs.toString(), alloc, null,
                        java.util.Optional.of(version), java.util.Map.of())) {
                    for (int b = 0; b < 2; b++) {
                        try (var root = TestBatches.batch(schema, alloc, 42, (long) b * 2028, 2028)) {
                            w.write(root);
                        }
                    }
                }
                System.out.println("lance-core structlist v" + version + "\n" + FileInspect.describe(theirs, false));
                LanceReadBack.assertSame(schema, LanceReadBack.expected(schema, alloc, 42, 2, 2028),
                        LanceReadBack.readWithLance(theirs, alloc, schema), "lance-core self");
            }
        }
        Path file = roundTrip(schema, version, 2, 2028, "structlist-" + structural);
        System.out.println("structlist v" + version + "\n" + FileInspect.describe(file, false));
    }

    @ParameterizedTest
    @CsvSource({"list,binary,64092", "large,binary,64092", "large,int,64092", "large,binary,8388608", "list,utf8,20000"})
    void lists20MultiPage(String list, String item, long page) throws Exception {
        ArrowType it = switch (item) {
            case "binary" -> ArrowType.Binary.INSTANCE;
            case "utf8" -> ArrowType.Utf8.INSTANCE;
            default -> new ArrowType.Int(32, true);
        };
        Schema schema = new Schema(List.of(TestBatches.f("c2", list.equals("large") ? ArrowType.LargeList.INSTANCE
                : ArrowType.List.INSTANCE, true, TestBatches.f("item", it, true))));
        roundTrip(schema, "2.0", 2, 1772, "l20-" + list + item + page,
                WriteOptions.of(LanceFileVersion.V2_0).withPageSize(page));
    }

    @ParameterizedTest
    @ValueSource(strings = {"2.1", "2.2"})
    void packedStruct(String version) throws Exception {
        Schema schema = new Schema(List.of(
                TestBatches.f("id", new ArrowType.Int(64, true), false),
                TestBatches.f("packed", ArrowType.Struct.INSTANCE, true, java.util.Map.of("lance-encoding:packed", "true"),
                        TestBatches.f("x", new ArrowType.Int(32, true), false),
                        TestBatches.f("y", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE), false),
                        TestBatches.f("z", new ArrowType.Int(16, false), false))));
        Path file = roundTrip(schema, version, 2, 3000, "packed");
        String d = FileInspect.describe(file, false);
        assertThat(FileInspect.columns(file)).hasSize(2);
        assertThat(d).contains("packed_struct { bits_per_value: 32 bits_per_value: 32 bits_per_value: 16");
    }

    @Test
    void mapIn22() throws Exception {
        roundTrip(TestBatches.mapSchema(), "2.2", 2, 600, "map");
    }

    @ParameterizedTest
    @ValueSource(strings = {"2.0", "2.1", "2.2"})
    void multiPage(String version) throws Exception {
        Schema schema = new Schema(List.of(
                TestBatches.f("vec", new ArrowType.FixedSizeList(1024), true,
                        TestBatches.f("item", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE), false)),
                TestBatches.goldenTypes().findField("ls"),
                TestBatches.goldenTypes().findField("s"),
                TestBatches.goldenTypes().findField("li32"),
                TestBatches.goldenTypes().findField("st"),
                TestBatches.extraTypes().findField("lst"),
                TestBatches.goldenTypes().findField("id")));
        Path file = roundTrip(schema, version, 3, 1500, "multipage", WriteOptions.of(LanceFileVersion.parse(version))
                .withPageSize(16 * 1024));
        for (ColumnMetadata cm : FileInspect.columns(file)) {
            if (version.equals("2.0") && FileInspect.isStructHeader(cm)) {
                continue;
            }
            assertThat(cm.getPagesCount()).isGreaterThan(1);
        }
    }

    Path roundTrip(Schema schema, String version, int batches, int rows, String name) throws Exception {
        return roundTrip(schema, version, batches, rows, name, LanceReadBack.opts(version));
    }

    Path roundTrip(Schema schema, String version, int batches, int rows, String name, WriteOptions options)
            throws Exception {
        try (BufferAllocator alloc = new RootAllocator()) {
            List<List<Object>> exp = LanceReadBack.expected(schema, alloc, 42, batches, rows);
            Path file = LanceReadBack.write(dir, name + "-" + version + ".lance", schema, alloc, 42, batches, rows,
                    options);
            List<List<Object>> act = LanceReadBack.readWithLance(file, alloc, schema);
            if (version.equals("2.0")) {
                exp = LanceReadBack.as20(schema, exp);
                act = LanceReadBack.as20(schema, act);
            }
            LanceReadBack.assertSame(schema, exp, act, name + " v" + version);
            return file;
        }
    }
}
