package io.javelin.objectstore.io;

import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;

/**
 * Admission of physical reads: a priority queue (lower value first) gated by a count of reads in
 * flight and a budget of bytes read but not yet delivered. Only the head of the queue is ever
 * considered, so dispatch is strictly in priority order.
 *
 * <p>The byte budget never blocks the head when doing so could deadlock: it is bypassed when the
 * head's priority is at or below every priority still holding bytes (the consumer is waiting for
 * exactly that data), when its priority already holds bytes (the other chunks of an admitted
 * request), or when nothing holds bytes at all (one request larger than the whole budget).
 *
 * <p>State changes happen under this object's monitor and only do arithmetic; sinks are completed
 * outside it. Nothing parks a thread.
 */
final class IoQueue {

    /**
     * A granted admission. {@link #iopDone()} returns the read slot and {@link IoQueue#consumed}
     * the bytes; both are idempotent. A permit granted to a subscriber that cancelled before
     * receiving it is returned whole by the cancel handler ({@link #claim} loses to it).
     */
    final class Permit {
        final long priority;
        final long bytes;
        private final AtomicBoolean iopDone = new AtomicBoolean();
        private final AtomicBoolean bytesReturned = new AtomicBoolean();
        /** 0 granted, 1 claimed by the subscriber, 2 returned on cancel. */
        private final java.util.concurrent.atomic.AtomicInteger state = new java.util.concurrent.atomic.AtomicInteger();

        Permit(long priority, long bytes) {
            this.priority = priority;
            this.bytes = bytes;
        }

        void iopDone() {
            if (iopDone.compareAndSet(false, true)) {
                IoQueue.this.iopDone();
            }
        }

        boolean claim() {
            return state.compareAndSet(0, 1);
        }

        void reclaim() {
            if (state.compareAndSet(0, 2)) {
                iopDone();
                consumed(List.of(this));
            }
        }
    }

    private static final class Waiter {
        final long priority;
        final long seq;
        final long bytes;
        final MonoSink<Permit> sink;
        final AtomicBoolean done = new AtomicBoolean();
        Permit permit;

        Waiter(long priority, long seq, long bytes, MonoSink<Permit> sink) {
            this.priority = priority;
            this.seq = seq;
            this.bytes = bytes;
            this.sink = sink;
        }
    }

    private final int ioCapacity;
    private final long byteCapacity;
    private int iopsAvail;
    private long bytesAvail;
    private long seq;
    private final PriorityQueue<Waiter> queue = new PriorityQueue<>((a, b) -> a.priority != b.priority
            ? Long.compare(a.priority, b.priority) : Long.compare(a.seq, b.seq));
    /** Multiset of priorities holding bytes (dispatched, not yet delivered). */
    private final TreeMap<Long, Integer> holding = new TreeMap<>();

    IoQueue(int ioCapacity, long byteCapacity) {
        this.ioCapacity = ioCapacity;
        this.byteCapacity = byteCapacity;
        this.iopsAvail = ioCapacity;
        this.bytesAvail = byteCapacity;
    }

    /** Completes when a read of {@code bytes} at {@code priority} may start. Cancelling withdraws it. */
    Mono<Permit> admit(long priority, long bytes) {
        return Mono.<Permit>create(sink -> {
            Waiter w;
            synchronized (this) {
                w = new Waiter(priority, seq++, bytes, sink);
                queue.add(w);
            }
            sink.onCancel(() -> {
                Permit granted;
                synchronized (this) {
                    if (w.done.compareAndSet(false, true)) {
                        queue.remove(w);
                        granted = null;
                    } else {
                        granted = w.permit;
                    }
                }
                if (granted != null) {
                    granted.reclaim(); // granted, but the subscriber is gone
                }
                drain();
            });
            drain();
        }).filter(Permit::claim);
    }

    private void iopDone() {
        synchronized (this) {
            iopsAvail++;
        }
        drain();
    }

    /** The data of these permits reached the consumer (or was dropped): refund their bytes. */
    void consumed(List<Permit> permits) {
        synchronized (this) {
            for (Permit p : permits) {
                if (p.bytesReturned.compareAndSet(false, true)) {
                    bytesAvail += p.bytes;
                    holding.computeIfPresent(p.priority, (k, n) -> n == 1 ? null : n - 1);
                }
            }
        }
        drain();
    }

    private void drain() {
        while (true) {
            List<Waiter> ready = new ArrayList<>(1);
            synchronized (this) {
                Waiter head = queue.peek();
                if (head == null || !canDeliver(head)) {
                    return;
                }
                queue.poll();
                if (!head.done.compareAndSet(false, true)) {
                    continue; // cancelled between peek and poll
                }
                iopsAvail--;
                bytesAvail -= head.bytes;
                holding.merge(head.priority, 1, Integer::sum);
                head.permit = new Permit(head.priority, head.bytes);
                ready.add(head);
            }
            for (Waiter w : ready) {
                w.sink.success(w.permit);
            }
        }
    }

    private boolean canDeliver(Waiter head) {
        if (iopsAvail == 0) {
            return false;
        }
        if (byteCapacity == 0 || holding.isEmpty()) {
            return true;
        }
        if (head.priority <= holding.firstKey() || holding.containsKey(head.priority)) {
            return true;
        }
        return head.bytes <= bytesAvail;
    }

    synchronized int iopsInFlight() {
        return ioCapacity - iopsAvail;
    }

    synchronized long bytesHeld() {
        return byteCapacity - bytesAvail;
    }

    synchronized int queued() {
        return queue.size();
    }
}
