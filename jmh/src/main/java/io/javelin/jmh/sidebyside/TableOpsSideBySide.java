package io.javelin.jmh.sidebyside;

import io.javelin.engine.Dataset;
import io.javelin.engine.MergeInsertOptions;
import io.javelin.engine.WriteMode;
import io.javelin.engine.WriteParams;
import io.javelin.engine.maintenance.CompactionOptions;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import reactor.core.publisher.Flux;

/**
 * Merge-insert and compaction, Javelin vs lance-core 7.0.0 in one JVM (issue 30): each repetition copies
 * one lance-core-written table per engine, then times an upsert of {@code rows/2} source rows (half
 * matched) and a compaction of {@code rows} rows in 5 000-row fragments. Who goes first flips each time.
 * {@code ./bench table-ops [--rows N] [--reps N] [--dir DIR]}; prints one Markdown table.
 */
public final class TableOpsSideBySide {

    static final Schema SCHEMA = new Schema(List.of(
            new Field("id", FieldType.nullable(new ArrowType.Int(64, true)), null),
            new Field("v", FieldType.nullable(new ArrowType.Int(64, true)), null),
            new Field("payload", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));
    static final int BATCH = 8192;

    public static void main(String[] args) throws Exception {
        long rows = 1_000_000;
        int reps = 2;
        Path dir = Files.createTempDirectory("tableops-bench");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--rows" -> rows = Long.parseLong(args[++i]);
                case "--reps" -> reps = Integer.parseInt(args[++i]);
                case "--dir" -> dir = Path.of(args[++i]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        try {
            run(rows, reps, dir);
        } finally {
            delete(dir);
        }
    }

    static void run(long rows, int reps, Path dir) throws Exception {
        try (BufferAllocator alloc = new RootAllocator()) {
            Path mergeBase = dir.resolve("merge-base.lance");
            Path compactBase = dir.resolve("compact-base.lance");
            lanceWrite(alloc, mergeBase, 0, rows, 0, Integer.MAX_VALUE);
            lanceWrite(alloc, compactBase, 0, rows, 0, 5000);
            byte[] source = ipc(alloc, rows / 2, rows, 1); // ids rows/2 .. 3*rows/2: half update, half insert
            List<long[]> merge = new ArrayList<>();
            List<long[]> compact = new ArrayList<>();
            for (int rep = 0; rep < reps; rep++) {
                int r = rep;
                boolean javelinFirst = r % 2 == 0;
                merge.add(pair(javelinFirst, () -> javelinMerge(alloc, copy(mergeBase, dir.resolve("m-j" + r)), rows),
                        () -> lanceMerge(alloc, copy(mergeBase, dir.resolve("m-l" + r)), source)));
                compact.add(pair(javelinFirst, () -> javelinCompact(copy(compactBase, dir.resolve("c-j" + r))),
                        () -> lanceCompact(alloc, copy(compactBase, dir.resolve("c-l" + r)))));
            }
            System.out.printf("| operation (%,d-row table) | Javelin ms | lance-core ms | ratio |%n|---|---|---|---|%n", rows);
            print("merge-insert upsert of " + String.format("%,d", rows) + " rows (half matched)", merge);
            print("compact " + rows / 5000 + " fragments of 5 000 rows", compact);
        }
    }

    interface Timed {
        void run() throws Exception;
    }

    static long[] pair(boolean javelinFirst, Timed javelin, Timed lance) throws Exception {
        long j;
        long l;
        if (javelinFirst) {
            j = time(javelin);
            l = time(lance);
        } else {
            l = time(lance);
            j = time(javelin);
        }
        return new long[] {j, l};
    }

    static long time(Timed t) throws Exception {
        System.gc();
        long t0 = System.nanoTime();
        t.run();
        return (System.nanoTime() - t0) / 1_000_000;
    }

    static void print(String op, List<long[]> runs) {
        long[] j = runs.stream().mapToLong(x -> x[0]).sorted().toArray();
        long[] l = runs.stream().mapToLong(x -> x[1]).sorted().toArray();
        long jm = j[j.length / 2];
        long lm = l[l.length / 2];
        System.out.printf("| %s | %d | %d | %.2f |%n", op, jm, lm, (double) jm / lm);
    }

    static void javelinMerge(BufferAllocator alloc, Path uri, long rows) {
        try (Dataset ds = Dataset.open(uri.toString()).block()) {
            var r = ds.mergeInsert(List.of("id")).whenMatchedUpdateAll().whenNotMatchedInsertAll()
                    .execute(batches(alloc, rows / 2, rows, 1), MergeInsertOptions.DEFAULTS).block();
            check(r.updated() == rows / 2 && r.inserted() == rows / 2, "javelin merge counts");
            r.dataset().close();
        }
    }

    static void lanceMerge(BufferAllocator alloc, Path uri, byte[] source) throws Exception {
        try (org.lance.Dataset ds = org.lance.Dataset.open(uri.toString(), alloc);
             ArrowStreamReader reader = new ArrowStreamReader(new ByteArrayInputStream(source), alloc);
             ArrowArrayStream stream = ArrowArrayStream.allocateNew(alloc)) {
            Data.exportArrayStream(alloc, reader, stream);
            var r = ds.mergeInsert(new org.lance.merge.MergeInsertParams(List.of("id")).withMatchedUpdateAll()
                    .withNotMatched(org.lance.merge.MergeInsertParams.WhenNotMatched.InsertAll), stream);
            check(r.stats().numUpdatedRows() > 0, "lance merge counts");
            r.dataset().close();
        }
    }

    static void javelinCompact(Path uri) {
        try (Dataset ds = Dataset.open(uri.toString()).block()) {
            var r = ds.compact(CompactionOptions.defaults()).block();
            check(r.metrics().fragmentsAdded() > 0, "javelin compacted");
            r.dataset().close();
        }
    }

    static void lanceCompact(BufferAllocator alloc, Path uri) {
        try (org.lance.Dataset ds = org.lance.Dataset.open(uri.toString(), alloc)) {
            int before = ds.getFragments().size();
            ds.compact(org.lance.compaction.CompactionOptions.builder().build());
            try (org.lance.Dataset after = org.lance.Dataset.open(uri.toString(), alloc)) {
                check(after.getFragments().size() < before, "lance compacted");
            }
        }
    }

    static void check(boolean ok, String what) {
        if (!ok) {
            throw new IllegalStateException("benchmark sanity check failed: " + what);
        }
    }

    static Flux<VectorSchemaRoot> batches(BufferAllocator alloc, long from, long n, long v) {
        return Flux.range(0, (int) ((n + BATCH - 1) / BATCH)).map(b -> batch(alloc, from + (long) b * BATCH,
                (int) Math.min(BATCH, n - (long) b * BATCH), v));
    }

    static VectorSchemaRoot batch(BufferAllocator alloc, long from, int n, long v) {
        VectorSchemaRoot r = VectorSchemaRoot.create(SCHEMA, alloc);
        fill(r, from, n, v);
        return r;
    }

    static void fill(VectorSchemaRoot r, long from, int n, long v) {
        r.allocateNew();
        BigIntVector id = (BigIntVector) r.getVector("id");
        BigIntVector vv = (BigIntVector) r.getVector("v");
        VarCharVector p = (VarCharVector) r.getVector("payload");
        for (int i = 0; i < n; i++) {
            id.setSafe(i, from + i);
            vv.setSafe(i, v);
            p.setSafe(i, ("payload-" + (from + i) + "-0123456789abcdefghijklmnopqrstuvwxyz-0123456789abcdefghijklmnopqrstuvwxyz")
                    .getBytes(StandardCharsets.UTF_8));
        }
        r.setRowCount(n);
        r.getFieldVectors().forEach(x -> x.setValueCount(n));
    }

    static byte[] ipc(BufferAllocator alloc, long from, long n, long v) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, alloc); ArrowStreamWriter w = new ArrowStreamWriter(root, null, out)) {
            w.start();
            for (long at = 0; at < n; at += BATCH) {
                fill(root, from + at, (int) Math.min(BATCH, n - at), v);
                w.writeBatch();
            }
            w.end();
        }
        return out.toByteArray();
    }

    static void lanceWrite(BufferAllocator alloc, Path uri, long from, long n, long v, int maxRowsPerFile) throws Exception {
        try (ArrowStreamReader reader = new ArrowStreamReader(new ByteArrayInputStream(ipc(alloc, from, n, v)), alloc);
             ArrowArrayStream stream = ArrowArrayStream.allocateNew(alloc)) {
            Data.exportArrayStream(alloc, reader, stream);
            org.lance.Dataset.create(alloc, stream, uri.toString(), new org.lance.WriteParams.Builder()
                    .withMode(org.lance.WriteParams.WriteMode.CREATE).withDataStorageVersion("2.1")
                    .withMaxRowsPerFile(maxRowsPerFile).build()).close();
        }
    }

    static Path copy(Path from, Path to) throws IOException {
        try (Stream<Path> s = Files.walk(from)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                Path t = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(t);
                } else {
                    Files.copy(p, t);
                }
            }
        }
        return to;
    }

    static void delete(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    private TableOpsSideBySide() {
    }
}
