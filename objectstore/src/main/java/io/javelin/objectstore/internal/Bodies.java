package io.javelin.objectstore.internal;

import io.javelin.objectstore.OpClass;
import io.javelin.objectstore.TruncatedReadException;
import io.javelin.objectstore.memory.Buffer;
import io.javelin.objectstore.metrics.StoreCounters;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;
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
     *
     * <p>One flag decides ownership: either the completed buffer is handed downstream, or a cancel or
     * error releases it — never both, never neither. ({@code Mono.usingWhen} with a shared handle could
     * lose the handle when a cancel raced the body's completion.)
     */
    public static Mono<Buffer> collect(Flux<ByteBuffer> body, long expected, String path, StoreCounters counters,
            String label) {
        return Mono.defer(() -> {
            Buffer buf = Buffer.allocate(expected, label);
            AtomicBoolean settled = new AtomicBoolean();
            Runnable releaseUnlessSettled = () -> {
                if (settled.compareAndSet(false, true)) {
                    buf.release();
                }
            };
            return body.reduce(0L, (pos, bb) -> {
                        int n = bb.remaining();
                        if (pos + n > expected) {
                            throw new TruncatedReadException(path, expected, pos + n);
                        }
                        if (!settled.get()) { // after a cancel the buffer may already be gone
                            MemorySegment.copy(MemorySegment.ofBuffer(bb), 0, buf.segment(), pos, n);
                        }
                        counters.bytes(OpClass.READ, n);
                        return pos + n;
                    })
                    .<Buffer>handle((total, sink) -> {
                        if (total != expected) {
                            sink.error(new TruncatedReadException(path, expected, total));
                        } else if (settled.compareAndSet(false, true)) {
                            sink.next(buf);
                        }
                    })
                    .doOnError(e -> releaseUnlessSettled.run())
                    .doOnCancel(releaseUnlessSettled);
        });
    }
}
