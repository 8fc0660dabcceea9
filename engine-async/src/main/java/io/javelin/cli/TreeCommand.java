package io.javelin.cli;

import io.javelin.engine.Dataset;
import io.javelin.tx.tree.TreeFragmentCatalog;
import io.javelin.tx.tree.TreeShape;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code javelin tree show|convert}: the fragment metadata tree of a dataset (spec 000). */
@Command(name = "tree", description = "Inspect or create the fragment metadata tree of a dataset.",
        subcommands = {TreeCommand.Show.class, TreeCommand.Convert.class})
final class TreeCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getOut());
        return 0;
    }

    @Command(name = "show", description = "Print the tree's shape: height, nodes per level, leaves, fragments, suffix, root, bytes.")
    static final class Show implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;
        @Mixin
        CliSupport.Common common;
        @Parameters(index = "0", paramLabel = "URI")
        String uri;
        @Option(names = "--version", paramLabel = "N", description = "Show this version (default: latest).")
        Long version;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            try (Dataset ds = CliSupport.open(uri, common.storageOptions, version, null)) {
                out.println("dataset:           " + ds.uri());
                out.println("version:           " + ds.version());
                if (!(ds.snapshot().catalog() instanceof TreeFragmentCatalog tree)) {
                    out.println("layout:            flat (" + ds.snapshot().catalog().fragmentCount()
                            + " fragments in the manifest); convert with: javelin tree convert " + uri);
                    out.flush();
                    return 0;
                }
                out.println("layout:            tree");
                out.print(TreeShape.of(tree.tree()).block().describe());
            }
            out.flush();
            return 0;
        }
    }

    @Command(name = "convert", description = "Convert a flat table in place: the next version stores its fragments in a tree.")
    static final class Convert implements Callable<Integer> {
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
                if (ds.isTreeLayout()) {
                    out.println(ds.uri() + " version " + ds.version() + " is already a tree table");
                } else {
                    try (Dataset converted = ds.convertToTree().block()) {
                        out.println("converted " + ds.uri() + ": version " + converted.version() + " stores "
                                + converted.snapshot().catalog().fragmentCount() + " fragments in a fragment tree"
                                + " (versions 1-" + ds.version() + " stay flat and readable)");
                    }
                }
            }
            out.flush();
            return 0;
        }
    }
}
