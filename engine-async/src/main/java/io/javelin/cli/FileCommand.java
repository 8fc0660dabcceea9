package io.javelin.cli;

import io.javelin.encoding.file.FileInspector;
import io.javelin.encoding.file.LanceFileReader;
import io.javelin.encoding.io.LocalFileSource;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import picocli.CommandLine;
import reactor.core.scheduler.Schedulers;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code javelin file inspect|cat|export}: look into a single Lance data file. */
@Command(name = "file", description = "Inspect, print or export a Lance data file (format 2.0, 2.1, 2.2).",
        subcommands = {FileCommand.Inspect.class, FileCommand.Cat.class, FileCommand.Export.class, FileWriteCommand.class})
final class FileCommand implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    static LanceFileReader open(Path file) {
        return LanceFileReader.open(LocalFileSource.open(file)).block();
    }

    @Command(name = "inspect", description = "Print footer, schema, columns, pages and encodings.")
    static final class Inspect implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Parameters(index = "0", paramLabel = "FILE")
        Path file;

        @Override
        public Integer call() {
            try (LanceFileReader r = open(file)) {
                FileInspector.print(r.metadata(), spec.commandLine().getOut());
            }
            return 0;
        }
    }

    @Command(name = "cat", description = "Print rows, tab-separated, with a header line.")
    static final class Cat implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Parameters(index = "0", paramLabel = "FILE")
        Path file;

        @Option(names = {"-n", "--limit"}, description = "Print at most this many rows.")
        long limit = Long.MAX_VALUE;

        @Option(names = {"-c", "--columns"}, split = ",", description = "Comma-separated top-level columns.")
        List<String> columns;

        @Option(names = "--offset", description = "First row to print.")
        long offset;

        @Override
        public Integer call() throws IOException {
            PrintWriter out = spec.commandLine().getOut();
            try (LanceFileReader r = open(file); BufferAllocator alloc = new RootAllocator()) {
                List<String> names = columns != null ? columns
                        : r.schema().getFields().stream().map(f -> f.getName()).toList();
                out.println(String.join("\t", names));
                long end = limit == Long.MAX_VALUE ? Long.MAX_VALUE : offset + limit;
                var options = LanceFileReader.ScanOptions.all(1024).withColumns(columns).withRange(offset, end);
                CliSupport.forEach(r.scan(options, alloc), root -> {
                    for (int i = 0; i < root.getRowCount(); i++) {
                        List<String> cells = new ArrayList<>();
                        for (FieldVector v : root.getFieldVectors()) {
                            Object o = v.getObject(i);
                            cells.add(o == null ? "null" : o instanceof byte[] b ? hex(b) : o.toString());
                        }
                        out.println(String.join("\t", cells));
                    }
                });
            }
            out.flush();
            return 0;
        }

        private static String hex(byte[] b) {
            return "0x" + java.util.HexFormat.of().formatHex(b);
        }
    }

    @Command(name = "export", description = "Write all rows to an Arrow IPC file.")
    static final class Export implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Parameters(index = "0", paramLabel = "FILE")
        Path file;

        @Parameters(index = "1", paramLabel = "OUT.arrow")
        Path out;

        @Option(names = "--batch-size", description = "Rows per record batch (default ${DEFAULT-VALUE}).")
        int batchSize = 8192;

        @Override
        public Integer call() throws IOException {
            long rows = 0;
            try (LanceFileReader r = open(file); BufferAllocator alloc = new RootAllocator();
                 VectorSchemaRoot sink = VectorSchemaRoot.create(r.schema(), alloc);
                 OutputFile target = OutputFile.create(out);
                 ArrowFileWriter writer = new ArrowFileWriter(sink, null, target.channel())) {
                writer.start();
                VectorLoader loader = new VectorLoader(sink);
                long[] written = {0};
                CliSupport.forEach(r.scan(LanceFileReader.ScanOptions.all(batchSize), alloc), batch -> {
                    try (ArrowRecordBatch rb = new VectorUnloader(batch).getRecordBatch()) {
                        loader.load(rb);
                        writer.writeBatch();
                        written[0] += batch.getRowCount();
                    }
                });
                rows = written[0];
                writer.end();
                target.publish(); // a failed export leaves no partial file
            }
            spec.commandLine().getOut().printf("wrote %d rows to %s%n", rows, out);
            spec.commandLine().getOut().flush();
            return 0;
        }
    }
}
