package io.javelin.spark;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Flux;

/**
 * Spark pulls, Javelin's scan pushes: this subscriber keeps at most {@code prefetch} batches requested or
 * queued, hands them to the pulling task thread one at a time, and on {@link #close} cancels the scan and
 * closes every batch queued or still arriving. The Reactor side never blocks (a lock-free queue and a
 * semaphore release); only Spark's task thread waits.
 */
final class BatchBridge implements CoreSubscriber<VectorSchemaRoot>, AutoCloseable {

    private static final Object DONE = new Object();

    private record Failure(Throwable error) {
    }

    private final int prefetch;
    private final Queue<Object> queue = new ConcurrentLinkedQueue<>();
    private final Semaphore available = new Semaphore(0);
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile Subscription subscription;
    private boolean finished;

    BatchBridge(Flux<VectorSchemaRoot> source, int prefetch) {
        this.prefetch = prefetch;
        source.subscribe(this);
    }

    @Override
    public void onSubscribe(Subscription s) {
        subscription = s;
        if (closed.get()) {
            s.cancel();
        } else {
            s.request(prefetch);
        }
    }

    @Override
    public void onNext(VectorSchemaRoot batch) {
        queue.add(batch);
        available.release();
        if (closed.get()) {
            drain(); // close() may have drained before this batch was queued
        }
    }

    @Override
    public void onError(Throwable t) {
        queue.add(new Failure(t));
        available.release();
    }

    @Override
    public void onComplete() {
        queue.add(DONE);
        available.release();
    }

    /** The next batch (the caller's to close), or null at the end of the scan; rethrows the scan's error. */
    VectorSchemaRoot next() throws InterruptedException {
        if (finished) {
            return null;
        }
        available.acquire();
        Object o = queue.poll();
        if (o instanceof VectorSchemaRoot root) {
            subscription.request(1);
            return root;
        }
        finished = true;
        if (o instanceof Failure f) {
            throw f.error instanceof RuntimeException re ? re : new JavelinSparkException("Scan failed: " + f.error, f.error);
        }
        return null;
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            Subscription s = subscription;
            if (s != null) {
                s.cancel();
            }
        }
        drain();
    }

    private void drain() {
        Object o;
        while ((o = queue.poll()) != null) {
            if (o instanceof VectorSchemaRoot root) {
                root.close();
            }
        }
    }
}
