package io.javelin.cli;

import io.javelin.encoding.writer.LanceFileVersion;
import io.javelin.encoding.writer.LanceFileWriter;
import io.javelin.encoding.writer.WriteOptions;
import io.javelin.objectstore.local.LocalObjectStore;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;

/** {@code javelin file write IN.arrow OUT.lance [--format-version 2.0|2.1|2.2]}: an Arrow IPC file's rows as one Lance file. */
@Command(name = "write", description = "Write the rows of an Arrow IPC file as one Lance data file.")
final class FileWriteCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0", paramLabel = "IN.arrow")
    Path in;

    @Parameters(index = "1", paramLabel = "OUT.lance")
    Path out;

    @Option(names = "--format-version", paramLabel = "2.0|2.1|2.2",
            description = "Lance file format version (default ${DEFAULT-VALUE}).")
    String formatVersion = "2.1";

    @Option(names = "--page-size", description = "Page size in bytes per column (default ${DEFAULT-VALUE}).")
    long pageSize = WriteOptions.DEFAULT_PAGE_SIZE;

    @Override
    public Integer call() throws IOException {
        LanceFileVersion version;
        try {
            version = LanceFileVersion.parse(formatVersion);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
        Path target = out.toAbsolutePath();
        Path dir = target.getParent();
        try (BufferAllocator alloc = new RootAllocator();
             ArrowInput input = ArrowInput.open(in, alloc);
             LocalObjectStore store = new LocalObjectStore(dir, 2)) {
            var reader = input.reader();
            VectorSchemaRoot root = reader.getVectorSchemaRoot();
            Flux<VectorSchemaRoot> batches = Flux.<VectorSchemaRoot>generate(sink -> {
                try {
                    if (reader.loadNextBatch()) {
                        sink.next(root);
                    } else {
                        sink.complete();
                    }
                } catch (IOException e) {
                    sink.error(e);
                }
            }).subscribeOn(Schedulers.boundedElastic(), false);
            LanceFileWriter.Result r = LanceFileWriter.write(batches, root.getSchema(), store,
                    target.getFileName().toString(), new WriteOptions(version, pageSize)).block();
            spec.commandLine().getOut().printf("wrote %d rows, %d bytes, Lance file format %s to %s%n",
                    r.rows(), r.bytes(), r.version(), target);
            spec.commandLine().getOut().flush();
        }
        return 0;
    }
}
