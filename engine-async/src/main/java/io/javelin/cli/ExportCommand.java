package io.javelin.cli;

import io.javelin.engine.Dataset;
import io.javelin.engine.Scanner;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code javelin export URI OUT.arrow [--version N | --tag T] [--columns a,b] [--filter EXPR] [--compression zstd|lz4]}. */
@Command(name = "export", description = "Write a dataset version (optionally filtered/projected) to an Arrow IPC file.")
final class ExportCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;
    @Mixin
    CliSupport.Common common;
    @Mixin
    Progress.Options progress;

    @Parameters(index = "0", paramLabel = "URI")
    String uri;

    @Parameters(index = "1", paramLabel = "OUT.arrow")
    Path out;

    @Option(names = "--version", paramLabel = "N")
    Long version;

    @Option(names = "--tag", paramLabel = "T")
    String tag;

    @Option(names = {"-c", "--columns"}, split = ",", paramLabel = "a,b")
    List<String> columns;

    @Option(names = {"-f", "--filter"}, paramLabel = "EXPR")
    String filter;

    @Option(names = "--compression", paramLabel = "none|zstd|lz4",
            description = "Arrow IPC body compression (default ${DEFAULT-VALUE}).")
    CliSupport.IpcCompression compression = CliSupport.IpcCompression.none;

    @Override
    public Integer call() throws Exception {
        long rows;
        long v;
        try (Dataset ds = CliSupport.open(uri, common.storageOptions, version, tag);
             BufferAllocator alloc = new CliSupport.Allocator();
             OutputFile file = OutputFile.create(out)) {
            Scanner s = ds.scanner().columns(columns).filter(filter);
            try (Progress p = Progress.start(spec, progress, "export", Progress.enabled(progress) && filter == null
                    ? ds.count().block() : Progress.UNKNOWN, Progress.UNKNOWN)) {
                rows = CliSupport.writeArrow(p.track(s.scan(alloc)), s.outputSchema(), file.channel(), alloc, compression);
                file.publish(); // only a complete file appears under OUT.arrow
                p.finish();
            }
            v = ds.version();
        }
        spec.commandLine().getOut().printf("exported %d rows of version %d to %s%n", rows, v, out);
        spec.commandLine().getOut().flush();
        return 0;
    }
}
