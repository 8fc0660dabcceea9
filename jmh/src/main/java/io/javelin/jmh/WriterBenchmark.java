package io.javelin.jmh;

import io.javelin.encoding.writer.LanceFileVersion;
import io.javelin.encoding.writer.LanceFileWriter;
import io.javelin.encoding.writer.WriteOptions;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import reactor.core.publisher.Flux;

/**
 * Write throughput of the Lance file writer: encodes {@link #ROWS} rows of the benchmark shape
 * (id, category, num, text, score, 128-d vector) into the bytes of one Lance file, in memory;
 * {@link #writeFileLanceCore} writes the same batches with lance-core 7.0.0 (local file). Both are in
 * docs/benchmarks.md.
 *
 * <pre>
 *   java --add-modules jdk.incubator.vector -cp "jmh/target/classes:$(cat jmh/target/classpath.txt)" \
 *        org.openjdk.jmh.Main WriterBenchmark -f 1 -wi 2 -i 3
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--add-modules=jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED",
    "--sun-misc-unsafe-memory-access=allow", "--add-opens=java.base/java.nio=ALL-UNNAMED", "-Xms2g", "-Xmx2g"})
public class WriterBenchmark {
    static final int ROWS = 100_000;
    static final int BATCH = 10_000;

    @Param({"2.0", "2.1", "2.2"})
    public String version;

    private BufferAllocator alloc;
    private List<VectorSchemaRoot> batches;
    private Schema schema;

    public static Schema schema() {
        return new Schema(List.of(
                field("id", new ArrowType.Int(64, true), false),
                field("category", ArrowType.Utf8.INSTANCE, true),
                field("num", new ArrowType.Int(32, true), true),
                field("text", ArrowType.Utf8.INSTANCE, true),
                field("score", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE), true),
                new Field("vec", FieldType.nullable(new ArrowType.FixedSizeList(128)),
                        List.of(field("item", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE), false)))));
    }

    static Field field(String name, ArrowType t, boolean nullable) {
        return new Field(name, new FieldType(nullable, t, null), List.of());
    }

    /** Deterministic batches of the benchmark shape. */
    public static List<VectorSchemaRoot> data(BufferAllocator alloc, int rows, int batch) {
        Schema s = schema();
        Random rnd = new Random(42);
        String[] words = {"lance", "vector", "search", "columnar", "format", "java", "reactive", "arrow"};
        List<VectorSchemaRoot> out = new ArrayList<>();
        for (int start = 0; start < rows; start += batch) {
            int n = Math.min(batch, rows - start);
            VectorSchemaRoot root = VectorSchemaRoot.create(s, alloc);
            root.allocateNew();
            BigIntVector id = (BigIntVector) root.getVector("id");
            VarCharVector cat = (VarCharVector) root.getVector("category");
            IntVector num = (IntVector) root.getVector("num");
            VarCharVector text = (VarCharVector) root.getVector("text");
            Float8Vector score = (Float8Vector) root.getVector("score");
            FixedSizeListVector vec = (FixedSizeListVector) root.getVector("vec");
            Float4Vector items = (Float4Vector) vec.getDataVector();
            for (int i = 0; i < n; i++) {
                long row = start + i;
                id.setSafe(i, row);
                if (row % 50 == 0) {
                    cat.setNull(i);
                } else {
                    cat.setSafe(i, ("cat_" + (row * 7 % 8)).getBytes(StandardCharsets.UTF_8));
                }
                num.setSafe(i, rnd.nextInt(1000));
                StringBuilder sb = new StringBuilder();
                for (int w = 0; w < 3 + rnd.nextInt(8); w++) {
                    sb.append(words[rnd.nextInt(words.length)]).append(' ');
                }
                text.setSafe(i, sb.toString().getBytes(StandardCharsets.UTF_8));
                score.setSafe(i, rnd.nextGaussian());
                vec.setNotNull(i);
                for (int j = 0; j < 128; j++) {
                    items.setSafe(i * 128 + j, rnd.nextFloat());
                }
            }
            items.setValueCount(n * 128);
            root.setRowCount(n);
            out.add(root);
        }
        return out;
    }

    @Setup(Level.Trial)
    public void setup() {
        alloc = new RootAllocator();
        schema = schema();
        batches = data(alloc, ROWS, BATCH);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        batches.forEach(VectorSchemaRoot::close);
        alloc.close();
    }

    /**
     * lance-core 7.0.0's {@code LanceFileWriter} on the same batches and version, writing a local file
     * (ours above encodes in memory, so this side also pays the file write).
     */
    @Benchmark
    public long writeFileLanceCore() throws Exception {
        java.nio.file.Path f = java.nio.file.Files.createTempFile("writer-bench", ".lance");
        try {
            try (org.lance.file.LanceFileWriter w = org.lance.file.LanceFileWriter.open(f.toString(), alloc, null,
                    java.util.Optional.of(version), java.util.Map.of())) {
                for (VectorSchemaRoot b : batches) {
                    w.write(b);
                }
            }
            return java.nio.file.Files.size(f);
        } finally {
            java.nio.file.Files.deleteIfExists(f);
        }
    }

    /** One op = one file of {@link #ROWS} rows; returns the file size (so it is not optimised away). */
    @Benchmark
    public long writeFile() {
        return LanceFileWriter.encode(Flux.fromIterable(batches), schema, WriteOptions.of(LanceFileVersion.parse(version)))
                .map(ByteBuffer::remaining)
                .reduce(0L, Long::sum)
                .block();
    }
}
