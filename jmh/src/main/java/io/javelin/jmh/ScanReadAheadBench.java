package io.javelin.jmh;

import io.javelin.encoding.file.LanceFileReader;
import io.javelin.encoding.io.ObjectStoreSource;
import io.javelin.encoding.writer.LanceFileVersion;
import io.javelin.encoding.writer.LanceFileWriter;
import io.javelin.encoding.writer.WriteOptions;
import io.javelin.jmh.objectstore.LatencyObjectStore;
import io.javelin.objectstore.ObjectStore;
import io.javelin.objectstore.local.LocalObjectStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Sequential file scans with and without page read-ahead, on a local file and through a store that adds a
 * fixed latency to every GET ({@link LatencyObjectStore}): one multi-page 2.1 file (int64 ids, float64,
 * int32, utf8; default 8 MiB pages), scanned whole in batches of 8192 rows, every batch closed on arrival.
 * The configurations run interleaved (rep by rep) in one JVM so that a noisy machine affects them alike.
 *
 * <pre>
 *   java ... io.javelin.jmh.ScanReadAheadBench [--rows 6000000] [--latency-ms 0,15] [--budgets-mib 0,16,64]
 *       [--pages 16] [--reps 5] [--batch 8192] [--dir DIR]
 * </pre>
 * Budgets and page limits are passed to each scan as its {@code ReadAhead} option.
 */
public final class ScanReadAheadBench {

    private ScanReadAheadBench() {
    }

    static final Schema SCHEMA = new Schema(List.of(
            new Field("id", FieldType.nullable(new ArrowType.Int(64, true)), null),
            new Field("x", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), null),
            new Field("k", FieldType.nullable(new ArrowType.Int(32, true)), null),
            new Field("s", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));

    public static void main(String[] args) throws Exception {
        long rows = 6_000_000;
        long[] latencies = {0, 15};
        long[] budgets = {0, 16, 64};
        int[] pages = {0};
        int reps = 5;
        int batch = 8192;
        Path dir = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--rows" -> rows = Long.parseLong(args[++i]);
                case "--latency-ms" -> latencies = longs(args[++i]);
                case "--budgets-mib" -> budgets = longs(args[++i]);
                case "--pages" -> pages = Arrays.stream(longs(args[++i])).mapToInt(l -> (int) l).toArray();
                case "--reps" -> reps = Integer.parseInt(args[++i]);
                case "--batch" -> batch = Integer.parseInt(args[++i]);
                case "--dir" -> dir = Path.of(args[++i]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        Path root = dir != null ? dir : Files.createTempDirectory("scan-readahead");
        Files.createDirectories(root);
        try (BufferAllocator alloc = new RootAllocator(); LocalObjectStore local = new LocalObjectStore(root, 8)) {
            String file = "scan-" + rows + ".lance";
            if (!Files.exists(root.resolve(file))) {
                long t0 = System.nanoTime();
                write(local, file, rows, alloc);
                System.out.printf("wrote %s in %.1f s%n", file, (System.nanoTime() - t0) / 1e9);
            }
            long size = Files.size(root.resolve(file));
            try (LanceFileReader probe = LanceFileReader.open(new ObjectStoreSource(local, file)).block()) {
                int n = 0;
                for (var c : probe.metadata().columns()) {
                    n += c.getPagesCount();
                }
                System.out.printf("file %.1f MB, %d rows, %d pages, batch %d rows, %d cores%n", size / 1e6, probe.numRows(), n, batch,
                        Runtime.getRuntime().availableProcessors());
            }
            List<long[]> configs = new ArrayList<>(); // latency, budget MiB, pages
            for (long lat : latencies) {
                for (long b : budgets) {
                    for (int p : b == 0 ? new int[] {0} : pages) {
                        configs.add(new long[] {lat, b, p});
                    }
                }
            }
            double[][] secs = new double[configs.size()][reps];
            for (int rep = -1; rep < reps; rep++) { // rep -1: warm-up
                for (int c = 0; c < configs.size(); c++) {
                    long[] cfg = configs.get(c);
                    ObjectStore store = cfg[0] == 0 ? local : new LatencyObjectStore(local, Duration.ofMillis(cfg[0]));
                    setReadAhead(cfg[1] << 20, (int) cfg[2]);
                    long t0 = System.nanoTime();
                    long got = scan(store, file, batch, alloc);
                    double s = (System.nanoTime() - t0) / 1e9;
                    if (got != rows) {
                        throw new IllegalStateException("scanned " + got + " rows of " + rows);
                    }
                    if (rep >= 0) {
                        secs[c][rep] = s;
                    }
                }
            }
            System.out.println("| latency per GET | read-ahead budget | pages ahead | median s | min s | MB/s (median) |");
            System.out.println("|---|---|---|---|---|---|");
            for (int c = 0; c < configs.size(); c++) {
                long[] cfg = configs.get(c);
                double[] s = secs[c].clone();
                Arrays.sort(s);
                double med = s[s.length / 2];
                System.out.printf("| %d ms | %s | %s | %.3f | %.3f | %.0f |%n", cfg[0], cfg[1] == 0 ? "off" : cfg[1] + " MiB",
                        cfg[1] == 0 ? "-" : cfg[2] == 0 ? "default" : Long.toString(cfg[2]), med, s[0], size / 1e6 / med);
            }
        } finally {
            if (dir == null) {
                try (var walk = Files.walk(root)) {
                    walk.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
                }
            }
        }
    }

    private static long[] longs(String csv) {
        return Arrays.stream(csv.split(",")).mapToLong(Long::parseLong).toArray();
    }

    /** Read-ahead of the scans that follow (0 pages = the local default page count). */
    private static io.javelin.encoding.file.ReadAhead readAhead = io.javelin.encoding.file.ReadAhead.OFF;

    private static void setReadAhead(long bytes, int pagesAhead) {
        readAhead = new io.javelin.encoding.file.ReadAhead(bytes,
                pagesAhead == 0 ? io.javelin.encoding.file.ReadAhead.localDefaults().maxPages() : pagesAhead);
    }

    private static long scan(ObjectStore store, String file, int batch, BufferAllocator alloc) {
        return Mono.usingWhen(LanceFileReader.open(new ObjectStoreSource(store, file)),
                r -> r.scan(LanceFileReader.ScanOptions.all(batch).withReadAhead(readAhead), alloc)
                        .map(b -> {
                            try (b) {
                                return (long) b.getRowCount();
                            }
                        })
                        .reduce(0L, Long::sum),
                r -> Mono.fromRunnable(r::close)).block(Duration.ofMinutes(30));
    }

    private static void write(ObjectStore store, String file, long rows, BufferAllocator alloc) {
        int chunk = 65536;
        long chunks = (rows + chunk - 1) / chunk;
        Random rnd = new Random(7);
        String[] words = {"red", "green", "blue", "cyan", "magenta", "yellow", "black", "white"};
        Flux<VectorSchemaRoot> in = Flux.range(0, (int) chunks).concatMap(b -> Mono.using(() -> {
            int n = (int) Math.min(chunk, rows - (long) b * chunk);
            VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, alloc);
            BigIntVector id = (BigIntVector) root.getVector(0);
            Float8Vector x = (Float8Vector) root.getVector(1);
            IntVector k = (IntVector) root.getVector(2);
            VarCharVector s = (VarCharVector) root.getVector(3);
            for (int i = 0; i < n; i++) {
                long row = (long) b * chunk + i;
                id.setSafe(i, row);
                x.setSafe(i, rnd.nextGaussian());
                k.setSafe(i, rnd.nextInt());
                s.setSafe(i, ("user-" + rnd.nextInt(1_000_000) + "-" + words[rnd.nextInt(8)]).getBytes(StandardCharsets.UTF_8));
            }
            root.setRowCount(n);
            return root;
        }, Mono::just, VectorSchemaRoot::close, false), 1);
        LanceFileWriter.write(in, SCHEMA, store, file, WriteOptions.of(LanceFileVersion.V2_1)).block(Duration.ofMinutes(30));
    }
}
