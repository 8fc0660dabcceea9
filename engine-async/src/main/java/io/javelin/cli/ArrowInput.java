package io.javelin.cli;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.apache.arrow.compression.CommonsCompressionFactory;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.pojo.Schema;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;

/**
 * An Arrow IPC input file in either form (file: starts with {@code ARROW1}; stream: anything else), with
 * LZ4_FRAME or ZSTD body compression as pyarrow and Arrow Java write them.
 */
final class ArrowInput implements AutoCloseable {

    private static final byte[] FILE_MAGIC = "ARROW1".getBytes(StandardCharsets.US_ASCII);

    private final FileChannel channel;
    private final ArrowReader reader;

    private ArrowInput(FileChannel channel, ArrowReader reader) {
        this.channel = channel;
        this.reader = reader;
    }

    /** Opens {@code path}; the schema is read here, so a file that is not Arrow IPC fails now. */
    static ArrowInput open(Path path, BufferAllocator allocator) throws IOException {
        FileChannel ch = FileChannel.open(path, StandardOpenOption.READ);
        try {
            ByteBuffer head = ByteBuffer.allocate(FILE_MAGIC.length);
            while (head.hasRemaining() && ch.read(head) >= 0) {
                // a short read is retried until EOF
            }
            ch.position(0);
            boolean file = !head.hasRemaining() && java.util.Arrays.equals(head.array(), FILE_MAGIC);
            ArrowReader r = file ? new ArrowFileReader(ch, allocator, CommonsCompressionFactory.INSTANCE)
                    : new ArrowStreamReader(ch, allocator, CommonsCompressionFactory.INSTANCE);
            ArrowInput in = new ArrowInput(ch, r);
            try {
                in.schema();
            } catch (IOException | RuntimeException e) {
                in.close();
                throw new IOException(path + " is not an Arrow IPC file or stream: " + e.getMessage(), e);
            }
            return in;
        } catch (IOException | RuntimeException e) {
            if (ch.isOpen()) {
                ch.close();
            }
            throw e;
        }
    }

    Schema schema() throws IOException {
        return reader.getVectorSchemaRoot().getSchema();
    }

    /** The reader (one reused root, decompressed). */
    ArrowReader reader() {
        return reader;
    }

    /** Bytes consumed so far (for progress). */
    long position() throws IOException {
        return channel.position();
    }

    long size() throws IOException {
        return channel.size();
    }

    /** Each batch as an owned, uncompressed copy, read on {@code boundedElastic} (the reader blocks). */
    Flux<VectorSchemaRoot> batches(BufferAllocator allocator, Runnable afterEach) throws IOException {
        Schema schema = schema();
        return Flux.<VectorSchemaRoot>generate(sink -> {
            try {
                if (!reader.loadNextBatch()) {
                    sink.complete();
                    return;
                }
                VectorSchemaRoot copy = VectorSchemaRoot.create(schema, allocator);
                try (ArrowRecordBatch rb = new VectorUnloader(reader.getVectorSchemaRoot()).getRecordBatch()) {
                    new VectorLoader(copy).load(rb);
                } catch (RuntimeException e) {
                    copy.close();
                    throw e;
                }
                afterEach.run();
                sink.next(copy);
            } catch (IOException e) {
                sink.error(e);
            }
        }).subscribeOn(Schedulers.boundedElastic());
    }

    @Override
    public void close() throws IOException {
        try {
            reader.close();
        } finally {
            channel.close();
        }
    }
}
