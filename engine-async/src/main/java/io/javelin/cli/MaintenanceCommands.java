package io.javelin.cli;

import io.javelin.engine.Dataset;
import io.javelin.engine.maintenance.CleanupStats;
import io.javelin.engine.maintenance.CompactionOptions;
import io.javelin.engine.maintenance.CompactionResult;
import io.javelin.tx.maintenance.CleanupPolicy;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** Table maintenance: compact, cleanup, restore. */
final class MaintenanceCommands {

    private MaintenanceCommands() {
    }

    @Command(name = "compact", description = "Merge small or deletion-heavy fragments into fragments of about --target-rows rows.")
    static final class Compact implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;
        @Mixin
        CliSupport.Common common;
        @Mixin
        Progress.Options progress;
        @Parameters(index = "0", paramLabel = "URI", description = "Dataset URI.")
        String uri;
        @Option(names = "--target-rows", paramLabel = "N", description = "Target rows per fragment (default ${DEFAULT-VALUE}).")
        long targetRows = CompactionOptions.DEFAULT_TARGET_ROWS_PER_FRAGMENT;
        @Option(names = "--no-materialize-deletions", description = "Do not rewrite fragments just because of deleted rows.")
        boolean keepDeletions;
        @Option(names = "--deletion-threshold", paramLabel = "F", description = "Deleted fraction that triggers a rewrite (default ${DEFAULT-VALUE}).")
        double threshold = 0.1;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            CompactionOptions o = CompactionOptions.defaults().withTargetRowsPerFragment(targetRows)
                    .withMaterializeDeletions(!keepDeletions, threshold);
            try (Dataset ds = CliSupport.open(uri, common.storageOptions, null, null)) {
                CompactionResult r;
                long total = Progress.UNKNOWN;
                if (Progress.enabled(progress)) { // rows the plan will rewrite: live rows of the grouped fragments
                    total = io.javelin.engine.maintenance.CompactionPlanner.plan(ds.loadFragments().block(), o).stream()
                            .flatMap(List::stream).mapToLong(f -> f.physicalRows() - f.deletedRows()).sum();
                }
                try (Progress p = Progress.start(spec, progress, "compact", total, Progress.UNKNOWN)) {
                    r = ds.compact(o).contextWrite(io.javelin.engine.maintenance.CompactionProgress.reporting(n -> p.add(n, 0)))
                            .block();
                    p.finish();
                }
                try (Dataset after = r.dataset()) {
                    if (after.version() == ds.version()) {
                        out.println("nothing to compact (version " + ds.version() + ")");
                    } else {
                        out.printf("version %d: %d fragment(s) rewritten into %d (%d file(s) into %d)%n", after.version(),
                                r.metrics().fragmentsRemoved(), r.metrics().fragmentsAdded(), r.metrics().filesRemoved(),
                                r.metrics().filesAdded());
                    }
                }
            }
            out.flush();
            return 0;
        }
    }

    @Command(name = "cleanup", description = "Delete old versions and the files only they use (latest and tagged versions stay).")
    static final class Cleanup implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;
        @Mixin
        CliSupport.Common common;
        @Parameters(index = "0", paramLabel = "URI", description = "Dataset URI.")
        String uri;
        @Option(names = "--older-than", paramLabel = "DURATION", description = "Versions committed longer ago than this: 14d, 12h, 30m, 10s, 0s, or ISO-8601 (P7D).")
        String olderThan;
        @Option(names = "--before-version", paramLabel = "N", description = "Versions numbered below N.")
        Long beforeVersion;
        @Option(names = "--delete-unverified", description = "Also delete unreferenced files younger than 7 days (only when no write is running).")
        boolean deleteUnverified;
        @Option(names = "--dry-run", description = "Delete nothing: list each object cleanup would delete, its size and why.")
        boolean dryRun;

        @Override
        public Integer call() {
            if ((olderThan == null) == (beforeVersion == null)) {
                throw new CommandLine.ParameterException(spec.commandLine(), "Give exactly one of --older-than or --before-version");
            }
            CleanupPolicy p = olderThan != null ? CleanupPolicy.olderThan(Instant.now().minus(parseDuration(spec, olderThan)))
                    : CleanupPolicy.beforeVersion(beforeVersion);
            PrintWriter out = spec.commandLine().getOut();
            try (Dataset ds = CliSupport.open(uri, common.storageOptions, null, null)) {
                if (dryRun) {
                    var plan = ds.cleanupDryRun(p.withDeleteUnverified(deleteUnverified)).block();
                    List<List<String>> rows = plan.removals().stream()
                            .map(r -> List.of(r.path(), String.valueOf(r.bytes()), r.reason())).toList();
                    CliSupport.table(List.of("object", "bytes", "reason"), rows, out);
                    out.printf("dry run: would remove %d version(s), %d object(s), %d bytes%n", plan.oldVersions().size(),
                            plan.removals().size(), plan.bytesRemoved());
                    out.flush();
                    return 0;
                }
                CleanupStats s = ds.cleanupOldVersions(p.withDeleteUnverified(deleteUnverified)).block();
                out.printf("removed %d version(s), %d data, %d deletion, %d transaction, %d index file(s), %d bytes%n",
                        s.oldVersions(), s.dataFilesRemoved(), s.deletionFilesRemoved(), s.transactionFilesRemoved(),
                        s.indexFilesRemoved(), s.bytesRemoved());
            }
            out.flush();
            return 0;
        }
    }

    private static final Pattern SIMPLE = Pattern.compile("(\\d+)\\s*(d|days?|h|hours?|m|min|minutes?|s|sec|seconds?)");

    static Duration parseDuration(CommandLine.Model.CommandSpec spec, String s) {
        String t = s.trim().toLowerCase(Locale.ROOT);
        Matcher m = SIMPLE.matcher(t);
        if (m.matches()) {
            long n = Long.parseLong(m.group(1));
            return switch (m.group(2).charAt(0)) {
                case 'd' -> Duration.ofDays(n);
                case 'h' -> Duration.ofHours(n);
                case 'm' -> Duration.ofMinutes(n);
                default -> Duration.ofSeconds(n);
            };
        }
        try {
            return t.startsWith("p") && t.contains("d") && !t.contains("t") ? Duration.ofDays(java.time.Period.parse(s).getDays())
                    : Duration.parse(s);
        } catch (RuntimeException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "Invalid duration '" + s + "' (e.g. 14d, 12h, 30m, P7D)");
        }
    }

    @Command(name = "truncate", description = "Commit a new version with the same schema and no rows (older versions stay).")
    static final class Truncate implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;
        @Mixin
        CliSupport.Common common;
        @Parameters(index = "0", paramLabel = "URI", description = "Dataset URI.")
        String uri;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            try (Dataset ds = CliSupport.open(uri, common.storageOptions, null, null); Dataset empty = ds.truncate().block()) {
                out.printf("version %d: truncated (%d rows removed)%n", empty.version(), ds.count().block());
            }
            out.flush();
            return 0;
        }
    }

    @Command(name = "drop", description = "Delete the whole dataset: every version, tag, branch and file.")
    static final class Drop implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;
        @Mixin
        CliSupport.Common common;
        @Parameters(index = "0", paramLabel = "URI", description = "Dataset URI.")
        String uri;
        @Option(names = "--yes", description = "Confirm: dropping cannot be undone.")
        boolean yes;

        @Override
        public Integer call() {
            if (!yes) {
                throw new CommandLine.ParameterException(spec.commandLine(), "drop deletes " + uri + " for good: confirm with --yes");
            }
            Dataset.drop(uri, common.storageOptions).block();
            spec.commandLine().getOut().println("dropped " + uri);
            spec.commandLine().getOut().flush();
            return 0;
        }
    }

    @Command(name = "restore", description = "Commit an old version's content as the newest version.")
    static final class Restore implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;
        @Mixin
        CliSupport.Common common;
        @Parameters(index = "0", paramLabel = "URI", description = "Dataset URI.")
        String uri;
        @Parameters(index = "1", paramLabel = "VERSION", description = "The version to restore.")
        long version;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            try (Dataset old = CliSupport.open(uri, common.storageOptions, version, null); Dataset now = old.restore().block()) {
                out.printf("restored version %d as version %d (%d rows)%n", version, now.version(), now.count().block());
            }
            out.flush();
            return 0;
        }
    }
}
