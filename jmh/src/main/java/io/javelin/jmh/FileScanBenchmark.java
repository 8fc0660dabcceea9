package io.javelin.jmh;

import io.javelin.encoding.file.LanceFileReader;
import io.javelin.encoding.io.LocalFileSource;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.ipc.ArrowReader;
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
 * Whole-file scans, Javelin's reader next to lance-core 7.0.0's {@code LanceFileReader}, one file per
 * encoding (written by lance-core in setup; 1M values or 16k vectors). Throughput in GB/s is
 * {@code ops/s x decodedBytes} (printed in setup: the Arrow bytes of the file's values).
 *
 * <pre>
 *   ./bench FileScanBenchmark -f 1 -wi 2 -i 3
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--add-modules=jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED",
    "--sun-misc-unsafe-memory-access=allow", "--add-opens=java.base/java.nio=ALL-UNNAMED", "-Xms2g", "-Xmx4g"})
public class FileScanBenchmark {

    static final int ROWS = 1 << 20;

    /** The column's encoding (chosen by data shape and field metadata). */
    @Param({"flat_f64", "bitpack_i32", "rle_i32", "utf8_variable", "utf8_fsst", "utf8_dict", "utf8_zstd", "fsl_f32_fullzip",
        "list_i32"})
    public String encoding;

    @Param({"2.1"})
    public String version;

    private Path dir;
    private Path file;
    private BufferAllocator alloc;
    public long decodedBytes;

    @Setup(Level.Trial)
    public void write() throws Exception {
        alloc = new RootAllocator();
        dir = Files.createTempDirectory("jmh-scan");
        file = dir.resolve(encoding + ".lance");
        Random rnd = new Random(1);
        Map<String, String> md = switch (encoding) {
            case "utf8_zstd" -> Map.of("lance-encoding:compression", "zstd");
            case "rle_i32" -> Map.of("lance-encoding:rle-threshold", "1.0");
            default -> Map.of();
        };
        ArrowType type = switch (encoding) {
            case "flat_f64" -> new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
            case "bitpack_i32", "rle_i32" -> new ArrowType.Int(32, true);
            case "fsl_f32_fullzip" -> new ArrowType.FixedSizeList(256);
            case "list_i32" -> ArrowType.List.INSTANCE;
            default -> ArrowType.Utf8.INSTANCE;
        };
        List<Field> kids = switch (encoding) {
            case "fsl_f32_fullzip" -> List.of(new Field("item", FieldType.nullable(new ArrowType.FloatingPoint(
                    FloatingPointPrecision.SINGLE)), null));
            case "list_i32" -> List.of(new Field("item", FieldType.nullable(new ArrowType.Int(32, true)), null));
            default -> null;
        };
        Schema schema = new Schema(List.of(new Field("c", new FieldType(true, type, null, md), kids)));
        int rows = encoding.equals("fsl_f32_fullzip") ? ROWS / 64 : encoding.equals("list_i32") ? ROWS / 4 : ROWS;
        int batch = rows / 16;
        String[] dict = {"red", "green", "blue", "cyan", "magenta", "yellow", "black", "white"};
        try (org.lance.file.LanceFileWriter w = org.lance.file.LanceFileWriter.open(file.toString(), alloc, null,
                Optional.of(version), Map.of())) {
            for (int b = 0; b < 16; b++) {
                try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, alloc)) {
                    FieldVector v = root.getVector(0);
                    for (int i = 0; i < batch; i++) {
                        long row = (long) b * batch + i;
                        switch (v) {
                            case Float8Vector f -> f.setSafe(i, rnd.nextGaussian());
                            case IntVector iv -> iv.setSafe(i, encoding.equals("rle_i32") ? (int) (row / 1000) : rnd.nextInt(1 << 12));
                            case VarCharVector s -> {
                                String str = switch (encoding) {
                                    case "utf8_dict" -> dict[rnd.nextInt(dict.length)];
                                    default -> "user-" + rnd.nextInt(100000) + "-" + dict[rnd.nextInt(8)] + "-" + row;
                                };
                                s.setSafe(i, str.getBytes(StandardCharsets.UTF_8));
                            }
                            case FixedSizeListVector l -> {
                                Float4Vector items = (Float4Vector) l.getDataVector();
                                l.setNotNull(i);
                                for (int k = 0; k < 256; k++) {
                                    items.setSafe(i * 256 + k, rnd.nextFloat());
                                }
                            }
                            case ListVector l -> {
                                IntVector items = (IntVector) l.getDataVector();
                                int start = l.startNewValue(i);
                                int n = rnd.nextInt(8);
                                for (int k = 0; k < n; k++) {
                                    items.setSafe(start + k, rnd.nextInt());
                                }
                                l.endValue(i, n);
                            }
                            default -> throw new IllegalStateException(v.toString());
                        }
                    }
                    if (v instanceof FixedSizeListVector l) {
                        l.getDataVector().setValueCount(batch * 256);
                    }
                    root.setRowCount(batch);
                    w.write(root);
                }
            }
        }
        decodedBytes = javelinScan();
        System.out.printf("%n[FileScanBenchmark] %s %s: file %d bytes, decoded %d bytes%n", encoding, version, Files.size(file),
                decodedBytes);
    }

    @TearDown(Level.Trial)
    public void cleanup() throws Exception {
        alloc.close();
        Files.deleteIfExists(file);
        Files.deleteIfExists(dir);
    }

    /** Javelin: open + full scan; returns the Arrow bytes produced. */
    @Benchmark
    public long javelinScan() {
        try (LanceFileReader r = LanceFileReader.open(LocalFileSource.open(file)).block()) {
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

    /** lance-core 7.0.0: open + full scan. */
    @Benchmark
    public long lanceCoreScan() throws Exception {
        long bytes = 0;
        try (org.lance.file.LanceFileReader r = org.lance.file.LanceFileReader.open(file.toString(), alloc);
             ArrowReader reader = r.readAll(List.of("c"), null, 65536)) {
            while (reader.loadNextBatch()) {
                for (FieldVector v : reader.getVectorSchemaRoot().getFieldVectors()) {
                    bytes += v.getBufferSize();
                }
            }
        }
        return bytes;
    }
}
