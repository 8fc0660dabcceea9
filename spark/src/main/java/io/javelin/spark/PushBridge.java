package io.javelin.spark;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.arrow.vector.VectorSchemaRoot;
import reactor.core.publisher.Flux;
import reactor.core.publisher.FluxSink;
import reactor.core.publisher.Mono;

/**
 * Spark pushes rows, Javelin's writer pulls batches: the task thread hands a batch over only when the write
 * pipeline has requested one, so at most the pipeline's demand is buffered. Reactor threads never wait;
 * the task thread does (and stops waiting when the pipeline fails).
 */
final class PushBridge<R> {

    private final Semaphore demand = new Semaphore(0);
    private volatile FluxSink<VectorSchemaRoot> sink;
    private volatile boolean disposed;
    private final CompletableFuture<R> result;

    PushBridge(Function<Flux<VectorSchemaRoot>, Mono<R>> pipeline) {
        Flux<VectorSchemaRoot> input = Flux.create(s -> {
            sink = s;
            s.onRequest(n -> demand.release((int) Math.min(n, 1 << 16)));
            s.onDispose(() -> {
                disposed = true;
                demand.release(1 << 16);
            });
        });
        result = pipeline.apply(input).toFuture();
    }

    /** Hands {@code batch} to the pipeline (which then owns it), waiting for its demand. */
    void push(VectorSchemaRoot batch) throws InterruptedException {
        while (!demand.tryAcquire(20, TimeUnit.MILLISECONDS)) {
            if (result.isDone()) {
                break;
            }
        }
        if (disposed || result.isDone() || sink == null) {
            batch.close();
            await(); // rethrows the pipeline's failure
            throw new JavelinSparkException("The write pipeline stopped before all rows were written");
        }
        sink.next(batch);
    }

    /** Ends the input and waits for the pipeline's result. */
    R complete() throws InterruptedException {
        FluxSink<VectorSchemaRoot> s = sink;
        if (s != null) {
            s.complete();
        } else {
            // the pipeline has not subscribed to the input yet: complete once it does
            waitForSink().complete();
        }
        return await();
    }

    /** Fails the input (the pipeline writes nothing more) and waits for it to stop. */
    void fail(Throwable cause) {
        try {
            FluxSink<VectorSchemaRoot> s = sink;
            if (s != null) {
                s.error(cause);
            } else if (!result.isDone()) {
                result.cancel(true);
            }
            await();
        } catch (Throwable ignored) {
            // the pipeline's own failure is the expected outcome here
        }
    }

    private FluxSink<VectorSchemaRoot> waitForSink() throws InterruptedException {
        while (sink == null) {
            if (result.isDone()) {
                await();
                throw new JavelinSparkException("The write pipeline ended before reading its input");
            }
            Thread.sleep(1);
        }
        return sink;
    }

    private R await() throws InterruptedException {
        try {
            return result.get();
        } catch (java.util.concurrent.ExecutionException e) {
            Throwable c = e.getCause();
            throw c instanceof RuntimeException re ? re : new JavelinSparkException("Write failed: " + c, c);
        }
    }
}
