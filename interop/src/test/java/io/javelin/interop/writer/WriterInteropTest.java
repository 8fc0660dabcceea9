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
import org.junit.jupiter.params.provider.ValueSource;

/** lance-core 7.0.0 reads back exactly what our writer wrote. */
class WriterInteropTest {

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"2.0", "2.1", "2.2"})
    void goldenTypes(String version) throws Exception {
        roundTrip(TestBatches.goldenTypes(), version, 2, 500, "golden");
    }

    @ParameterizedTest
    @ValueSource(strings = {"2.0", "2.1", "2.2"})
    void extraTypes(String version) throws Exception {
        roundTrip(TestBatches.extraTypes(), version, 3, 700, "extra");
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
