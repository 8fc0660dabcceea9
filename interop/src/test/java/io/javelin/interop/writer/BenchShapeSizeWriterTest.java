package io.javelin.interop.writer;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.encoding.pb.ColumnMetadata;
import io.javelin.encoding.writer.LanceFileVersion;
import io.javelin.encoding.writer.WriteOptions;
import io.javelin.objectstore.local.LocalObjectStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.file.LanceFileWriter;
import reactor.core.publisher.Flux;

/**
 * File size of the side-by-side benchmark shape (issue #10: {@code id int64}, {@code f float32} uniform,
 * {@code s utf8} of 16-20 random letters, {@code vec fixed_size_list<float32,128>}) written by us and by
 * lance-core 7.0.0 from the same batches, per version and per column; ours must be within ±10%.
 * Rows: {@code -Djavelin.benchsize.rows} (default 20 000 in CI; docs/benchmarks.md reports 1 000 000).
 * The table goes to {@code target/bench-shape-sizes.md}.
 */
class BenchShapeSizeWriterTest {
    static final int DIM = 128;
    static final int BATCH = 65_536;

    @TempDir
    Path dir;

    static Schema schema() {
        return new Schema(List.of(
                new Field("id", FieldType.nullable(new ArrowType.Int(64, true)), null),
                new Field("f", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)), null),
                new Field("s", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
                new Field("vec", FieldType.nullable(new ArrowType.FixedSizeList(DIM)), List.of(
                        new Field("item", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)), null)))));
    }

    /** Batch {@code b} of the dataset (seeded per batch, so both writers get identical data). */
    static VectorSchemaRoot batch(BufferAllocator alloc, long rows, int b) {
        int n = (int) Math.min(BATCH, rows - (long) b * BATCH);
        SplittableRandom rnd = new SplittableRandom(1234 + b);
        VectorSchemaRoot root = VectorSchemaRoot.create(schema(), alloc);
        BigIntVector id = (BigIntVector) root.getVector("id");
        Float4Vector f = (Float4Vector) root.getVector("f");
        VarCharVector s = (VarCharVector) root.getVector("s");
        FixedSizeListVector vec = (FixedSizeListVector) root.getVector("vec");
        Float4Vector items = (Float4Vector) vec.getDataVector();
        id.allocateNew(n);
        f.allocateNew(n);
        s.allocateNew(20L * n, n);
        vec.setInitialCapacity(n);
        vec.allocateNew();
        items.allocateNew(n * DIM);
        byte[] str = new byte[20];
        for (int i = 0; i < n; i++) {
            id.set(i, (long) b * BATCH + i);
            f.set(i, (float) rnd.nextDouble());
            int len = 16 + rnd.nextInt(5);
            for (int k = 0; k < len; k++) {
                str[k] = (byte) ('a' + rnd.nextInt(26));
            }
            s.setSafe(i, str, 0, len);
            vec.setNotNull(i);
            for (int k = 0; k < DIM; k++) {
                items.set(i * DIM + k, (float) rnd.nextDouble());
            }
        }
        items.setValueCount(n * DIM);
        root.setRowCount(n);
        return root;
    }

    @Test
    void withinTenPercentOfLanceCore() throws Exception {
        long rows = Long.getLong("javelin.benchsize.rows", 20_000);
        int batches = (int) ((rows + BATCH - 1) / BATCH);
        StringBuilder md = new StringBuilder("| version | rows | column | javelin bytes | lance-core bytes | ratio |\n"
                + "|---|---:|---|---:|---:|---:|\n");
        List<String> failures = new ArrayList<>();
        String[] names = {"id", "f", "s", "vec"};
        for (String v : List.of("2.0", "2.1", "2.2")) {
            try (BufferAllocator alloc = new RootAllocator()) {
                Path ours = dir.resolve("javelin-" + v + ".lance");
                try (LocalObjectStore store = new LocalObjectStore(dir, 2)) {
                    Flux<VectorSchemaRoot> in = Flux.range(0, batches).map(b -> batch(alloc, rows, b))
                            .concatMap(r -> Flux.just(r).doAfterTerminate(r::close), 1);
                    io.javelin.encoding.writer.LanceFileWriter.write(in, schema(), store, ours.getFileName().toString(),
                            WriteOptions.of(LanceFileVersion.parse(v))).block(Duration.ofMinutes(10));
                }
                Path theirs = dir.resolve("lance-core-" + v + ".lance");
                try (LanceFileWriter w = LanceFileWriter.open(theirs.toString(), alloc, null, Optional.of(v), Map.of())) {
                    for (int b = 0; b < batches; b++) {
                        try (VectorSchemaRoot root = batch(alloc, rows, b)) {
                            w.write(root);
                        }
                    }
                }
                List<ColumnMetadata> ca = FileInspect.columns(ours);
                List<ColumnMetadata> cb = FileInspect.columns(theirs);
                assertThat(ca).hasSameSizeAs(cb);
                for (int c = 0; c < ca.size(); c++) {
                    long a = FileSizeComparisonTest.bytes(ca.get(c));
                    long b = FileSizeComparisonTest.bytes(cb.get(c));
                    md.append(String.format("| %s | %,d | %s | %,d | %,d | %.3f |%n", v, rows, names[c], a, b, (double) a / b));
                }
                long a = Files.size(ours);
                long b = Files.size(theirs);
                double ratio = (double) a / b;
                md.append(String.format("| %s | %,d | **file** | %,d | %,d | %.3f |%n", v, rows, a, b, ratio));
                if (Math.abs(ratio - 1) > 0.10) {
                    failures.add(v + ": " + a + " vs " + b);
                }
                Files.delete(ours);
                Files.delete(theirs);
            }
        }
        Path out = Path.of("target", "bench-shape-sizes.md");
        Files.createDirectories(out.getParent());
        Files.writeString(out, md.toString(), StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING);
        System.out.println(md);
        assertThat(failures).isEmpty();
    }
}
