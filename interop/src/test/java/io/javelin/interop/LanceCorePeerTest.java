package io.javelin.interop;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.WriteParams;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;

/** Proves the official Lance Java SDK runs inside our build on JDK 25 (the peer of every interop test). */
class LanceCorePeerTest {

    static final Schema SCHEMA = new Schema(List.of(
            new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
            new Field("name", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));

    @Test
    void lanceCoreWritesAndReadsBackADataset(@TempDir Path dir) throws Exception {
        String uri = dir.resolve("peer.lance").toString();
        int batches = 3;
        int rowsPerBatch = 1000;
        try (BufferAllocator allocator = new RootAllocator()) {
            byte[] ipc = ipcStream(allocator, batches, rowsPerBatch);
            try (ArrowReader reader = new ArrowStreamReader(new ByteArrayInputStream(ipc), allocator);
                 ArrowArrayStream stream = ArrowArrayStream.allocateNew(allocator)) {
                Data.exportArrayStream(allocator, reader, stream);
                WriteParams params = new WriteParams.Builder()
                        .withMode(WriteParams.WriteMode.CREATE)
                        .withDataStorageVersion("2.1")
                        .build();
                Dataset.create(allocator, stream, uri, params).close();
            }
            assertThat(Files.isDirectory(dir.resolve("peer.lance/_versions"))).isTrue();

            try (Dataset ds = Dataset.open(uri, allocator)) {
                assertThat(ds.countRows()).isEqualTo((long) batches * rowsPerBatch);
                assertThat(ds.version()).isEqualTo(1);
                assertThat(ds.getSchema().getFields()).extracting(Field::getName).containsExactly("id", "name");

                long sum = 0;
                long rows = 0;
                long nulls = 0;
                try (LanceScanner scanner = ds.newScan(new ScanOptions.Builder().batchSize(512).build());
                     ArrowReader reader = scanner.scanBatches()) {
                    while (reader.loadNextBatch()) {
                        VectorSchemaRoot root = reader.getVectorSchemaRoot();
                        BigIntVector id = (BigIntVector) root.getVector("id");
                        VarCharVector name = (VarCharVector) root.getVector("name");
                        for (int i = 0; i < root.getRowCount(); i++) {
                            long v = id.get(i);
                            sum += v;
                            if (name.isNull(i)) {
                                nulls++;
                                assertThat(v % 7).isZero();
                            } else {
                                assertThat(new String(name.get(i), StandardCharsets.UTF_8)).isEqualTo("row-" + v);
                            }
                        }
                        rows += root.getRowCount();
                    }
                }
                long n = (long) batches * rowsPerBatch;
                assertThat(rows).isEqualTo(n);
                assertThat(sum).isEqualTo(n * (n - 1) / 2);
                assertThat(nulls).isEqualTo((n + 6) / 7);
                assertThat(ds.countRows("id < 100")).isEqualTo(100);
            }
        }
    }

    private static byte[] ipcStream(BufferAllocator allocator, int batches, int rows) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
             ArrowStreamWriter writer = new ArrowStreamWriter(root, null, out)) {
            writer.start();
            BigIntVector id = (BigIntVector) root.getVector("id");
            VarCharVector name = (VarCharVector) root.getVector("name");
            for (int b = 0; b < batches; b++) {
                root.allocateNew();
                for (int i = 0; i < rows; i++) {
                    long v = (long) b * rows + i;
                    id.set(i, v);
                    if (v % 7 == 0) {
                        name.setNull(i);
                    } else {
                        name.setSafe(i, ("row-" + v).getBytes(StandardCharsets.UTF_8));
                    }
                }
                root.setRowCount(rows);
                writer.writeBatch();
            }
            writer.end();
        }
        return out.toByteArray();
    }
}
