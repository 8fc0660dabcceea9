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

    @Option(names = "--data-storage-version", paramLabel = "2.0|2.1|2.2",
            description = "Default 2.1, or 2.2 when the input has blob v2 (lance.blob.v2) columns.")
    String dataStorageVersion;

    @Option(names = "--allow-external-blob-outside-bases", description = "Accept blob v2 external URIs outside registered base paths.")
    boolean allowExternalBlobs;

    @Option(names = "--blob-pack-file-size-threshold", paramLabel = "BYTES", description = "Roll packed .blob sidecars at this size (default 1 GiB).")
    long packThreshold;

    @Option(names = "--max-bytes-per-file", paramLabel = "BYTES", description = "Close a data file at this many bytes (Lance max_bytes_per_file; default 90 GB).")
    long maxBytesPerFile = WriteParams.DEFAULT_MAX_BYTES_PER_FILE;

    @Option(names = {"--manifest-layout", "--layout"}, paramLabel = "flat|tree",
            description = "Fragment metadata layout of a created or overwritten dataset (tree: spec 000). Default ${DEFAULT-VALUE}.")
    String layout = "flat";

    @Override
    public Integer call() throws Exception {
        if (!layout.equals("flat") && !layout.equals("tree")) {
            throw new IllegalArgumentException("--manifest-layout must be flat or tree, got " + layout);
        }
        try (BufferAllocator alloc = new CliSupport.Allocator();
             ArrowInput input = ArrowInput.open(in, alloc);
             Progress p = Progress.start(spec, progress, "import", Progress.UNKNOWN, input.size())) {
            Schema schema = input.schema();
            // blob columns marked either way are accepted: blob v2 needs 2.2, legacy blob metadata 2.1 or older
            String version = dataStorageVersion != null ? dataStorageVersion
                    : schema.getFields().stream().anyMatch(io.javelin.engine.BlobV2::isBlobV2) ? "2.2" : "2.1";
            WriteParams params = WriteParams.of(WriteMode.parse(mode))
                    .withDataStorageVersion(LanceFileVersion.parse(version))
                    .withTableConfig(layout.equals("tree") ? java.util.Map.of("lance.manifest.layout", "tree") : java.util.Map.of())
                    .withBlobs(new io.javelin.engine.BlobWriteOptions(allowExternalBlobs, packThreshold))
                    .withMaxBytesPerFile(maxBytesPerFile);
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
