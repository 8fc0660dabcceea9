package io.javelin.cli;

import io.javelin.engine.Javelin;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code javelin} command line. */
@Command(name = "javelin",
        mixinStandardHelpOptions = true,
        versionProvider = JavelinCli.Version.class,
        description = "Javelin: a non-blocking engine for the Lance lakehouse format.",
        subcommands = {DemoCommand.class, FileCommand.class})
public final class JavelinCli implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Runs the CLI and returns its exit code (for tests). */
    public static int run(String... args) {
        return new CommandLine(new JavelinCli()).execute(args);
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
