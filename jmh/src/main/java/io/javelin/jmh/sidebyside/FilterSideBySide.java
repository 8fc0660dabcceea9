package io.javelin.jmh.sidebyside;

import io.javelin.engine.Dataset;
import io.javelin.engine.index.IndexKind;
import io.javelin.engine.index.IndexParams;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Filter functions side by side (issue #22): the same Lance-written dataset ({@code id}, {@code s} random
 * words, {@code tags list<utf8>} of 0-3 of 32 labels, {@code js} a JSON column: text marked {@code arrow.json},
 * which Lance stores as JSONB {@code lance.json}) scanned by Javelin and lance-core with {@code regexp_match},
 * {@code array_has_any} (before and after a LabelList index) and {@code json_get_int}. Usage: {@code ./bench filters [--rows 10000000] [--reps 3] [--warmup 3] [--dir DIR] [--out docs/bench]}.
 */
public final class FilterSideBySide {

    static final Schema SCHEMA = new Schema(List.of(
            new Field("id", FieldType.nullable(new ArrowType.Int(64, true)), null),
            new Field("s", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
            new Field("tags", FieldType.nullable(ArrowType.List.INSTANCE),
                    List.of(new Field("item", FieldType.nullable(ArrowType.Utf8.INSTANCE), null))),
            new Field("js", new FieldType(true, ArrowType.Utf8.INSTANCE, null,
                    java.util.Map.of("ARROW:extension:name", "arrow.json")), null)));

    static List<String> filters = List.of("regexp_match(s, '^ab')", "array_has_any(tags, ['t3', 't17'])",
            "json_get_int(js, 'n') = 7");

    private FilterSideBySide() {
    }

    /** Batches of generated rows, for lance-core's writer. */
    static final class Rows extends ArrowReader {
        private final long rows;
        private final int batch;
        private final SplittableRandom rnd = new SplittableRandom(22);
        private long done;

        Rows(BufferAllocator alloc, long rows, int batch) {
            super(alloc);
            this.rows = rows;
            this.batch = batch;
        }

        @Override
        public boolean loadNextBatch() throws IOException {
            if (done >= rows) {
                return false;
            }
            prepareLoadNextBatch();
            VectorSchemaRoot root = getVectorSchemaRoot();
            int n = (int) Math.min(batch, rows - done);
            root.allocateNew();
            BigIntVector id = (BigIntVector) root.getVector("id");
            VarCharVector s = (VarCharVector) root.getVector("s");
            ListVector tags = (ListVector) root.getVector("tags");
            VarCharVector items = (VarCharVector) tags.getDataVector();
            VarCharVector js = (VarCharVector) root.getVector("js");
            int at = 0;
            byte[] word = new byte[12];
            for (int i = 0; i < n; i++) {
                id.setSafe(i, done + i);
                int len = 8 + rnd.nextInt(5);
                for (int k = 0; k < len; k++) {
                    word[k] = (byte) ('a' + rnd.nextInt(26));
                }
                s.setSafe(i, word, 0, len);
                tags.startNewValue(i);
                int m = rnd.nextInt(4);
                for (int k = 0; k < m; k++) {
                    items.setSafe(at++, ("t" + rnd.nextInt(32)).getBytes(StandardCharsets.UTF_8));
                }
                tags.endValue(i, m);
                js.setSafe(i, ("{\"n\":" + rnd.nextInt(10) + ",\"name\":\"x" + rnd.nextInt(100) + "\"}").getBytes(StandardCharsets.UTF_8));
            }
            items.setValueCount(at);
            root.setRowCount(n);
            done += n;
            return true;
        }

        @Override
        public long bytesRead() {
            return 0;
        }

        @Override
        protected void closeReadSource() {
        }

        @Override
        protected Schema readSchema() {
            return SCHEMA;
        }
    }

    record Timing(String engine, String filter, boolean labelList, double seconds, long rows, String error) {
    }

    public static void main(String[] args) throws Exception {
        long rows = 10_000_000;
        int reps = 3;
        int warmup = 3; // unmeasured runs of each filter before the measured ones, per engine
        Path dir = null;
        Path out = Path.of("docs/bench");
        boolean noIndex = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--rows" -> rows = Long.parseLong(args[++i]);
                case "--reps" -> reps = Integer.parseInt(args[++i]);
                case "--warmup" -> warmup = Integer.parseInt(args[++i]);
                case "--dir" -> dir = Path.of(args[++i]);
                case "--out" -> out = Path.of(args[++i]);
                case "--filter" -> {
                    filters = new ArrayList<>(filters.size() == 3 && filters.get(0).startsWith("regexp_match(s, '^ab')") ? List.of() : filters);
                    filters.add(args[++i]);
                }
                case "--no-index" -> noIndex = true;
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        Path work = dir != null ? dir : Files.createTempDirectory("javelin-filters-");
        String uri = work.resolve("filters.lance").toString();
        List<Timing> timings = new ArrayList<>();
        try (BufferAllocator alloc = new RootAllocator()) {
            if (!Files.exists(Path.of(uri))) try (ArrowReader reader = new Rows(alloc, rows, 65_536); ArrowArrayStream stream = ArrowArrayStream.allocateNew(alloc)) {
                Data.exportArrayStream(alloc, reader, stream);
                org.lance.WriteParams p = new org.lance.WriteParams.Builder().withDataStorageVersion("2.1").build();
                org.lance.Dataset.create(alloc, stream, uri, p).close();
            }
            run(alloc, uri, reps, warmup, false, timings);
            if (!noIndex) try (Dataset ds = Dataset.open(uri).block()) {
                ds.createIndex(List.of("tags"), IndexKind.LABEL_LIST, IndexParams.defaults()).block().close();
            }
            if (!noIndex) {
                run(alloc, uri, reps, warmup, true, timings);
            }
        }
        StringBuilder md = new StringBuilder("# Filter functions side by side\n\n").append(rows)
                .append(" rows, best of ").append(reps).append(" after ").append(warmup).append(" warm-up runs, one JVM; count of matching rows, projection `id`.\n\n")
                .append("| filter | LabelList | javelin s | lance-core s | rows |\n|---|---|---|---|---|\n");
        for (String f : filters) {
            for (boolean idx : new boolean[] {false, true}) {
                Timing j = find(timings, "javelin", f, idx);
                Timing l = find(timings, "lance-core", f, idx);
                if (j == null || l == null || idx && !f.startsWith("array_has_any")) {
                    continue;
                }
                md.append("| `").append(f).append("` | ").append(idx ? "yes" : "no").append(" | ").append(cell(j))
                        .append(" | ").append(cell(l)).append(" | ").append(j.rows()).append(" |\n");
            }
        }
        System.out.print(md);
        Files.createDirectories(out);
        Files.writeString(out.resolve("filters.md"), md.toString());
    }

    private static String cell(Timing t) {
        return t.error() != null ? "rejected: " + t.error() : String.format(Locale.ROOT, "%.3f", t.seconds());
    }

    private static Timing find(List<Timing> ts, String engine, String filter, boolean idx) {
        return ts.stream().filter(t -> t.engine().equals(engine) && t.filter().equals(filter) && t.labelList() == idx)
                .findFirst().orElse(null);
    }

    private static void run(BufferAllocator alloc, String uri, int reps, int warmup, boolean labelList, List<Timing> out) throws Exception {
        for (Engine e : List.<Engine>of(new JavelinEngine(alloc), new LanceCoreEngine(alloc))) {
            try (e) {
                e.open(uri);
                for (String f : filters) {
                    double best = Double.MAX_VALUE;
                    long n = -1;
                    String error = null;
                    for (int r = 0; r < reps + warmup && error == null; r++) {
                        long t0 = System.nanoTime();
                        try {
                            n = e.scan(List.of("id"), f, 8192).rows();
                        } catch (Exception ex) {
                            String m = String.valueOf(ex.getMessage());
                            error = m.substring(0, Math.min(80, m.length())).replace('|', '/').replace('\n', ' ');
                        }
                        double s = (System.nanoTime() - t0) / 1e9;
                        if (r >= warmup) { // the first runs warm up (JIT tiers of a JVM engine; the same count for both)
                            best = Math.min(best, s);
                        }
                    }
                    out.add(new Timing(e.name(), f, labelList, best, n, error));
                    System.err.printf(Locale.ROOT, "%s %s%s: %s%n", e.name(), f, labelList ? " (LabelList)" : "",
                            error != null ? error : String.format(Locale.ROOT, "%.3f s, %d rows", best, n));
                }
            }
        }
    }
}
