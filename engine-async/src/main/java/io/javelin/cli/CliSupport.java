package io.javelin.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javelin.engine.Dataset;
import io.javelin.engine.DatasetAlreadyExistsException;
import io.javelin.engine.DatasetCommitConflictException;
import io.javelin.engine.DatasetException;
import io.javelin.engine.DatasetNotFoundException;
import io.javelin.engine.InvalidScanException;
import io.javelin.engine.SchemaMismatchException;
import io.javelin.engine.TagException;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.channels.Channels;
import java.nio.channels.WritableByteChannel;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import picocli.CommandLine;
import reactor.core.publisher.Flux;

/** Shared CLI pieces: exit codes, human error messages, dataset opening, batch printing. */
final class CliSupport {

    static final int OK = 0;
    static final int ERROR = 1;
    static final int USAGE = 2;
    static final int NOT_FOUND = 3;
    static final int CONFLICT = 4;

    private static final ObjectMapper JSON = new ObjectMapper();

    private CliSupport() {
    }

    /** Prints "error: message" (and the stack trace with --verbose) and picks the exit code. */
    static final class Errors implements CommandLine.IExecutionExceptionHandler {
        @Override
        public int handleExecutionException(Exception ex, CommandLine cmd, CommandLine.ParseResult parsed) {
            boolean verbose = parsed.hasMatchedOption("--verbose")
                    || (parsed.subcommand() != null && matchedDeep(parsed, "--verbose"));
            PrintWriter err = cmd.getErr();
            Throwable t = ex;
            err.println("error: " + message(t));
            if (verbose) {
                t.printStackTrace(err);
            }
            err.flush();
            return exitCode(t);
        }

        private static boolean matchedDeep(CommandLine.ParseResult p, String opt) {
            for (CommandLine.ParseResult r = p; r != null; r = r.subcommand()) {
                if (r.hasMatchedOption(opt)) {
                    return true;
                }
            }
            return false;
        }
    }

    static String message(Throwable t) {
        String m = t.getMessage();
        if (m == null || m.isBlank()) {
            m = t.getClass().getSimpleName();
        }
        if (!(t instanceof DatasetException) && t.getCause() != null && t.getCause() != t && t.getCause().getMessage() != null
                && !m.contains(t.getCause().getMessage())) {
            m += ": " + t.getCause().getMessage();
        }
        return m;
    }

    static int exitCode(Throwable t) {
        return switch (t) {
            case DatasetNotFoundException e -> NOT_FOUND;
            case TagException e -> NOT_FOUND;
            case DatasetAlreadyExistsException e -> CONFLICT;
            case DatasetCommitConflictException e -> CONFLICT;
            case InvalidScanException e -> USAGE;
            case SchemaMismatchException e -> USAGE;
            case io.javelin.engine.SchemaEvolutionException e -> USAGE;
            case IllegalArgumentException e -> USAGE;
            default -> ERROR;
        };
    }

    /** Options shared by the dataset subcommands. */
    static final class Common {
        @CommandLine.Option(names = {"-v", "--verbose"}, description = "Print stack traces on errors.")
        boolean verbose;

        @CommandLine.Option(names = "--storage-option", paramLabel = "KEY=VALUE",
                description = "Object store option (repeatable), e.g. aws_region=eu-west-1.")
        Map<String, String> storageOptions = new LinkedHashMap<>();
    }

    static Dataset open(String uri, Map<String, String> options, Long version, String tag) {
        if (version != null && tag != null) {
            throw new IllegalArgumentException("Give --version or --tag, not both");
        }
        if (version != null) {
            return Dataset.open(uri, options, version).block();
        }
        if (tag != null) {
            return Dataset.open(uri, options, tag).block();
        }
        return Dataset.open(uri, options).block();
    }

    // ------------------------------------------------------------------ output

    enum Format { table, csv, json, arrow }

    static String cell(FieldVector v, int i) {
        Object o = v.getObject(i);
        if (o == null) {
            return "null";
        }
        if (o instanceof byte[] b) {
            return "0x" + HexFormat.of().formatHex(b);
        }
        return o.toString();
    }

    /**
     * A cell as a JSON tree, nested values included: Jackson has no mapping for java.time values (timestamps
     * without a zone, dates, times, durations), Arrow's {@code Text} or binary, so those become strings.
     */
    static com.fasterxml.jackson.databind.JsonNode json(Object o) {
        if (o == null) {
            return com.fasterxml.jackson.databind.node.NullNode.instance;
        }
        if (o instanceof byte[] b) {
            return JSON.getNodeFactory().textNode("0x" + HexFormat.of().formatHex(b));
        }
        if (o instanceof java.util.Map<?, ?> m) {
            ObjectNode node = JSON.createObjectNode();
            m.forEach((k, x) -> node.set(String.valueOf(k), json(x)));
            return node;
        }
        if (o instanceof java.util.List<?> l) {
            var arr = JSON.createArrayNode();
            l.forEach(x -> arr.add(json(x)));
            return arr;
        }
        if (o instanceof Number || o instanceof Boolean || o instanceof Character) {
            return JSON.valueToTree(o);
        }
        // Text, java.time (LocalDateTime prints ISO-8601), PeriodDuration, ...
        return JSON.getNodeFactory().textNode(o.toString());
    }

    /** Work on one batch; the caller closes the batch. */
    @FunctionalInterface
    interface BatchBody {
        void accept(VectorSchemaRoot batch) throws IOException;
    }

    /**
     * Runs {@code body} on each batch on a thread that may block (files, the terminal) and closes every batch
     * exactly once. Not {@code toIterable()}: its iterator throws an error the moment it arrives and drops the
     * batches still queued ahead of it, which then leak; here a queued batch is either handed to {@code body}
     * or discarded (closed) when an error or a failing body ends the pipeline.
     */
    static void forEach(Flux<VectorSchemaRoot> batches, BatchBody body) throws IOException {
        try {
            batches.publishOn(reactor.core.scheduler.Schedulers.boundedElastic(), 1)
                    .doOnNext(b -> {
                        try (b) {
                            body.accept(b);
                        } catch (IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    })
                    .doOnDiscard(VectorSchemaRoot.class, VectorSchemaRoot::close)
                    .then()
                    .block();
        } catch (java.io.UncheckedIOException e) {
            throw e.getCause();
        }
    }

    /** Prints batches (closing them) as an aligned table, CSV or JSON lines; returns the row count. */
    static long print(Flux<VectorSchemaRoot> batches, Schema schema, Format format, PrintWriter out) throws IOException {
        return print(batches, schema, format, out, Long.MAX_VALUE);
    }

    /** Like {@link #print}, reading every batch but printing at most {@code maxRows} rows (no cancellation). */
    static long print(Flux<VectorSchemaRoot> batches, Schema schema, Format format, PrintWriter out, long maxRows)
            throws IOException {
        List<String> names = schema.getFields().stream().map(Field::getName).toList();
        List<List<String>> rows = new ArrayList<>();
        if (format == Format.csv) {
            out.println(String.join(",", names.stream().map(CliSupport::csv).toList()));
        }
        long[] printed = {0};
        forEach(batches, b -> {
                long n = printed[0];
                for (int i = 0; i < b.getRowCount() && n < maxRows; i++, n++) {
                    switch (format) {
                        case table -> {
                            List<String> r = new ArrayList<>();
                            for (FieldVector v : b.getFieldVectors()) {
                                r.add(cell(v, i));
                            }
                            rows.add(r);
                        }
                        case csv -> {
                            List<String> r = new ArrayList<>();
                            for (FieldVector v : b.getFieldVectors()) {
                                Object o = v.getObject(i);
                                r.add(o == null ? "" : csv(cell(v, i)));
                            }
                            out.println(String.join(",", r));
                        }
                        case json -> {
                            ObjectNode node = JSON.createObjectNode();
                            for (FieldVector v : b.getFieldVectors()) {
                                node.set(v.getField().getName(), json(v.getObject(i)));
                            }
                            out.println(JSON.writeValueAsString(node));
                        }
                        default -> throw new IllegalArgumentException("Format " + format + " needs --output");
                    }
                }
                printed[0] = n;
        });
        if (format == Format.table) {
            table(names, rows, out);
        }
        out.flush();
        return printed[0];
    }

    static void table(List<String> header, List<List<String>> rows, PrintWriter out) {
        int[] w = new int[header.size()];
        for (int c = 0; c < w.length; c++) {
            w[c] = header.get(c).length();
            for (List<String> r : rows) {
                w[c] = Math.max(w[c], Math.min(40, r.get(c).length()));
            }
        }
        StringBuilder sep = new StringBuilder("+");
        for (int x : w) {
            sep.append("-".repeat(x + 2)).append('+');
        }
        out.println(sep);
        out.println(line(header, w));
        out.println(sep);
        for (List<String> r : rows) {
            out.println(line(r, w));
        }
        out.println(sep);
    }

    private static String line(List<String> cells, int[] w) {
        StringBuilder sb = new StringBuilder("|");
        for (int c = 0; c < w.length; c++) {
            String s = cells.get(c);
            if (s.length() > w[c]) {
                s = s.substring(0, w[c] - 1) + "…";
            }
            sb.append(' ').append(s).append(" ".repeat(w[c] - s.length())).append(" |");
        }
        return sb.toString();
    }

    private static String csv(String s) {
        if (s.contains(",") || s.contains("\"") || s.contains("\n")) {
            return "\"" + s.replace("\"", "\"\"") + "\"";
        }
        return s;
    }

    /** Body compression of exported Arrow IPC files ({@code --compression}). */
    enum IpcCompression {
        none(org.apache.arrow.vector.compression.CompressionUtil.CodecType.NO_COMPRESSION),
        zstd(org.apache.arrow.vector.compression.CompressionUtil.CodecType.ZSTD),
        lz4(org.apache.arrow.vector.compression.CompressionUtil.CodecType.LZ4_FRAME);

        final org.apache.arrow.vector.compression.CompressionUtil.CodecType codec;

        IpcCompression(org.apache.arrow.vector.compression.CompressionUtil.CodecType codec) {
            this.codec = codec;
        }
    }

    /** Writes batches (closing them) to an uncompressed Arrow IPC file; returns the row count. */
    static long writeArrow(Flux<VectorSchemaRoot> batches, Schema schema, WritableByteChannel channel,
                           org.apache.arrow.memory.BufferAllocator allocator) throws IOException {
        return writeArrow(batches, schema, channel, allocator, IpcCompression.none);
    }

    /** Writes batches (closing them) to an Arrow IPC file with {@code compression}; returns the row count. */
    static long writeArrow(Flux<VectorSchemaRoot> batches, Schema schema, WritableByteChannel channel,
                           org.apache.arrow.memory.BufferAllocator allocator, IpcCompression compression) throws IOException {
        try (VectorSchemaRoot sink = VectorSchemaRoot.create(schema, allocator);
             ArrowFileWriter writer = new ArrowFileWriter(sink, null, channel, null,
                     org.apache.arrow.vector.ipc.message.IpcOption.DEFAULT,
                     compression == IpcCompression.none ? org.apache.arrow.vector.compression.NoCompressionCodec.Factory.INSTANCE
                             : org.apache.arrow.compression.CommonsCompressionFactory.INSTANCE, compression.codec)) {
            writer.start();
            VectorLoader loader = new VectorLoader(sink);
            long[] rows = {0};
            forEach(batches, batch -> {
                try (ArrowRecordBatch rb = new VectorUnloader(batch).getRecordBatch()) {
                    loader.load(rb);
                    writer.writeBatch();
                    rows[0] += batch.getRowCount();
                }
            });
            writer.end();
            return rows[0];
        }
    }

    /**
     * The CLI's allocator: a process about to exit must not turn a completed command into a failure over
     * accounting, so a leak is reported, not thrown (scans and takes settle before they end, so none is expected).
     */
    static final class Allocator extends org.apache.arrow.memory.RootAllocator {
        @Override
        public void close() {
            try {
                super.close();
            } catch (IllegalStateException e) {
                System.err.println("warning: " + getAllocatedMemory() + " bytes of Arrow memory still allocated at exit");
            }
        }
    }

    static WritableByteChannel stdout() {
        return Channels.newChannel(System.out);
    }
}
