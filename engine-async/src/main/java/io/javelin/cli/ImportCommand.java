package io.javelin.cli;

import io.javelin.encoding.writer.LanceFileVersion;
import io.javelin.engine.Dataset;
import io.javelin.engine.WriteMode;
import io.javelin.engine.WriteParams;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import reactor.core.publisher.Flux;

/** {@code javelin import IN.arrow URI [--mode create|append|overwrite] [--data-storage-version 2.0|2.1|2.2] [--manifest-layout flat|tree]}. */
@Command(name = "import", description = "Write the rows of an Arrow IPC file into a dataset.")
final class ImportCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;
    @Mixin
    CliSupport.Common common;
    @Mixin
    Progress.Options progress;

    @Parameters(index = "0", paramLabel = "IN.arrow")
    Path in;

    @Parameters(index = "1", paramLabel = "URI")
    String uri;

    @Option(names = "--mode", paramLabel = "create|append|overwrite", description = "Default ${DEFAULT-VALUE}.")
    String mode = "create";

    @Option(names = "--data-storage-version", paramLabel = "2.0|2.1|2.2", description = "Default ${DEFAULT-VALUE}.")
    String dataStorageVersion = "2.1";

    @Option(names = {"--manifest-layout", "--layout"}, paramLabel = "flat|tree",
            description = "Fragment metadata layout of a created or overwritten dataset (tree: spec 000). Default ${DEFAULT-VALUE}.")
    String layout = "flat";

    @Override
    public Integer call() throws Exception {
        if (!layout.equals("flat") && !layout.equals("tree")) {
            throw new IllegalArgumentException("--manifest-layout must be flat or tree, got " + layout);
        }
        WriteParams params = WriteParams.of(WriteMode.parse(mode))
                .withDataStorageVersion(LanceFileVersion.parse(dataStorageVersion))
                .withTableConfig(layout.equals("tree") ? java.util.Map.of("lance.manifest.layout", "tree") : java.util.Map.of());
        try (BufferAllocator alloc = new CliSupport.Allocator();
             ArrowInput input = ArrowInput.open(in, alloc);
             Progress p = Progress.start(spec, progress, "import", Progress.UNKNOWN, input.size())) {
            Schema schema = input.schema();
            // owned copies of each batch (the IPC reader reuses one root), read off the event loops
            Flux<VectorSchemaRoot> batches = input.batches(alloc, () -> {
                try {
                    p.bytesAt(input.position());
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            try (Dataset ds = Dataset.write(uri, common.storageOptions, p.trackRows(batches), schema, params).block()) {
                p.finish();
                spec.commandLine().getOut().printf("imported into %s: version %d, %d rows, data storage %s%n", ds.uri(),
                        ds.version(), ds.count().block(), ds.dataStorageVersion());
            }
        }
        spec.commandLine().getOut().flush();
        return 0;
    }
}
