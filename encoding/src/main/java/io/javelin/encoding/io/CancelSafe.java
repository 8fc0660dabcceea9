package io.javelin.encoding.io;

import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * Hops to a scheduler without losing resources to a cancellation.
 *
 * <p>Reactor's {@code Mono.fromCallable(c).subscribeOn(s)} silently drops a value produced after a
 * cancel, and {@code Mono.publishOn(s)} silently drops the value it was about to deliver; neither runs a
 * discard hook. A decoded batch or a page buffer caught in that window would leak. Here an atomic slot
 * decides who releases: the code that produced or consumes the value, or the cancel handler.
 */
public final class CancelSafe {

    private static final Object CANCELLED = new Object();
    private static final Object TAKEN = new Object();

    private CancelSafe() {
    }

    /**
     * Runs {@code body} on {@code scheduler}; its result is closed if the subscriber cancelled meanwhile.
     * The emitted value is also given to the {@link ResourceOwner} in the subscriber's context, if any, and
     * the owner's {@link ResourceOwner#begin work} spans the body and the synchronous delivery downstream
     * (whatever the subscriber builds from the value on this thread); an owner that has ended gets nothing.
     */
    public static <T extends AutoCloseable> Mono<T> produceOn(Scheduler scheduler, Callable<T> body) {
        return Mono.deferContextual(ctx -> {
            ResourceOwner owner = ctx.getOrDefault(ResourceOwner.CONTEXT_KEY, null);
            return Mono.<T>create(sink -> {
                AtomicReference<Object> slot = new AtomicReference<>();
                // registered before the task is scheduled (an immediate scheduler runs it right away); a running
                // task is not disposed, which could interrupt its thread: the slot tells it what happened
                sink.onCancel(() -> {
                    Object prev = slot.getAndSet(CANCELLED);
                    if (prev instanceof AutoCloseable c && prev != TAKEN) {
                        closeQuietly(c);
                    }
                });
                Runnable task = () -> {
                    if (slot.get() == CANCELLED) {
                        return;
                    }
                    ResourceOwner.Work work = owner == null ? ResourceOwner.Work.NONE : owner.begin();
                    if (work == null) {
                        sink.success(); // the owner ended: its subscriber is gone
                        return;
                    }
                    try (work) {
                        T v;
                        try {
                            v = body.call();
                        } catch (Throwable e) {
                            reactor.core.Exceptions.throwIfJvmFatal(e);
                            sink.error(e);
                            return;
                        }
                        if (v == null) {
                            sink.success();
                        } else if (!slot.compareAndSet(null, v)) {
                            closeQuietly(v); // cancelled while producing
                        } else if (slot.compareAndSet(v, TAKEN)) {
                            if (owner != null) {
                                owner.adopt(v);
                            }
                            sink.success(v);
                        } // else: the cancel handler took it
                    }
                };
                try {
                    scheduler.schedule(task);
                } catch (java.util.concurrent.RejectedExecutionException e) {
                    sink.error(e);
                }
            });
        });
    }

    /**
     * Applies {@code fn} to {@code input} on {@code scheduler} and releases {@code input} exactly once:
     * after {@code fn} ran, or on cancel/error if it never will. {@code fn}'s result must not need
     * releasing (it is dropped if it arrives after a cancel).
     */
    public static <I, O> Mono<O> mapOn(Scheduler scheduler, I input, Consumer<? super I> release, Function<? super I, O> fn) {
        return Mono.defer(() -> {
            AtomicBoolean claimed = new AtomicBoolean();
            Runnable releaseIfUnclaimed = () -> {
                if (claimed.compareAndSet(false, true)) {
                    release.accept(input);
                }
            };
            return Mono.fromCallable(() -> {
                        if (!claimed.compareAndSet(false, true)) {
                            return null;
                        }
                        try {
                            return fn.apply(input);
                        } finally {
                            release.accept(input);
                        }
                    })
                    .subscribeOn(scheduler)
                    .doOnCancel(releaseIfUnclaimed)
                    .doOnError(e -> releaseIfUnclaimed.run());
        });
    }

    /**
     * Like {@link #mapOn}, but {@code fn} may keep (part of) {@code input} in its result: {@code input} is
     * released here only if {@code fn} never runs or throws; otherwise {@code fn} owns it. A result that
     * arrives after a cancel is closed if it is {@link AutoCloseable}.
     */
    public static <I, O> Mono<O> transformOn(Scheduler scheduler, I input, Consumer<? super I> release, Function<? super I, O> fn) {
        return Mono.defer(() -> {
            AtomicBoolean claimed = new AtomicBoolean();
            AtomicReference<Object> slot = new AtomicReference<>();
            Runnable releaseIfUnclaimed = () -> {
                if (claimed.compareAndSet(false, true)) {
                    release.accept(input);
                }
            };
            return Mono.fromCallable(() -> {
                        if (!claimed.compareAndSet(false, true)) {
                            return null;
                        }
                        O out;
                        try {
                            out = fn.apply(input);
                        } catch (RuntimeException | Error e) {
                            release.accept(input);
                            throw e;
                        }
                        if (out != null && !slot.compareAndSet(null, out)) {
                            if (out instanceof AutoCloseable c) {
                                closeQuietly(c); // cancelled while producing
                            }
                            return null;
                        }
                        return out;
                    })
                    .subscribeOn(scheduler)
                    .doOnNext(v -> slot.compareAndSet(v, TAKEN))
                    .doOnCancel(() -> {
                        releaseIfUnclaimed.run();
                        Object prev = slot.getAndSet(CANCELLED);
                        if (prev instanceof AutoCloseable c && prev != TAKEN) {
                            closeQuietly(c);
                        }
                    })
                    .doOnError(e -> releaseIfUnclaimed.run());
        });
    }

    static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            // releasing after a cancel: nobody to report to
        }
    }
}
