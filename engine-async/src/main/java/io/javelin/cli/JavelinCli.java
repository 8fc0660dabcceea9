package io.javelin.cli;

import io.javelin.engine.Javelin;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code javelin} command line. */
@Command(name = "javelin",
        mixinStandardHelpOptions = true,
        versionProvider = JavelinCli.Version.class,
        description = "Javelin: a non-blocking engine for the Lance lakehouse format.",
        subcommands = {DemoCommand.class, DatasetCommands.Info.class, DatasetCommands.Count.class, DatasetCommands.Scan.class, BlobsCommand.class, ImportCommand.class,
                ExportCommand.class, DatasetCommands.Versions.class, ChangesCommand.class, DatasetCommands.Tags.class, DatasetCommands.Delete.class,
                FileCommand.class, TreeCommand.class,
                IndexCommands.class, SearchCommand.class,
                MaintenanceCommands.Compact.class, MaintenanceCommands.Cleanup.class, MaintenanceCommands.Restore.class, MaintenanceCommands.Truncate.class, MaintenanceCommands.Drop.class,
                EvolutionCommands.AddColumn.class, EvolutionCommands.AddColumnsFromFile.class, EvolutionCommands.DropColumn.class, EvolutionCommands.RenameColumn.class, EvolutionCommands.AlterColumn.class, EvolutionCommands.Update.class, EvolutionCommands.MergeInsertCommand.class,
                BranchCommands.Branches.class, BranchCommands.Clone.class, ServeCommand.class})
public final class JavelinCli implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        // The process reports one error, the command's; anything Reactor drops after it (a concurrent failure
        // of a path that does not route them into the reported error) is for --verbose only, not an ERROR log.
        boolean verbose = java.util.Arrays.asList(args).contains("--verbose");
        processOptions();
        reactor.core.publisher.Hooks.onErrorDropped(e -> {
            if (verbose) {
                System.err.println("(also failed: " + e + ")");
            }
        });
        System.exit(run(args));
    }

    /**
     * The process-wide choices the library takes as values, from the launcher's JVM properties (debugging and
     * A/B runs): {@code javelin.simd.disable}, {@code javelin.simd.maxBits}, {@code javelin.offheap.zeroAll},
     * {@code javelin.offheap.poolBytes}, {@code javelin.offheap.trace}.
     */
    static void processOptions() {
        io.javelin.encoding.kernel.SimdOptions.configure(new io.javelin.encoding.kernel.SimdOptions(
                !Boolean.getBoolean("javelin.simd.disable"), Integer.getInteger("javelin.simd.maxBits", Integer.MAX_VALUE)));
        var heap = io.javelin.objectstore.memory.OffHeapOptions.DEFAULTS;
        io.javelin.objectstore.memory.OffHeapOptions.configure(new io.javelin.objectstore.memory.OffHeapOptions(
                !Boolean.getBoolean("javelin.offheap.zeroAll"), Long.getLong("javelin.offheap.poolBytes", heap.poolBytes()),
                Boolean.getBoolean("javelin.offheap.trace")));
    }

    /** Runs the CLI and returns its exit code (for tests). */
    public static int run(String... args) {
        return commandLine().execute(args);
    }

    /** The configured command line: human error messages, exit codes (see {@link CliSupport}). */
    public static CommandLine commandLine() {
        return new CommandLine(new JavelinCli()).setExecutionExceptionHandler(new CliSupport.Errors());
    }

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"javelin " + Javelin.version()};
        }
    }
}
