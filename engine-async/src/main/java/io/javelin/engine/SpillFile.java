package io.javelin.engine;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.ipc.WriteChannel;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.ipc.message.IpcOption;
import org.apache.arrow.vector.ipc.message.MessageSerializer;
import org.apache.arrow.vector.types.pojo.Schema;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;

/**
 * A local spill file of record batches in the Arrow IPC stream format. Appending is blocking file I/O: the
 * caller runs it on a blocking-capable scheduler; {@link #read} subscribes on one by itself.
 */
final class SpillFile {

    private final Path path;
    private final Schema schema;
    private FileChannel out;
    private WriteChannel channel;
    private long rows;
    private long bytes;

    private SpillFile(Path path, Schema schema) {
        this.path = path;
        this.schema = schema;
    }

    static SpillFile create(Path dir, String name, Schema schema) {
        SpillFile f = new SpillFile(dir.resolve(name), schema);
        try {
            f.out = FileChannel.open(f.path, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
            f.channel = new WriteChannel(f.out);
            MessageSerializer.serialize(f.channel, schema, IpcOption.DEFAULT);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot create spill file " + f.path, e);
        }
        return f;
    }

    Schema schema() {
        return schema;
    }

    long rows() {
        return rows;
    }

    /** In-memory size of the batches appended (what loading the file costs). */
    long bytes() {
        return bytes;
    }

    /** Appends {@code b} (left open: the caller owns it). */
    void append(VectorSchemaRoot b) {
        if (b.getRowCount() == 0) {
            return;
        }
        try (ArrowRecordBatch rb = new VectorUnloader(b).getRecordBatch()) {
            MessageSerializer.serialize(channel, rb, IpcOption.DEFAULT);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write spill file " + path, e);
        }
        rows += b.getRowCount();
        for (FieldVector v : b.getFieldVectors()) {
            bytes += v.getBufferSize();
        }
    }

    void finish() {
        try (FileChannel c = out) {
            ArrowStreamWriter.writeEndOfStream(channel, IpcOption.DEFAULT);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot finish spill file " + path, e);
        }
    }

    /** Closes the file after a failure (its directory is removed with it). */
    void abandon() {
        try {
            out.close();
        } catch (IOException e) {
            // nothing to keep: the spill directory is deleted anyway
        }
    }

    /** The batches, each a new root the subscriber owns. */
    Flux<VectorSchemaRoot> read(BufferAllocator alloc) {
        return Flux.<VectorSchemaRoot, ArrowStreamReader>generate(
                        () -> new ArrowStreamReader(FileChannel.open(path, StandardOpenOption.READ), alloc),
                        (reader, sink) -> {
                            try {
                                if (!reader.loadNextBatch()) {
                                    sink.complete();
                                    return reader;
                                }
                                VectorSchemaRoot in = reader.getVectorSchemaRoot();
                                List<FieldVector> moved = new ArrayList<>();
                                for (FieldVector v : in.getFieldVectors()) {
                                    moved.add(Batches.move(v, alloc));
                                }
                                sink.next(Batches.root(moved, in.getRowCount()));
                            } catch (IOException e) {
                                sink.error(new UncheckedIOException("Cannot read spill file " + path, e));
                            }
                            return reader;
                        },
                        reader -> {
                            try {
                                reader.close();
                            } catch (IOException e) {
                                throw new UncheckedIOException(e);
                            }
                        })
                .subscribeOn(Schedulers.boundedElastic())
                .doOnDiscard(VectorSchemaRoot.class, VectorSchemaRoot::close);
    }

    void delete() {
        try {
            Files.deleteIfExists(path);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot delete spill file " + path, e);
        }
    }
}
