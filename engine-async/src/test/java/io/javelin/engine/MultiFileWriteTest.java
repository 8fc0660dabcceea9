package io.javelin.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import reactor.core.publisher.Flux;

/**
 * Writes that split their input into several files, many times over: each must finish (a lost signal
 * between the file splitter and the file writer once hung a write) with the expected files and rows.
 */
class MultiFileWriteTest {
    static final Schema SCHEMA = new Schema(List.of(
            new Field("id", FieldType.nullable(new ArrowType.Int(64, true)), null),
            new Field("text", FieldType.nullable(new ArrowType.Utf8()), null)));

    @TempDir
    Path dir;

    static Flux<VectorSchemaRoot> rows(BufferAllocator alloc, int count, int batch) {
        return Flux.range(0, (count + batch - 1) / batch).map(bi -> {
            int n = Math.min(batch, count - bi * batch);
            VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, alloc);
            root.allocateNew();
            BigIntVector id = (BigIntVector) root.getVector("id");
            VarCharVector text = (VarCharVector) root.getVector("text");
            for (int i = 0; i < n; i++) {
                id.setSafe(i, (long) bi * batch + i);
                if (i % 7 == 0) {
                    text.setNull(i);
                } else {
                    text.setSafe(i, ("doc " + i).getBytes(StandardCharsets.UTF_8));
                }
            }
            root.setRowCount(n);
            return root;
        });
    }

    @ParameterizedTest
    @CsvSource({"20000, 5000, 10000, 2", "9000, 1000, 3000, 3", "5000, 5000, 1000, 1", "7, 1, 2, 4"})
    void everySplitWriteFinishesWithItsFiles(int rows, int batch, int maxRows, int files) {
        try (BufferAllocator alloc = new RootAllocator()) {
            for (int i = 0; i < 60; i++) {
                String uri = dir.resolve("w" + i + ".lance").toString();
                try (Dataset ds = Dataset.write(uri, rows(alloc, rows, batch), SCHEMA,
                        WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(maxRows)).block(Duration.ofSeconds(60))) {
                    assertThat(ds.fragments()).hasSize(files);
                    assertThat(ds.count().block()).isEqualTo(rows);
                }
            }
            assertThat(alloc.getAllocatedMemory()).isZero();
        }
    }
}
