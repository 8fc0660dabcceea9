package io.javelin.cli;

import io.javelin.engine.Dataset;
import io.javelin.engine.Javelin;
import io.javelin.engine.Scanner;
import io.javelin.engine.WriteMode;
import io.javelin.engine.WriteParams;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Callable;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import reactor.core.publisher.Flux;

/**
 * The README's main job: creates a local dataset from generated data, appends, deletes, runs a filtered
 * scan and a take, lists versions, tags one and travels back in time, printing each step.
 */
@Command(name = "demo", description = "Create a local Lance dataset and walk through append, delete, scan, take, versions, tags and time travel.")
final class DemoCommand implements Callable<Integer> {

    static final String[] CATEGORIES = {"red", "green", "blue", "yellow"};

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = {"-d", "--dir"}, description = "Directory to create the dataset in (default: a fresh temporary directory).")
    Path dir;

    @Option(names = "--rows", description = "Rows in the first write (default ${DEFAULT-VALUE}).")
    int rows = 10_000;

    @Option(names = {"-v", "--verbose"}, description = "Print stack traces on errors.")
    boolean verbose;

    static Schema schema() {
        return new Schema(List.of(
                new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
                new Field("name", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
                new Field("category", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
                new Field("score", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), null)));
    }

    /** Deterministic rows {@code [from, from+count)} in batches of {@code batch}; each batch is owned by the consumer. */
    static Flux<VectorSchemaRoot> generate(BufferAllocator alloc, long from, int count, int batch) {
        return Flux.range(0, (count + batch - 1) / batch).map(b -> {
            int n = Math.min(batch, count - b * batch);
            VectorSchemaRoot root = VectorSchemaRoot.create(schema(), alloc);
            BigIntVector id = (BigIntVector) root.getVector("id");
            VarCharVector name = (VarCharVector) root.getVector("name");
            VarCharVector cat = (VarCharVector) root.getVector("category");
            Float8Vector score = (Float8Vector) root.getVector("score");
            root.allocateNew();
            for (int i = 0; i < n; i++) {
                long r = from + (long) b * batch + i;
                Random rnd = new Random(r * 7919 + 17);
                id.setSafe(i, r);
                name.setSafe(i, ("user-" + r).getBytes(java.nio.charset.StandardCharsets.UTF_8));
                if (r % 10 == 9) {
                    cat.setNull(i);
                } else {
                    cat.setSafe(i, CATEGORIES[(int) (r % CATEGORIES.length)].getBytes(java.nio.charset.StandardCharsets.UTF_8));
                }
                score.setSafe(i, Math.round(rnd.nextDouble() * 1000) / 1000.0);
            }
            root.setRowCount(n);
            return root;
        });
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        Path base = dir != null ? dir : Files.createTempDirectory("javelin-demo-");
        Files.createDirectories(base);
        Path path = base.resolve("demo.lance");
        if (Files.exists(path)) {
            throw new IllegalArgumentException(path + " already exists: pick another --dir");
        }
        String uri = path.toString();
        out.println("Javelin " + Javelin.version() + " on Java " + Runtime.version());
        out.println("  object stores : " + String.join(", ", Javelin.stores()));
        out.println("  SIMD provider : " + Javelin.simdProvider());
        out.println("Dataset: " + uri);
        out.println();
        long t0 = System.nanoTime();
        try (BufferAllocator alloc = new CliSupport.Allocator()) {
            step(out, "1. create: write " + rows + " generated rows (id, name, category, score) as Lance 2.1");
            try (Dataset v1 = Dataset.write(uri, generate(alloc, 0, rows, 2048), schema(), WriteParams.of(WriteMode.CREATE)).block()) {
                out.printf("   -> version %d, %d rows in %d fragment(s), data storage %s%n", v1.version(), v1.count().block(),
                        v1.fragments().size(), v1.dataStorageVersion());

                int more = Math.max(1, rows / 2);
                step(out, "2. append " + more + " more rows");
                try (Dataset v2 = v1.append(generate(alloc, rows, more, 2048), schema()).block()) {
                    out.printf("   -> version %d, %d rows in %d fragment(s)%n", v2.version(), v2.count().block(), v2.fragments().size());

                    step(out, "3. tag version " + v2.version() + " as 'before-delete'");
                    var tag = v2.createTag("before-delete", v2.version()).block();
                    out.printf("   -> tag %s -> version %d%n", tag.name(), tag.version());

                    String del = "score < 0.25 OR category IS NULL";
                    step(out, "4. delete where " + del);
                    try (Dataset v3 = v2.delete(del).block()) {
                        out.printf("   -> version %d, %d rows (%d deleted; data files untouched, deletion files added)%n",
                                v3.version(), v3.count().block(), v2.count().block() - v3.count().block());

                        String filter = "category = 'red' AND score > 0.9";
                        step(out, "5. filtered scan: columns id, name, score where " + filter + " (first 5, with _rowid)");
                        out.printf("   matching rows: %d%n", v3.count(filter).block());
                        Scanner sc = v3.scanner().columns("id", "name", "score").filter(filter).withRowId(true);
                        CliSupport.print(sc.scan(alloc), sc.outputSchema(), CliSupport.Format.table, indent(out), 5);

                        step(out, "6. take rows at positions 0, 1, 2 and 1000");
                        long[] idx = {0, 1, 2, Math.min(1000, v3.count().block() - 1)};
                        var taken = v3.take(idx, List.of("id", "name", "category", "score"), alloc).block();
                        CliSupport.print(Flux.just(taken), taken.getSchema(), CliSupport.Format.table, indent(out));

                        step(out, "7. versions");
                        DatasetCommands.printVersions(v3.versions().block(), v3.tags().block(), indent(out));

                        step(out, "8. time travel");
                        try (Dataset old = Dataset.open(uri, java.util.Map.of(), 1L).block();
                             Dataset tagged = Dataset.open(uri, java.util.Map.of(), "before-delete").block();
                             Dataset latest = Dataset.open(uri).block()) {
                            out.printf("   version 1:               %d rows%n", old.count().block());
                            out.printf("   tag 'before-delete' (v%d): %d rows, %d match \"%s\"%n", tagged.version(),
                                    tagged.count().block(), tagged.count(del).block(), del);
                            out.printf("   latest (v%d):             %d rows, %d match \"%s\"%n", latest.version(),
                                    latest.count().block(), latest.count(del).block(), del);
                        }
                    }
                }
            }
        }
        out.println();
        out.printf("Done in %d ms. Try: javelin info %s | javelin scan %s --filter \"score > 0.99\"%n",
                (System.nanoTime() - t0) / 1_000_000, uri, uri);
        out.flush();
        return 0;
    }

    private static void step(PrintWriter out, String s) {
        out.println(s);
        out.flush();
    }

    private static PrintWriter indent(PrintWriter out) {
        return new PrintWriter(new java.io.Writer() {
            private boolean lineStart = true;

            @Override
            public void write(char[] cbuf, int off, int len) {
                for (int i = off; i < off + len; i++) {
                    if (lineStart) {
                        out.write("   ");
                        lineStart = false;
                    }
                    out.write(cbuf[i]);
                    if (cbuf[i] == '\n') {
                        lineStart = true;
                    }
                }
            }

            @Override
            public void flush() {
                out.flush();
            }

            @Override
            public void close() {
            }
        }, true);
    }
}
