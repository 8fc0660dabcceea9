package io.javelin.encoding.writer;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.encoding.file.LanceFileReader;
import io.javelin.encoding.io.LocalFileSource;
import io.javelin.objectstore.local.LocalObjectStore;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** Container invariants of our files and a round trip through our own reader (no lance-core needed). */
class WriterRoundTripTest {

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"2.1", "2.2"})
    void nestedTypesRoundTripThroughOurReader(String v) throws Exception {
        Schema schema = new Schema(concat(TestBatches.goldenTypes(), TestBatches.extraTypes()));
        LanceFileVersion version = LanceFileVersion.parse(v);
        try (BufferAllocator alloc = new RootAllocator(); LocalObjectStore store = new LocalObjectStore(dir, 1)) {
            Flux<VectorSchemaRoot> in = Flux.range(0, 3).concatMap(b -> Mono.using(
                    () -> TestBatches.batch(schema, alloc, 3, b * 700L, 700), Mono::just, VectorSchemaRoot::close, false), 1);
            LanceFileWriter.Result r = LanceFileWriter.write(in, schema, store, "t.lance",
                    WriteOptions.of(version).withPageSize(32 * 1024)).block(Duration.ofMinutes(2));
            assertThat(r.rows()).isEqualTo(2100);
            Path file = dir.resolve("t.lance");
            assertThat(Files.size(file)).isEqualTo(r.bytes());
            checkContainer(file, version);

            List<List<Object>> exp = values(schema, alloc);
            List<List<Object>> act = new ArrayList<>();
            for (int c = 0; c < schema.getFields().size(); c++) {
                act.add(new ArrayList<>());
            }
            try (LanceFileReader reader = LanceFileReader.open(LocalFileSource.open(file)).block()) {
                reader.scan(LanceFileReader.ScanOptions.all(512), alloc).doOnNext(root -> {
                    try (root) {
                        collect(root, act);
                    }
                }).blockLast();
            }
            assertThat(act).isEqualTo(exp);
        }
    }

    private static List<org.apache.arrow.vector.types.pojo.Field> concat(Schema a, Schema b) {
        List<org.apache.arrow.vector.types.pojo.Field> f = new ArrayList<>(a.getFields());
        f.addAll(b.getFields().stream().filter(x -> !x.getName().equals("id")).toList());
        return f;
    }

    private static List<List<Object>> values(Schema schema, BufferAllocator alloc) {
        List<List<Object>> cols = new ArrayList<>();
        for (int c = 0; c < schema.getFields().size(); c++) {
            cols.add(new ArrayList<>());
        }
        for (int b = 0; b < 3; b++) {
            try (VectorSchemaRoot root = TestBatches.batch(schema, alloc, 3, b * 700L, 700)) {
                collect(root, cols);
            }
        }
        return cols;
    }

    private static void collect(VectorSchemaRoot root, List<List<Object>> cols) {
        for (int c = 0; c < root.getFieldVectors().size(); c++) {
            FieldVector v = root.getVector(c);
            for (int i = 0; i < root.getRowCount(); i++) {
                cols.get(c).add(TestBatches.normalize(v.getObject(i)));
            }
        }
    }

    /** Footer, version, 64-byte aligned page buffers padded with 'H', global buffer 0 right after the pages. */
    static void checkContainer(Path file, LanceFileVersion version) throws Exception {
        byte[] all = Files.readAllBytes(file);
        ByteBuffer bb = ByteBuffer.wrap(all).order(ByteOrder.LITTLE_ENDIAN);
        int n = all.length;
        assertThat(new String(all, n - 4, 4, java.nio.charset.StandardCharsets.US_ASCII)).isEqualTo("LANC");
        assertThat(bb.getShort(n - 8)).isEqualTo((short) version.footerMajor());
        assertThat(bb.getShort(n - 6)).isEqualTo((short) version.footerMinor());
        long cmoStart = bb.getLong(n - 32);
        long gboStart = bb.getLong(n - 24);
        assertThat(bb.getInt(n - 16)).isEqualTo(1);
        int numCols = bb.getInt(n - 12);
        long gb0 = bb.getLong((int) gboStart);
        assertThat(gb0 % 64).isZero();
        for (int c = 0; c < numCols; c++) {
            long pos = bb.getLong((int) cmoStart + 16 * c);
            long len = bb.getLong((int) cmoStart + 16 * c + 8);
            io.javelin.encoding.pb.ColumnMetadata cm = io.javelin.encoding.pb.ColumnMetadata.parseFrom(
                    ByteBuffer.wrap(all, (int) pos, (int) len));
            for (io.javelin.encoding.pb.ColumnMetadata.Page p : cm.getPagesList()) {
                for (int i = 0; i < p.getBufferOffsetsCount(); i++) {
                    long off = p.getBufferOffsets(i);
                    long size = p.getBufferSizes(i);
                    assertThat(off % 64).isZero();
                    for (long k = off + size; k % 64 != 0; k++) {
                        assertThat(all[(int) k]).isEqualTo((byte) 'H');
                    }
                }
            }
        }
    }
}
