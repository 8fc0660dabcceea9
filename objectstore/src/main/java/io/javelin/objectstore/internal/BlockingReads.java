package io.javelin.objectstore.internal;

import io.javelin.objectstore.memory.Buffer;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * Runs a blocking read that returns a buffer on a scheduler allowed to block, and makes sure the
 * buffer is freed if the subscriber cancels while the read runs. Discard hooks alone miss the
 * window where the value is produced just as the cancel arrives; here a slot decides, atomically,
 * whether the buffer went downstream or must be released.
 */
public final class BlockingReads {

    private static final Object CANCELLED = new Object();
    private static final Object TAKEN = new Object();

    private BlockingReads() {
    }

    public static Mono<Buffer> on(Scheduler scheduler, Callable<Buffer> read) {
        return Mono.defer(() -> {
            AtomicReference<Object> slot = new AtomicReference<>();
            return Mono.fromCallable(() -> {
                        Buffer b = read.call();
                        if (!slot.compareAndSet(null, b)) {
                            b.release(); // cancelled while reading
                            return null;
                        }
                        return b;
                    })
                    .subscribeOn(scheduler)
                    .doOnNext(b -> slot.compareAndSet(b, TAKEN))
                    .doOnCancel(() -> {
                        Object prev = slot.getAndSet(CANCELLED);
                        if (prev instanceof Buffer b) {
                            b.release();
                        }
                    });
        });
    }

    /** As {@link #on}, for a blocking call that reads several buffers (all released if the subscriber cancelled). */
    public static Mono<java.util.List<Buffer>> onAll(Scheduler scheduler, Callable<java.util.List<Buffer>> read) {
        return Mono.defer(() -> {
            AtomicReference<Object> slot = new AtomicReference<>();
            return Mono.fromCallable(() -> {
                        java.util.List<Buffer> b = read.call();
                        if (!slot.compareAndSet(null, b)) {
                            b.forEach(Buffer::release); // cancelled while reading
                            return null;
                        }
                        return b;
                    })
                    .subscribeOn(scheduler)
                    .doOnNext(b -> slot.compareAndSet(b, TAKEN))
                    .doOnCancel(() -> {
                        Object prev = slot.getAndSet(CANCELLED);
                        if (prev instanceof java.util.List<?> l) {
                            l.forEach(x -> ((Buffer) x).release());
                        }
                    });
        });
    }
}
