package io.javelin.interop.writer;

import io.javelin.encoding.writer.TestBatches;
import java.nio.file.Path;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** lance-core 7.0.0 reads back exactly what our writer wrote. */
class WriterInteropTest {

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"2.1", "2.2"})
    void goldenTypes(String version) throws Exception {
        roundTrip(TestBatches.goldenTypes(), version, 2, 500, "golden");
    }

    @ParameterizedTest
    @ValueSource(strings = {"2.1", "2.2"})
    void extraTypes(String version) throws Exception {
        roundTrip(TestBatches.extraTypes(), version, 3, 700, "extra");
    }

    void roundTrip(Schema schema, String version, int batches, int rows, String name) throws Exception {
        try (BufferAllocator alloc = new RootAllocator()) {
            List<List<Object>> exp = LanceReadBack.expected(schema, alloc, 42, batches, rows);
            Path file = LanceReadBack.write(dir, name + ".lance", schema, alloc, 42, batches, rows,
                    LanceReadBack.opts(version));
            List<List<Object>> act = LanceReadBack.readWithLance(file, alloc, schema);
            LanceReadBack.assertSame(schema, exp, act, name + " v" + version);
        }
    }
}
