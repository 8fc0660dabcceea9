package io.javelin.cli;

import io.javelin.engine.Dataset;
import io.javelin.tx.branch.Branch;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** Branches ({@code javelin branch ...}) and clones ({@code javelin clone}). */
final class BranchCommands {

    private BranchCommands() {
    }

    @Command(name = "branch", description = "Create, list or delete branches.",
            subcommands = {Branches.ListBranches.class, Branches.Create.class, Branches.Delete.class})
    static final class Branches implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            spec.commandLine().usage(spec.commandLine().getOut());
            return 0;
        }

        @Command(name = "list", description = "List branches.")
        static final class ListBranches implements Callable<Integer> {
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
                    for (Branch b : ds.branches().block().values()) {
                        try (Dataset head = ds.checkoutBranch(b.name()).block()) {
                            rows.add(List.of(b.name(), b.parentBranch() == null ? "main" : b.parentBranch(),
                                    String.valueOf(b.parentVersion()), String.valueOf(head.version())));
                        }
                    }
                    CliSupport.table(List.of("branch", "parent", "from version", "latest"), rows, out);
                }
                out.flush();
                return 0;
            }
        }

        @Command(name = "create", description = "Create branch NAME from VERSION of main (default: latest).")
        static final class Create implements Callable<Integer> {
            @CommandLine.Spec
            CommandLine.Model.CommandSpec spec;
            @Mixin
            CliSupport.Common common;
            @Parameters(index = "0", paramLabel = "URI")
            String uri;
            @Parameters(index = "1", paramLabel = "NAME")
            String name;
            @Option(names = "--version", paramLabel = "N", description = "Main version to branch from.")
            Long version;

            @Override
            public Integer call() {
                try (Dataset ds = CliSupport.open(uri, common.storageOptions, version, null); Dataset b = ds.createBranch(name).block()) {
                    spec.commandLine().getOut().printf("branch %s at version %d (%s)%n", name, b.version(), b.uri());
                }
                spec.commandLine().getOut().flush();
                return 0;
            }
        }

        @Command(name = "delete", description = "Delete branch NAME and its own files.")
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
                    ds.deleteBranch(name).block();
                    spec.commandLine().getOut().printf("deleted branch %s%n", name);
                }
                spec.commandLine().getOut().flush();
                return 0;
            }
        }
    }

    @Command(name = "clone", description = "Clone a dataset version to DST: a deep copy, or --shallow (DST references SRC's files).")
    static final class Clone implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;
        @Mixin
        CliSupport.Common common;
        @Parameters(index = "0", paramLabel = "SRC")
        String src;
        @Parameters(index = "1", paramLabel = "DST")
        String dst;
        @Option(names = "--shallow", description = "Reference the source files through a base path instead of copying them.")
        boolean shallow;
        @Option(names = "--version", paramLabel = "N", description = "Clone this version (default: latest).")
        Long version;
        @Option(names = "--tag", paramLabel = "T", description = "Clone the version of this tag.")
        String tag;

        @Override
        public Integer call() {
            try (Dataset ds = CliSupport.open(src, common.storageOptions, version, tag);
                 Dataset c = (shallow ? ds.shallowClone(dst, common.storageOptions) : ds.deepClone(dst, common.storageOptions)).block()) {
                spec.commandLine().getOut().printf("%s clone of version %d at %s (%d rows)%n", shallow ? "shallow" : "deep",
                        c.version(), dst, c.count().block());
            }
            spec.commandLine().getOut().flush();
            return 0;
        }
    }

}
