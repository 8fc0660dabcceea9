package io.javelin.engine.namespace;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ReadableByteChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.compression.CommonsCompressionFactory;
import org.apache.arrow.flatbuf.Message;
import org.apache.arrow.flatbuf.MessageHeader;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.compression.NoCompressionCodec;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import reactor.core.publisher.Flux;

/**
 * Decodes an Arrow IPC body (stream form, or file form whose leading stream is used) as its bytes arrive:
 * chunks are framed into whole messages, and only a complete message is handed to Arrow's reader (over an
 * in-memory channel), so nothing ever waits for bytes. Emits the {@link org.apache.arrow.vector.types.pojo.Schema}
 * first, then each record batch as an owned {@link VectorSchemaRoot}. Malformed, truncated or oversized
 * input is a {@link NamespaceException} with {@code INVALID_INPUT}.
 */
public final class IpcStreamDecoder implements AutoCloseable {

    private static final byte[] FILE_MAGIC = "ARROW1".getBytes(StandardCharsets.US_ASCII);
    private static final int MAX_METADATA = 16 << 20;

    private final BufferAllocator allocator;
    private final long maxMessageBytes;
    private final MessageChannel channel = new MessageChannel();
    private byte[] buf = new byte[0];
    private int len;
    private boolean started;
    private boolean fileForm;
    private boolean ended;
    private ArrowStreamReader reader;

    private IpcStreamDecoder(BufferAllocator allocator, long maxMessageBytes) {
        this.allocator = allocator;
        this.maxMessageBytes = maxMessageBytes;
    }

    /** {@code chunks} decoded; each batch belongs to the subscriber, undelivered ones are closed. */
    public static Flux<Object> decode(Flux<byte[]> chunks, BufferAllocator allocator, long maxMessageBytes) {
        return Flux.using(() -> new IpcStreamDecoder(allocator, maxMessageBytes),
                d -> chunks.concatMapIterable(d::feed).concatWith(Flux.defer(() -> Flux.fromIterable(d.finish()))),
                IpcStreamDecoder::close)
                .doOnDiscard(VectorSchemaRoot.class, VectorSchemaRoot::close);
    }

    private List<Object> feed(byte[] chunk) {
        if (ended) {
            return List.of();
        }
        append(chunk);
        List<Object> out = new ArrayList<>();
        try {
            int pos = 0;
            if (!started) {
                if (len < 8 && len < FILE_MAGIC.length + 2) {
                    return out;
                }
                if (Arrays.equals(buf, 0, FILE_MAGIC.length, FILE_MAGIC, 0, FILE_MAGIC.length)) {
                    pos = 8;
                    fileForm = true;
                }
                started = true;
            }
            while (!ended) {
                int used = frame(pos, out);
                if (used == 0) {
                    break;
                }
                pos += used;
            }
            compact(pos);
            return out;
        } catch (RuntimeException | IOException e) {
            out.forEach(o -> {
                if (o instanceof VectorSchemaRoot r) {
                    r.close();
                }
            });
            throw e instanceof NamespaceException ne ? ne : invalid(e.getMessage() == null ? e.toString() : e.getMessage());
        }
    }

    /** Decodes the message at {@code pos} if complete; the bytes it took, 0 when more are needed. */
    private int frame(int pos, List<Object> out) throws IOException {
        if (len - pos < 4) {
            return 0;
        }
        ByteBuffer b = ByteBuffer.wrap(buf, pos, len - pos).order(ByteOrder.LITTLE_ENDIAN);
        int first = b.getInt(pos);
        int prefix = 4;
        int metaLen = first;
        if (first == -1) {
            if (len - pos < 8) {
                return 0;
            }
            metaLen = b.getInt(pos + 4);
            prefix = 8;
        }
        if (metaLen == 0) {
            if (fileForm && reader == null && first == 0) {
                // the file form's header may be padded beyond 8 bytes (arrow-rs aligns to 64)
                return 4;
            }
            ended = true;
            return prefix;
        }
        if (metaLen < 0 || metaLen > MAX_METADATA) {
            throw invalid("message metadata length " + metaLen + " is out of range");
        }
        if (len - pos < prefix + metaLen) {
            return 0;
        }
        ByteBuffer meta = ByteBuffer.wrap(buf, pos + prefix, metaLen).slice().order(ByteOrder.LITTLE_ENDIAN);
        Message m = Message.getRootAsMessage(meta);
        long body = m.bodyLength();
        if (body < 0 || body + prefix + metaLen > maxMessageBytes) {
            throw invalid("message of " + (body + metaLen) + " bytes exceeds the limit of " + maxMessageBytes);
        }
        long total = prefix + metaLen + body;
        if (len - pos < total) {
            ensure(pos + total);
            return 0;
        }
        channel.add(Arrays.copyOfRange(buf, pos, (int) (pos + total)));
        byte type = m.headerType();
        if (reader == null) {
            if (type != MessageHeader.Schema) {
                throw invalid("the first message is not a schema");
            }
            reader = new ArrowStreamReader(channel, allocator, CommonsCompressionFactory.INSTANCE);
            out.add(reader.getVectorSchemaRoot().getSchema());
        } else if (type == MessageHeader.RecordBatch) {
            if (!reader.loadNextBatch()) {
                throw invalid("record batch could not be read");
            }
            out.add(copy(reader.getVectorSchemaRoot()));
        } else if (type != MessageHeader.DictionaryBatch) {
            throw invalid("unexpected message type " + MessageHeader.name(type));
        }
        return (int) total;
    }

    private VectorSchemaRoot copy(VectorSchemaRoot src) {
        VectorSchemaRoot dst = VectorSchemaRoot.create(src.getSchema(), allocator);
        try (ArrowRecordBatch rb = new VectorUnloader(src).getRecordBatch()) {
            new VectorLoader(dst, NoCompressionCodec.Factory.INSTANCE).load(rb);
            return dst;
        } catch (RuntimeException e) {
            dst.close();
            throw e;
        }
    }

    private List<Object> finish() {
        if (reader == null) {
            throw invalid(len == 0 && !started ? "the body is empty (an Arrow IPC stream with a schema is required)"
                    : "the body ends before its schema is complete");
        }
        if (!ended && len > 0) {
            throw invalid("the body is truncated (" + len + " bytes of an incomplete message)");
        }
        return List.of();
    }

    private void append(byte[] chunk) {
        ensure((long) len + chunk.length);
        System.arraycopy(chunk, 0, buf, len, chunk.length);
        len += chunk.length;
    }

    private void ensure(long need) {
        if (need > Integer.MAX_VALUE - 16) {
            throw invalid("message too large");
        }
        if (need > buf.length) {
            buf = Arrays.copyOf(buf, (int) Math.max(need, Math.min(Integer.MAX_VALUE - 16, Math.max(64 * 1024, 2L * buf.length))));
        }
    }

    private void compact(int pos) {
        if (pos > 0) {
            System.arraycopy(buf, pos, buf, 0, len - pos);
            len -= pos;
        }
    }

    private static NamespaceException invalid(String why) {
        return new NamespaceException(NamespaceErrorCode.INVALID_INPUT, "Invalid Arrow IPC body: " + why);
    }

    @Override
    public void close() {
        if (reader != null) {
            try {
                reader.close();
            } catch (IOException | RuntimeException e) {
                // the reader holds only in-memory buffers
            }
        }
    }

    /** Hands complete messages to the reader; it is never asked for bytes that have not arrived. */
    private static final class MessageChannel implements ReadableByteChannel {
        private final ArrayDeque<ByteBuffer> queue = new ArrayDeque<>();
        private boolean open = true;

        void add(byte[] message) {
            queue.add(ByteBuffer.wrap(message));
        }

        @Override
        public int read(ByteBuffer dst) {
            int n = 0;
            while (dst.hasRemaining() && !queue.isEmpty()) {
                ByteBuffer head = queue.peek();
                int k = Math.min(dst.remaining(), head.remaining());
                ByteBuffer part = head.slice(head.position(), k);
                dst.put(part);
                head.position(head.position() + k);
                n += k;
                if (!head.hasRemaining()) {
                    queue.poll();
                }
            }
            return n == 0 && queue.isEmpty() ? -1 : n;
        }

        @Override
        public boolean isOpen() {
            return open;
        }

        @Override
        public void close() {
            open = false;
        }
    }
}
