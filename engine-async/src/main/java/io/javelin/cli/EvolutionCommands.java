package io.javelin.cli;

import io.javelin.engine.ColumnAlteration;
import io.javelin.engine.Dataset;
import io.javelin.engine.MergeInsert;
import io.javelin.engine.MergeInsertResult;
import io.javelin.engine.UpdateResult;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import reactor.core.publisher.Flux;

/**
 * Schema evolution and row rewrites: {@code add-column}, {@code drop-column}, {@code rename-column},
 * {@code alter-column}, {@code update}, {@code merge-insert}. Each commits one new version and prints it.
 */
final class EvolutionCommands {

    private EvolutionCommands() {
    }

    /** Type names accepted by {@code --type} / {@code --cast}. */
    static ArrowType type(String name) {
        return switch (name.toLowerCase(Locale.ROOT)) {
            case "int8" -> new ArrowType.Int(8, true);
            case "int16" -> new ArrowType.Int(16, true);
            case "int32", "int" -> new ArrowType.Int(32, true);
            case "int64", "bigint", "long" -> new ArrowType.Int(64, true);
            case "uint8" -> new ArrowType.Int(8, false);
            case "uint16" -> new ArrowType.Int(16, false);
            case "uint32" -> new ArrowType.Int(32, false);
            case "uint64" -> new ArrowType.Int(64, false);
            case "float32", "float" -> new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
            case "float64", "double" -> new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
            case "bool", "boolean" -> ArrowType.Bool.INSTANCE;
            case "string", "utf8" -> ArrowType.Utf8.INSTANCE;
            case "large_string", "large_utf8" -> ArrowType.LargeUtf8.INSTANCE;
            case "binary" -> ArrowType.Binary.INSTANCE;
            case "large_binary" -> ArrowType.LargeBinary.INSTANCE;
            case "date32", "date" -> new ArrowType.Date(DateUnit.DAY);
            case "timestamp", "timestamp_us" -> new ArrowType.Timestamp(TimeUnit.MICROSECOND, null);
            case "timestamp_ms" -> new ArrowType.Timestamp(TimeUnit.MILLISECOND, null);
            case "timestamp_ns" -> new ArrowType.Timestamp(TimeUnit.NANOSECOND, null);
            default -> throw new IllegalArgumentException("Unknown type '" + name + "' (int8..int64, uint8..uint64, float32, float64,"
                    + " bool, string, large_string, binary, large_binary, date32, timestamp[_ms|_us|_ns])");
        };
    }

    static void done(PrintWriter out, String what, Dataset ds) {
        out.printf("%s; version %d: %s%n", what, ds.version(), ds.schema().getFields().stream()
                .map(f -> f.getName() + ":" + f.getType()).toList());
        out.flush();
    }

    @Command(name = "add-column", description = "Add a column computed by a SQL expression (--expr) or all NULL (--type).")
    static final class AddColumn implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;
        @Mixin
        CliSupport.Common common;
        @Parameters(index = "0", paramLabel = "URI")
        String uri;
        @Parameters(index = "1", paramLabel = "NAME")
        String name;
        @Option(names = {"-e", "--expr"}, description = "SQL expression over existing columns, e.g. \"price * qty\".")
        String expr;
        @Option(names = {"-t", "--type"}, description = "Type of an all-NULL column (no --expr): int64, double, string, ...")
        String type;

        @Override
        public Integer call() {
            if ((expr == null) == (type == null)) {
                throw new IllegalArgumentException("Give exactly one of --expr EXPR or --type TYPE");
            }
            try (Dataset ds = CliSupport.open(uri, common.storageOptions, null, null);
                 Dataset after = expr != null ? ds.addColumns(Map.of(name, expr)).block()
                         : ds.addColumns(List.of(new Field(name, FieldType.nullable(type(type)), null))).block()) {
                done(spec.commandLine().getOut(), "added column " + name, after);
            }
            return 0;
        }
    }

    @Command(name = "add-columns", description = "Add the columns of an Arrow IPC file (file or stream, LZ4/ZSTD bodies):"
            + " one row per live row of the dataset, in fragment order.")
    static final class AddColumnsFromFile implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;
        @Mixin
        CliSupport.Common common;
        @Parameters(index = "0", paramLabel = "URI")
        String uri;
        @Parameters(index = "1", paramLabel = "IN.arrow")
        java.nio.file.Path in;

        @Override
        public Integer call() throws Exception {
            try (BufferAllocator alloc = new CliSupport.Allocator();
                 ArrowInput input = ArrowInput.open(in, alloc);
                 Dataset ds = CliSupport.open(uri, common.storageOptions, null, null);
                 Dataset after = ds.addColumns(input.batches(alloc, () -> { }), input.schema()).block()) {
                done(spec.commandLine().getOut(), "added columns " + input.schema().getFields().stream().map(Field::getName).toList(),
                        after);
            }
            return 0;
        }
    }

    @Command(name = "drop-column", description = "Drop columns (metadata only; nested: s.a).")
    static final class DropColumn implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;
        @Mixin
        CliSupport.Common common;
        @Parameters(index = "0", paramLabel = "URI")
        String uri;
        @Parameters(index = "1..*", arity = "1..*", paramLabel = "NAME")
        List<String> names;

        @Override
        public Integer call() {
            try (Dataset ds = CliSupport.open(uri, common.storageOptions, null, null); Dataset after = ds.dropColumns(names).block()) {
                done(spec.commandLine().getOut(), "dropped " + String.join(", ", names), after);
            }
            return 0;
        }
    }

    @Command(name = "rename-column", description = "Rename a column or struct field (s.a NEW renames s.a to s.NEW).")
    static final class RenameColumn implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;
        @Mixin
        CliSupport.Common common;
        @Parameters(index = "0", paramLabel = "URI")
        String uri;
        @Parameters(index = "1", paramLabel = "OLD")
        String old;
        @Parameters(index = "2", paramLabel = "NEW")
        String name;

        @Override
        public Integer call() {
            try (Dataset ds = CliSupport.open(uri, common.storageOptions, null, null); Dataset after = ds.renameColumn(old, name).block()) {
                done(spec.commandLine().getOut(), "renamed " + old + " to " + name, after);
            }
            return 0;
        }
    }

    @Command(name = "alter-column", description = "Make a column nullable and/or cast it to another type (rewrites it).")
    static final class AlterColumn implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;
        @Mixin
        CliSupport.Common common;
        @Parameters(index = "0", paramLabel = "URI")
        String uri;
        @Parameters(index = "1", paramLabel = "COLUMN")
        String column;
        @Option(names = "--nullable", description = "Allow NULLs (a nullable column cannot become non-nullable).")
        boolean nullable;
        @Option(names = "--cast", paramLabel = "TYPE", description = "New type (integer, float, temporal, string and binary widths).")
        String cast;

        @Override
        public Integer call() {
            if (!nullable && cast == null) {
                throw new IllegalArgumentException("Give --nullable and/or --cast TYPE");
            }
            ColumnAlteration a = new ColumnAlteration(column, null, nullable ? Boolean.TRUE : null, cast == null ? null : type(cast));
            try (Dataset ds = CliSupport.open(uri, common.storageOptions, null, null); Dataset after = ds.alterColumns(List.of(a)).block()) {
                done(spec.commandLine().getOut(), "altered " + column, after);
            }
            return 0;
        }
    }

    @Command(name = "update", description = "UPDATE: set columns to SQL expressions on the rows matching --where (default: all).")
    static final class Update implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;
        @Mixin
        CliSupport.Common common;
        @Parameters(index = "0", paramLabel = "URI")
        String uri;
        @Option(names = {"-s", "--set"}, required = true, paramLabel = "COL=EXPR",
                description = "Assignment(s) col=expr; repeat the option or separate with commas outside quotes and parentheses.")
        List<String> set;
        @Option(names = {"-w", "--where"}, description = "SQL filter of the rows to update.")
        String where;

        @Override
        public Integer call() {
            Map<String, String> assignments = new LinkedHashMap<>();
            for (String s : set) {
                for (String part : splitTopLevel(s)) {
                    int eq = part.indexOf('=');
                    if (eq <= 0) {
                        throw new IllegalArgumentException("Expected COL=EXPR, got '" + part + "'");
                    }
                    assignments.put(part.substring(0, eq).trim(), part.substring(eq + 1).trim());
                }
            }
            try (Dataset ds = CliSupport.open(uri, common.storageOptions, null, null)) {
                UpdateResult r = ds.update(where, assignments).block();
                try (Dataset after = r.dataset()) {
                    spec.commandLine().getOut().printf("updated %d rows; version %d has %d rows%n", r.rowsUpdated(), after.version(),
                            after.count().block());
                }
            }
            spec.commandLine().getOut().flush();
            return 0;
        }
    }

    /** Splits on commas that are outside quotes and parentheses. */
    static List<String> splitTopLevel(String s) {
        List<String> out = new ArrayList<>();
        int depth = 0;
        char quote = 0;
        int start = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (quote != 0) {
                if (c == quote) {
                    quote = 0;
                }
            } else if (c == '\'' || c == '"' || c == '`') {
                quote = c;
            } else if (c == '(') {
                depth++;
            } else if (c == ')') {
                depth--;
            } else if (c == ',' && depth == 0) {
                out.add(s.substring(start, i));
                start = i + 1;
            }
        }
        out.add(s.substring(start));
        return out.stream().map(String::trim).filter(x -> !x.isEmpty()).toList();
    }

    @Command(name = "merge-insert", description = "Upsert the rows of an Arrow IPC file keyed by --on columns.")
    static final class MergeInsertCommand implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;
        @Mixin
        CliSupport.Common common;
        @Mixin
        Progress.Options progress;
        @Parameters(index = "0", paramLabel = "URI")
        String uri;
        @Parameters(index = "1", paramLabel = "IN.arrow")
        Path in;
        @Option(names = "--on", required = true, split = ",", paramLabel = "KEY", description = "Key column(s).")
        List<String> on;
        @Option(names = "--when-matched", paramLabel = "update|nothing", description = "Default ${DEFAULT-VALUE}.")
        String whenMatched = "update";
        @Option(names = "--when-matched-if", paramLabel = "COND", description = "Only update where COND (source.x, target.x) holds.")
        String matchedIf;
        @Option(names = "--when-not-matched", paramLabel = "insert|nothing", description = "Default ${DEFAULT-VALUE}.")
        String whenNotMatched = "insert";
        @Option(names = "--delete-not-matched-by-source", description = "Delete target rows whose key is not in the source.")
        boolean deleteBySource;
        @Option(names = "--delete-not-matched-by-source-if", paramLabel = "FILTER", description = "... only those matching FILTER.")
        String deleteBySourceIf;
        @Option(names = "--memory-budget", paramLabel = "BYTES", description = "Arrow memory the join may hold; larger sources spill (default 512 MiB).")
        long memoryBudget = io.javelin.engine.MergeInsertOptions.DEFAULT_BUDGET;
        @Option(names = "--spill-dir", paramLabel = "DIR", description = "Where spill files go (default: the temp directory).")
        Path spillDir;

        @Override
        public Integer call() throws Exception {
            try (BufferAllocator alloc = new CliSupport.Allocator();
                 ArrowInput input = ArrowInput.open(in, alloc);
                 Dataset ds = CliSupport.open(uri, common.storageOptions, null, null)) {
                MergeInsert m = ds.mergeInsert(on);
                m = switch (whenMatched) {
                    case "update" -> matchedIf == null ? m.whenMatchedUpdateAll() : m.whenMatchedUpdateAll(matchedIf);
                    case "nothing" -> m.whenMatchedDoNothing();
                    default -> throw new IllegalArgumentException("--when-matched must be update or nothing");
                };
                m = switch (whenNotMatched) {
                    case "insert" -> m.whenNotMatchedInsertAll();
                    case "nothing" -> m.whenNotMatchedDoNothing();
                    default -> throw new IllegalArgumentException("--when-not-matched must be insert or nothing");
                };
                if (deleteBySourceIf != null) {
                    m = m.whenNotMatchedBySourceDelete(deleteBySourceIf);
                } else if (deleteBySource) {
                    m = m.whenNotMatchedBySourceDelete();
                }
                MergeInsertResult r;
                try (Progress p = Progress.start(spec, progress, "merge-insert (source rows)", Progress.UNKNOWN, Progress.UNKNOWN)) {
                    r = m.execute(p.track(input.batches(alloc, () -> { })),
                            io.javelin.engine.MergeInsertOptions.budget(memoryBudget).withSpillDirectory(spillDir)).block();
                    p.finish();
                }
                try (Dataset after = r.dataset()) {
                    spec.commandLine().getOut().printf("inserted %d, updated %d, deleted %d rows; version %d has %d rows%n",
                            r.inserted(), r.updated(), r.deleted(), after.version(), after.count().block());
                }
            }
            spec.commandLine().getOut().flush();
            return 0;
        }
    }
}
