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
     * on success the subscriber owns the returned handle. The buffer is not zeroed: the body overwrites
     * all of it, or it is freed unread.
     */
    public static Mono<Buffer> collect(Flux<ByteBuffer> body, long expected, String path, StoreCounters counters,
            String label) {
        return Mono.defer(() -> collectInto(body, Buffer.allocateUninitialized(expected, label), path, counters));
    }

    /**
     * A read into a caller's buffer whose ownership passes late: {@code read} gets a claim that returns
     * {@code dst} the first time (the body collector then owns it) and null once a cancel or error released it
     * first. Claim when the body's subscriber subscribes: a mapped but never subscribed inner (a cancel racing
     * onNext) then leaves {@code dst} to the cancel's release.
     */
    public static Mono<Buffer> intoClaimed(Buffer dst, java.util.function.Function<java.util.function.Supplier<Buffer>, Mono<Buffer>> read) {
        AtomicBoolean passed = new AtomicBoolean();
        Runnable drop = () -> {
            if (passed.compareAndSet(false, true)) {
                dst.release();
            }
        };
        return read.apply(() -> passed.compareAndSet(false, true) ? dst : null).doOnCancel(drop).doOnError(e -> drop.run());
    }

    /**
     * Copies {@code body} into {@code dst}, which must be filled exactly, and emits it. Takes ownership of
     * the {@code dst} handle: emitted when filled, released on error or cancel (so a page split into
     * several ranged requests is read straight into its one buffer, without a copy per part).
     *
     * <p>One flag decides ownership: either the completed buffer is handed downstream, or a cancel or
     * error releases it — never both, never neither. ({@code Mono.usingWhen} with a shared handle could
     * lose the handle when a cancel raced the body's completion.)
     */
    public static Mono<Buffer> collectInto(Flux<ByteBuffer> body, Buffer dst, String path, StoreCounters counters) {
        long expected = dst.size();
        AtomicBoolean settled = new AtomicBoolean();
        Runnable releaseUnlessSettled = () -> {
            if (settled.compareAndSet(false, true)) {
                dst.release();
            }
        };
        return body.reduce(0L, (pos, bb) -> {
                    int n = bb.remaining();
                    if (pos + n > expected) {
                        throw new TruncatedReadException(path, expected, pos + n);
                    }
                    if (!settled.get()) { // after a cancel the buffer may already be gone
                        MemorySegment.copy(MemorySegment.ofBuffer(bb), 0, dst.segment(), pos, n);
                    }
                    counters.bytes(OpClass.READ, n);
                    return pos + n;
                })
                .<Buffer>handle((total, sink) -> {
                    if (total != expected) {
                        sink.error(new TruncatedReadException(path, expected, total));
                    } else if (settled.compareAndSet(false, true)) {
                        sink.next(dst);
                    }
                })
                .doOnError(e -> releaseUnlessSettled.run())
                .doOnCancel(releaseUnlessSettled);
    }
}
