package io.javelin.cli;

import io.javelin.engine.Dataset;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import org.apache.arrow.memory.BufferAllocator;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code javelin changes URI --from N [--to M]}: the change data feed between two versions. */
@Command(name = "changes", description = "Rows inserted, updated or deleted between two versions (needs stable row ids): "
        + "change type and version, _rowid, the row version columns, then the row.")
final class ChangesCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;
    @Mixin
    CliSupport.Common common;
    @Parameters(index = "0", paramLabel = "URI", description = "Dataset URI.")
    String uri;
    @Option(names = "--from", required = true, paramLabel = "N", description = "Changes after this version (0: all rows are inserts).")
    long from;
    @Option(names = "--to", paramLabel = "M", description = "Up to and including this version (default: the latest).")
    Long to;
    @Option(names = {"-n", "--limit"}, description = "At most this many rows (default: 100 for table, all otherwise).")
    Long limit;
    @Option(names = "--format", description = "table, csv or json (default ${DEFAULT-VALUE}).")
    CliSupport.Format format = CliSupport.Format.table;

    @Override
    public Integer call() throws Exception {
        if (format == CliSupport.Format.arrow) {
            throw new IllegalArgumentException("changes prints table, csv or json");
        }
        PrintWriter out = spec.commandLine().getOut();
        try (Dataset ds = CliSupport.open(uri, common.storageOptions, null, null); BufferAllocator alloc = new CliSupport.Allocator()) {
            long until = to != null ? to : ds.version();
            long lim = limit != null ? limit : format == CliSupport.Format.table ? 100 : -1;
            var rows = ds.changes(from, until, alloc);
            long n = lim >= 0 ? CliSupport.print(rows, ds.changesSchema(), format, out, lim) : CliSupport.print(rows, ds.changesSchema(), format, out);
            if (format == CliSupport.Format.table) {
                out.printf("(%d changes from version %d to %d)%n", n, from, until);
            }
        }
        out.flush();
        return 0;
    }
}
