package io.javelin.engine.namespace;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.compression.NoCompressionCodec;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.ipc.ArrowWriter;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.pojo.Schema;
import reactor.core.publisher.Flux;

/**
 * Encodes batches as Arrow IPC, one chunk of bytes per batch as it arrives (demand for the next batch
 * follows the consumer of the bytes): the file form for query responses (what lance-core's servers
 * answer), the stream form for request bodies. Every input batch is closed once encoded.
 */
public final class IpcEncoders {

    private IpcEncoders() {
    }

    /** The file form; {@code emptySchema} is written when there is no batch at all. */
    public static Flux<byte[]> file(Flux<VectorSchemaRoot> batches, Schema emptySchema, BufferAllocator allocator) {
        return encode(batches, emptySchema, allocator, true);
    }

    public static Flux<byte[]> stream(Flux<VectorSchemaRoot> batches, Schema schema, BufferAllocator allocator) {
        return encode(batches, schema, allocator, false);
    }

    private static Flux<byte[]> encode(Flux<VectorSchemaRoot> batches, Schema fallback, BufferAllocator allocator, boolean file) {
        return Flux.using(() -> new State(allocator, file),
                st -> batches.concatMapIterable(b -> {
                    try (b) {
                        return List.of(st.write(b));
                    }
                }, 1).concatWith(Flux.defer(() -> Flux.just(st.end(fallback)))),
                State::close)
                .doOnDiscard(VectorSchemaRoot.class, VectorSchemaRoot::close);
    }

    private static final class State implements AutoCloseable {
        private final BufferAllocator allocator;
        private final boolean file;
        private final Sink sink = new Sink();
        private VectorSchemaRoot root;
        private ArrowWriter writer;

        State(BufferAllocator allocator, boolean file) {
            this.allocator = allocator;
            this.file = file;
        }

        private void start(Schema schema, BufferAllocator alloc) throws IOException {
            root = VectorSchemaRoot.create(schema, alloc);
            writer = file ? new ArrowFileWriter(root, null, sink) : new ArrowStreamWriter(root, null, sink);
            writer.start();
        }

        byte[] write(VectorSchemaRoot b) {
            try {
                if (writer == null) {
                    // buffers move into the writer's root by reference: it must share the batches' root allocator
                    start(b.getSchema(), b.getFieldVectors().isEmpty() ? allocator : b.getVector(0).getAllocator());
                }
                try (ArrowRecordBatch rb = new VectorUnloader(b).getRecordBatch()) {
                    new VectorLoader(root, NoCompressionCodec.Factory.INSTANCE).load(rb);
                }
                writer.writeBatch();
                root.clear();
                return sink.take();
            } catch (IOException e) {
                throw new NamespaceException(NamespaceErrorCode.INTERNAL, "Arrow IPC encoding failed: " + e.getMessage(), e);
            }
        }

        byte[] end(Schema fallback) {
            try {
                if (writer == null) {
                    start(fallback == null ? new Schema(List.of()) : fallback, allocator);
                }
                writer.end();
                return sink.take();
            } catch (IOException e) {
                throw new NamespaceException(NamespaceErrorCode.INTERNAL, "Arrow IPC encoding failed: " + e.getMessage(), e);
            }
        }

        @Override
        public void close() {
            if (writer != null) {
                writer.close();
            }
            if (root != null) {
                root.close();
            }
        }
    }

    /** Collects what the writer writes (in memory: the writer never waits). */
    private static final class Sink implements WritableByteChannel {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();

        @Override
        public int write(ByteBuffer src) {
            int n = src.remaining();
            byte[] b = new byte[n];
            src.get(b);
            out.write(b, 0, n);
            return n;
        }

        byte[] take() {
            byte[] b = out.toByteArray();
            out.reset();
            return b;
        }

        @Override
        public boolean isOpen() {
            return true;
        }

        @Override
        public void close() {
        }
    }
}
