package io.javelin.cli;

import io.javelin.engine.Dataset;
import io.javelin.engine.Scanner;
import io.javelin.engine.VersionInfo;
import io.javelin.tx.FragmentInfo;
import io.javelin.tx.tag.Tag;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.Field;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** The dataset subcommands: info, count, scan, versions, tags, delete. */
final class DatasetCommands {

    private DatasetCommands() {
    }

    /** URI plus --version/--tag. */
    static final class At {
        @Parameters(index = "0", paramLabel = "URI", description = "Dataset URI (path, file://, memory://, s3://, az://, gs://).")
        String uri;

        @Option(names = "--version", paramLabel = "N", description = "Read this version (time travel).")
        Long version;

        @Option(names = "--tag", paramLabel = "T", description = "Read the version this tag points at.")
        String tag;
    }

    @Command(name = "info", description = "Show version, schema, fragments and row counts.")
    static final class Info implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;
        @Mixin
        CliSupport.Common common;
        @Mixin
        At at;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            try (Dataset ds = CliSupport.open(at.uri, common.storageOptions, at.version, at.tag)) {
                out.println("dataset:      " + ds.uri());
                out.println("version:      " + ds.version() + " (committed " + ds.timestamp() + ")");
                List<FragmentInfo> fragments = ds.loadFragments().block();
                out.println("data storage: " + storage(ds.dataStorageVersion(), fragments));
                out.println("rows:         " + ds.count().block());
                out.println("fragments:    " + fragments.size() + (ds.isTreeLayout() ? " (fragment tree)" : ""));
                for (FragmentInfo f : fragments) {
                    out.println("  fragment " + f.id() + ": " + f.physicalRows() + " rows, " + f.deletedRows() + " deleted, "
                            + f.fragment().getFilesCount() + " file(s)");
                }
                out.println("schema:");
                for (Field f : ds.schema().getFields()) {
                    out.println("  " + f.getName() + ": " + f.getType() + (f.isNullable() ? "" : " not null")
                            + (f.getChildren().isEmpty() ? "" : " " + f.getChildren()));
                }
            }
            out.flush();
            return 0;
        }
    }

    @Command(name = "count", description = "Print the number of live rows (matching --filter) as one integer; "
            + "uses the manifest and exact indexes where they answer it.")
    static final class Count implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;
        @Mixin
        CliSupport.Common common;
        @Mixin
        At at;

        @Option(names = {"-f", "--filter"}, description = "SQL filter, e.g. \"array_has_any(tags, ['a'])\".")
        String filter;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            try (Dataset ds = CliSupport.open(at.uri, common.storageOptions, at.version, at.tag)) {
                out.println(ds.count(filter).block());
            }
            out.flush();
            return 0;
        }
    }

    /**
     * The manifest's data storage version; old manifests record none, and then (as Lance does) the version is
     * inferred from the data files: file version 0.3 is 2.0, below that the legacy format.
     */
    static String storage(String recorded, List<FragmentInfo> fragments) {
        if (!recorded.isEmpty()) {
            return recorded;
        }
        for (FragmentInfo f : fragments) {
            for (var df : f.fragment().getFilesList()) {
                int major = df.getFileMajorVersion();
                int minor = df.getFileMinorVersion();
                String v = major == 0 && minor < 3 ? "legacy (0." + Math.max(1, minor) + ")"
                        : major == 0 ? "2.0" : major + "." + minor;
                return v + " (not recorded in the manifest; from the data files)";
            }
        }
        return "legacy (not recorded in the manifest)";
    }

    @Command(name = "scan", description = "Print rows (optionally filtered and projected) as a table, CSV, JSON lines or Arrow IPC.")
    static final class Scan implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;
        @Mixin
        CliSupport.Common common;
        @Mixin
        Progress.Options progress;
        @Mixin
        At at;

        @Option(names = {"-c", "--columns"}, split = ",", description = "Columns (nested: a.b).")
        List<String> columns;

        @Option(names = {"-f", "--filter"}, description = "SQL filter, e.g. \"score > 0.5 AND name LIKE 'a%'\".")
        String filter;

        @Option(names = {"-n", "--limit"}, description = "At most this many rows (default: 100 for table, all otherwise).")
        Long limit;

        @Option(names = "--offset", description = "Skip this many rows first.")
        long offset;

        @Option(names = "--format", description = "table, csv, json or arrow (default ${DEFAULT-VALUE}).")
        CliSupport.Format format = CliSupport.Format.table;

        @Option(names = {"-o", "--output"}, description = "Write to this file (needed for arrow).")
        Path output;

        @Option(names = "--order-by", split = ",", paramLabel = "KEY",
                description = "Sort keys, e.g. \"score desc nulls last,id\" (with --limit: a streaming top-k).")
        List<String> orderBy;

        @Option(names = "--with-row-id", description = "Add the _rowid column.")
        boolean rowId;

        @Option(names = "--with-row-address", description = "Add the _rowaddr column.")
        boolean rowAddr;

        @Override
        public Integer call() throws Exception {
            PrintWriter out = spec.commandLine().getOut();
            try (Dataset ds = CliSupport.open(at.uri, common.storageOptions, at.version, at.tag);
                 BufferAllocator alloc = new CliSupport.Allocator()) {
                long lim = limit != null ? limit : format == CliSupport.Format.table ? 100 : -1;
                Scanner s = ds.scanner().columns(columns).filter(filter).limit(lim).offset(offset).withRowId(rowId)
                        .withRowAddress(rowAddr);
                var schema = s.outputSchema();
                java.util.function.Function<BufferAllocator, reactor.core.publisher.Flux<org.apache.arrow.vector.VectorSchemaRoot>> rows =
                        orderBy == null || orderBy.isEmpty() ? s::scan : s.orderBy(orderBy.toArray(String[]::new))::scan;
                long n;
                if (format == CliSupport.Format.arrow || output != null) {
                    if (output == null) {
                        throw new IllegalArgumentException("--format arrow needs --output FILE");
                    }
                    long total = Progress.UNKNOWN;
                    if (Progress.enabled(progress) && filter == null) { // a filtered count would cost a second scan
                        total = Math.max(0, ds.count().block() - offset);
                        total = lim >= 0 ? Math.min(total, lim) : total;
                    }
                    try (Progress p = Progress.start(spec, progress, "scan", total, Progress.UNKNOWN)) {
                        // written under a temporary name: a failed scan leaves no (partial) output file
                        try (OutputFile file = OutputFile.create(output)) {
                            if (format == CliSupport.Format.arrow) {
                                n = CliSupport.writeArrow(p.track(rows.apply(alloc)), schema, file.channel(), alloc);
                            } else {
                                PrintWriter w = new PrintWriter(new java.io.BufferedWriter(java.nio.channels.Channels.newWriter(
                                        file.channel(), java.nio.charset.StandardCharsets.UTF_8)));
                                n = CliSupport.print(p.track(rows.apply(alloc)), schema, format, w);
                                w.flush();
                                if (w.checkError()) {
                                    throw new java.io.IOException("Could not write " + output);
                                }
                            }
                            file.publish();
                        }
                        p.finish();
                    }
                    out.printf("wrote %d rows to %s%n", n, output);
                } else {
                    n = CliSupport.print(rows.apply(alloc), schema, format, out);
                    if (format == CliSupport.Format.table) {
                        out.printf("(%d rows)%n", n);
                    }
                }
            }
            out.flush();
            return 0;
        }
    }

    @Command(name = "versions", description = "List committed versions.")
    static final class Versions implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;
        @Mixin
        CliSupport.Common common;
        @Parameters(index = "0", paramLabel = "URI")
        String uri;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            try (Dataset ds = CliSupport.open(uri, common.storageOptions, null, null)) {
                printVersions(ds.versions().block(), ds.tags().block(), out);
            }
            out.flush();
            return 0;
        }
    }

    static void printVersions(List<VersionInfo> versions, Map<String, Tag> tags, PrintWriter out) {
        List<List<String>> rows = new ArrayList<>();
        for (VersionInfo v : versions) {
            List<String> t = tags.values().stream().filter(x -> x.version() == v.version()).map(Tag::name).toList();
            rows.add(List.of(String.valueOf(v.version()), v.timestamp().toString(), v.operation(), String.valueOf(v.rows()),
                    String.valueOf(v.fragments()), String.join(",", t)));
        }
        CliSupport.table(List.of("version", "timestamp", "operation", "rows", "fragments", "tags"), rows, out);
    }

    @Command(name = "tags", description = "List, create, move or delete tags.",
            subcommands = {Tags.ListTags.class, Tags.Create.class, Tags.Update.class, Tags.Delete.class})
    static final class Tags implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            spec.commandLine().usage(spec.commandLine().getOut());
            return 0;
        }

        @Command(name = "list", description = "List tags.")
        static final class ListTags implements Callable<Integer> {
            @CommandLine.Spec
            CommandLine.Model.CommandSpec spec;
            @Mixin
            CliSupport.Common common;
            @Parameters(index = "0", paramLabel = "URI")
            String uri;

            @Override
            public Integer call() {
                PrintWriter out = spec.commandLine().getOut();
                try (Dataset ds = CliSupport.open(uri, common.storageOptions, null, null)) {
                    List<List<String>> rows = new ArrayList<>();
                    for (Tag t : ds.tags().block().values()) {
                        rows.add(List.of(t.name(), String.valueOf(t.version()), String.valueOf(t.createdAt())));
                    }
                    CliSupport.table(List.of("tag", "version", "created"), rows, out);
                }
                out.flush();
                return 0;
            }
        }

        @Command(name = "create", description = "Create tag NAME at VERSION (default: latest).")
        static final class Create implements Callable<Integer> {
            @CommandLine.Spec
            CommandLine.Model.CommandSpec spec;
            @Mixin
            CliSupport.Common common;
            @Parameters(index = "0", paramLabel = "URI")
            String uri;
            @Parameters(index = "1", paramLabel = "NAME")
            String name;
            @Parameters(index = "2", paramLabel = "VERSION", arity = "0..1")
            Long version;
            @Option(names = "--branch", paramLabel = "B", description = "Tag a version of branch B (VERSION required).")
            String branch;
            @Option(names = "--metadata", paramLabel = "KEY=VALUE", description = "Tag metadata (repeatable).")
            Map<String, String> metadata = new java.util.LinkedHashMap<>();

            @Override
            public Integer call() {
                try (Dataset ds = CliSupport.open(uri, common.storageOptions, null, null)) {
                    if (branch != null && version == null) {
                        throw new CommandLine.ParameterException(spec.commandLine(), "--branch needs a VERSION of that branch");
                    }
                    Tag t = branch != null ? ds.createTag(name, branch, version, metadata).block()
                            : ds.createTag(name, version != null ? version : ds.version(), metadata).block();
                    spec.commandLine().getOut().printf("tag %s -> version %d%n", t.name(), t.version());
                }
                spec.commandLine().getOut().flush();
                return 0;
            }
        }

        @Command(name = "update", description = "Move tag NAME to VERSION.")
        static final class Update implements Callable<Integer> {
            @CommandLine.Spec
            CommandLine.Model.CommandSpec spec;
            @Mixin
            CliSupport.Common common;
            @Parameters(index = "0", paramLabel = "URI")
            String uri;
            @Parameters(index = "1", paramLabel = "NAME")
            String name;
            @Parameters(index = "2", paramLabel = "VERSION")
            long version;

            @Override
            public Integer call() {
                try (Dataset ds = CliSupport.open(uri, common.storageOptions, null, null)) {
                    Tag t = ds.updateTag(name, version).block();
                    spec.commandLine().getOut().printf("tag %s -> version %d%n", t.name(), t.version());
                }
                spec.commandLine().getOut().flush();
                return 0;
            }
        }

        @Command(name = "delete", description = "Delete tag NAME.")
        static final class Delete implements Callable<Integer> {
            @CommandLine.Spec
            CommandLine.Model.CommandSpec spec;
            @Mixin
            CliSupport.Common common;
            @Parameters(index = "0", paramLabel = "URI")
            String uri;
            @Parameters(index = "1", paramLabel = "NAME")
            String name;

            @Override
            public Integer call() {
                try (Dataset ds = CliSupport.open(uri, common.storageOptions, null, null)) {
                    ds.deleteTag(name).block();
                    spec.commandLine().getOut().printf("deleted tag %s%n", name);
                }
                spec.commandLine().getOut().flush();
                return 0;
            }
        }
    }

    @Command(name = "delete", description = "Delete the rows matching a filter (new version).")
    static final class Delete implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;
        @Mixin
        CliSupport.Common common;
        @Parameters(index = "0", paramLabel = "URI")
        String uri;
        @Parameters(index = "1", paramLabel = "FILTER", description = "SQL filter of the rows to delete.")
        String filter;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            try (Dataset ds = CliSupport.open(uri, common.storageOptions, null, null)) {
                long before = ds.count().block();
                try (Dataset after = ds.delete(filter).block()) {
                    out.printf("deleted %d rows; version %d has %d rows%n", before - after.count().block(), after.version(),
                            after.count().block());
                }
            }
            out.flush();
            return 0;
        }
    }
}
