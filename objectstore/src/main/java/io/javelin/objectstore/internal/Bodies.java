package io.javelin.objectstore.internal;

import io.javelin.objectstore.OpClass;
import io.javelin.objectstore.TruncatedReadException;
import io.javelin.objectstore.memory.Buffer;
import io.javelin.objectstore.metrics.StoreCounters;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** Collects an HTTP response body into one off-heap buffer of known size. */
public final class Bodies {

    private Bodies() {
    }

    /**
     * Copies {@code body} into a new buffer of {@code expected} bytes. A body that ends early or runs
     * long fails with {@link TruncatedReadException}. The buffer is freed on error and on cancel;
     * on success the subscriber owns the returned handle.
     */
    public static Mono<Buffer> collect(Flux<ByteBuffer> body, long expected, String path, StoreCounters counters,
            String label) {
        return Mono.usingWhen(
                Mono.fromSupplier(() -> Buffer.allocate(expected, label)),
                buf -> body.reduce(0L, (pos, bb) -> {
                    int n = bb.remaining();
                    if (pos + n > expected) {
                        throw new TruncatedReadException(path, expected, pos + n);
                    }
                    MemorySegment.copy(MemorySegment.ofBuffer(bb), 0, buf.segment(), pos, n);
                    counters.bytes(OpClass.READ, n);
                    return pos + n;
                }).map(total -> {
                    if (total != expected) {
                        throw new TruncatedReadException(path, expected, total);
                    }
                    return buf.share();
                }),
                buf -> Mono.fromRunnable(buf::release),
                (buf, err) -> Mono.fromRunnable(buf::release),
                buf -> Mono.fromRunnable(buf::release));
    }
}
