package io.javelin.jmh;

import io.javelin.encoding.file.DecodeOptions;
import io.javelin.encoding.file.LanceFileReader;
import io.javelin.encoding.io.LocalFileSource;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
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

/**
 * Whole-file scans of nested and boolean columns (files written by lance-core 7.0.0, format 2.1), Javelin's
 * reader with native decode and zero-copy assembly of nested pages ({@code native=true}) or the heap path
 * that unravels levels into Java arrays and copies into Arrow buffers ({@code native=false}, what nested
 * columns always did before). Shapes: {@code struct_int_str} = struct&lt;a: int32, s: utf8&gt; (1M rows,
 * nulls at both levels), {@code list_f32} = list&lt;float32&gt; (256k rows, 0-15 items, some null and empty
 * lists), {@code bool} = nullable booleans (1M rows).
 *
 * <pre>
 *   ./bench NestedScanBenchmark -f 1 -wi 2 -i 3
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--add-modules=jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED",
    "--sun-misc-unsafe-memory-access=allow", "--add-opens=java.base/java.nio=ALL-UNNAMED", "-Xms2g", "-Xmx4g"})
public class NestedScanBenchmark {

    static final int ROWS = 1 << 20;

    @Param({"struct_int_str", "list_f32", "bool"})
    public String shape;

    @Param({"false", "true"})
    public boolean nativeDecode;

    private Path dir;
    private Path file;
    private BufferAllocator alloc;
    public long decodedBytes;

    @Setup(Level.Trial)
    public void write() throws Exception {
        alloc = new RootAllocator();
        dir = Files.createTempDirectory("jmh-nested");
        file = dir.resolve(shape + ".lance");
        Random rnd = new Random(1);
        Field field = switch (shape) {
            case "struct_int_str" -> new Field("c", FieldType.nullable(ArrowType.Struct.INSTANCE), List.of(
                    new Field("a", FieldType.nullable(new ArrowType.Int(32, true)), null),
                    new Field("s", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));
            case "list_f32" -> new Field("c", FieldType.nullable(ArrowType.List.INSTANCE), List.of(
                    new Field("item", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)), null)));
            default -> new Field("c", FieldType.nullable(ArrowType.Bool.INSTANCE), null);
        };
        Schema schema = new Schema(List.of(field));
        int rows = shape.equals("list_f32") ? ROWS / 4 : ROWS;
        int batch = rows / 16;
        try (org.lance.file.LanceFileWriter w = org.lance.file.LanceFileWriter.open(file.toString(), alloc, null,
                Optional.of("2.1"), Map.of())) {
            for (int b = 0; b < 16; b++) {
                try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, alloc)) {
                    FieldVector v = root.getVector(0);
                    for (int i = 0; i < batch; i++) {
                        long row = (long) b * batch + i;
                        switch (v) {
                            case StructVector s -> {
                                if (row % 17 == 3) {
                                    s.setNull(i);
                                    continue;
                                }
                                s.setIndexDefined(i);
                                IntVector a = (IntVector) s.getChild("a");
                                VarCharVector str = (VarCharVector) s.getChild("s");
                                if (row % 11 != 5) {
                                    a.setSafe(i, rnd.nextInt(1 << 16));
                                }
                                if (row % 13 != 7) {
                                    str.setSafe(i, ("user-" + rnd.nextInt(100000) + "-" + row).getBytes(StandardCharsets.UTF_8));
                                }
                            }
                            case ListVector l -> {
                                if (row % 29 == 1) {
                                    l.startNewValue(i);
                                    l.endValue(i, 0);
                                    l.setNull(i);
                                    continue;
                                }
                                Float4Vector items = (Float4Vector) l.getDataVector();
                                int start = l.startNewValue(i);
                                int n = rnd.nextInt(16);
                                for (int k = 0; k < n; k++) {
                                    items.setSafe(start + k, rnd.nextFloat());
                                }
                                l.endValue(i, n);
                            }
                            case BitVector bv -> {
                                if (row % 9 != 4) {
                                    bv.setSafe(i, rnd.nextInt(3) == 0 ? 1 : 0);
                                }
                            }
                            default -> throw new IllegalStateException(v.toString());
                        }
                    }
                    v.setValueCount(batch);
                    root.setRowCount(batch);
                    w.write(root);
                }
            }
        }
        decodedBytes = javelinScan();
        System.out.printf("%n[NestedScanBenchmark] %s native=%s: file %d bytes, decoded %d bytes%n", shape, nativeDecode,
                Files.size(file), decodedBytes);
    }

    @TearDown(Level.Trial)
    public void cleanup() throws Exception {
        alloc.close();
        Files.deleteIfExists(file);
        Files.deleteIfExists(dir);
    }

    /** Javelin: open + full scan (batches of 65536 rows); returns the Arrow bytes produced. */
    @Benchmark
    public long javelinScan() {
        try (LanceFileReader r = LanceFileReader.open(LocalFileSource.open(file), DecodeOptions.DEFAULT.withNativeDecode(nativeDecode)).block()) {
            return r.scan(LanceFileReader.ScanOptions.all(65536), alloc).map(root -> {
                try (root) {
                    long bytes = 0;
                    for (FieldVector v : root.getFieldVectors()) {
                        bytes += v.getBufferSize();
                    }
                    return bytes;
                }
            }).reduce(0L, Long::sum).block();
        }
    }
}
