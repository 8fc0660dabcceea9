package io.javelin.objectstore.fault;

import io.javelin.objectstore.ListPage;
import io.javelin.objectstore.ObjectMeta;
import io.javelin.objectstore.ObjectStore;
import io.javelin.objectstore.OpClass;
import io.javelin.objectstore.StoreTraits;
import io.javelin.objectstore.ThrottledException;
import io.javelin.objectstore.TransientObjectStoreException;
import io.javelin.objectstore.TruncatedReadException;
import io.javelin.objectstore.memory.Buffer;
import io.javelin.objectstore.metrics.StoreCounters;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * Wraps a raw store (below the {@code RequestPolicy}) and injects the failures real stores
 * produce: throttling bursts, 503s, a server-side rate limit, hung requests, truncated bodies, and
 * responses lost after the write was applied. Shipped in main so every module's tests can use it.
 */
public final class FaultInjectingObjectStore implements ObjectStore {

    /** What to do to a matching request. */
    public enum Fault {
        /** 503 SlowDown, request not applied. */
        THROTTLE,
        /** 500 InternalError, request not applied. */
        SERVER_ERROR,
        /** Apply the request, then answer 503: the acknowledgement is lost. */
        LOST_RESPONSE,
        /** Never answer (the policy's timeout must fire). */
        HANG,
        /** Return the body cut short (reads only). */
        TRUNCATE
    }

    private record Rule(OpClass op, Fault fault, AtomicInteger remaining) {
    }

    private final ObjectStore inner;
    private final Queue<Rule> rules = new ConcurrentLinkedQueue<>();
    private final StoreCounters counters;
    private volatile RateLimit rateLimit;
    private volatile StoreTraits traits;

    public FaultInjectingObjectStore(ObjectStore inner) {
        this.inner = inner;
        this.counters = inner.counters();
    }

    /** Applies {@code fault} to the next {@code n} requests of class {@code op}. */
    public FaultInjectingObjectStore failNext(OpClass op, int n, Fault fault) {
        rules.add(new Rule(op, fault, new AtomicInteger(n)));
        return this;
    }

    /** Throttles every request above {@code perSecond} in each one-second window of {@code clock}. */
    public FaultInjectingObjectStore rateLimit(double perSecond, Scheduler clock) {
        this.rateLimit = new RateLimit(perSecond, clock);
        return this;
    }

    /**
     * Reports {@code t} as this store's traits instead of the inner store's, e.g. cloud traits over an in-memory
     * store, so that planners size their I/O as for S3 while the test counts the requests.
     */
    public FaultInjectingObjectStore withTraits(StoreTraits t) {
        this.traits = t;
        return this;
    }

    public void clear() {
        rules.clear();
        rateLimit = null;
    }

    private Fault next(OpClass op) {
        RateLimit rl = rateLimit;
        if (rl != null && !rl.admit()) {
            return Fault.THROTTLE;
        }
        for (Rule r : rules) {
            if (r.op == op && r.remaining.getAndDecrement() > 0) {
                return r.fault;
            }
        }
        return null;
    }

    private <T> Mono<T> inject(OpClass op, String what, Supplier<Mono<T>> call) {
        return Mono.defer(() -> {
            Fault f = next(op);
            if (f == null) {
                return call.get();
            }
            return switch (f) {
                case THROTTLE -> {
                    counters.request(op);
                    yield Mono.error(new ThrottledException("injected: " + what + " HTTP 503 SlowDown", 503, "SlowDown", null));
                }
                case SERVER_ERROR -> {
                    counters.request(op);
                    yield Mono.error(new TransientObjectStoreException("injected: " + what + " HTTP 500", 500,
                            "InternalError", null));
                }
                case LOST_RESPONSE -> call.get().flatMap(v -> {
                    if (v instanceof Buffer b) {
                        b.release();
                    }
                    return Mono.<T>error(new TransientObjectStoreException(
                            "injected: " + what + " applied, response lost (HTTP 503)", 503, null, null));
                });
                case HANG -> {
                    counters.request(op);
                    yield Mono.never();
                }
                case TRUNCATE -> call.get().flatMap(v -> {
                    if (v instanceof Buffer b) {
                        long size = b.size();
                        b.release();
                        return Mono.<T>error(new TruncatedReadException(what, size, size / 2));
                    }
                    return Mono.just(v);
                });
            };
        });
    }

    @Override
    public String uri() {
        return inner.uri();
    }

    @Override
    public StoreTraits traits() {
        StoreTraits t = traits;
        return t != null ? t : inner.traits();
    }

    @Override
    public StoreCounters counters() {
        return counters;
    }

    @Override
    public Mono<Buffer> read(String path, long offset, long length) {
        return inject(OpClass.READ, "read " + path, () -> inner.read(path, offset, length));
    }

    @Override
    public Mono<Buffer> readTail(String path, long length) {
        return inject(OpClass.READ, "read " + path, () -> inner.readTail(path, length));
    }

    @Override
    public Mono<Buffer> readAll(String path) {
        return inject(OpClass.READ, "read " + path, () -> inner.readAll(path));
    }

    @Override
    public Mono<ObjectMeta> head(String path) {
        return inject(OpClass.READ, "head " + path, () -> inner.head(path));
    }

    @Override
    public Mono<ObjectMeta> put(String path, MemorySegment data) {
        return inject(OpClass.WRITE, "put " + path, () -> inner.put(path, data));
    }

    @Override
    public Mono<ObjectMeta> put(String path, Flux<ByteBuffer> data) {
        return inject(OpClass.WRITE, "put " + path, () -> inner.put(path, data));
    }

    @Override
    public Mono<ObjectMeta> putIfAbsent(String path, MemorySegment data) {
        return inject(OpClass.WRITE, "create " + path, () -> inner.putIfAbsent(path, data));
    }

    @Override
    public Mono<ListPage> listPage(String prefix, String delimiter, String pageToken, int maxKeys) {
        return inject(OpClass.LIST, "list " + prefix, () -> inner.listPage(prefix, delimiter, pageToken, maxKeys));
    }

    @Override
    public Mono<Void> delete(String path) {
        return inject(OpClass.DELETE, "delete " + path, () -> inner.delete(path));
    }

    @Override
    public Mono<ObjectMeta> copy(String from, String to) {
        return inject(OpClass.WRITE, "copy " + from, () -> inner.copy(from, to));
    }

    @Override
    public void close() {
        inner.close();
    }

    /** A server-side limit: at most {@code perSecond} admitted per one-second window. */
    private static final class RateLimit {
        private final double perSecond;
        private final Scheduler clock;
        private long windowStart = Long.MIN_VALUE;
        private long count;

        RateLimit(double perSecond, Scheduler clock) {
            this.perSecond = perSecond;
            this.clock = clock;
        }

        synchronized boolean admit() {
            long now = clock.now(TimeUnit.NANOSECONDS);
            long w = Duration.ofSeconds(1).toNanos();
            if (windowStart == Long.MIN_VALUE || now - windowStart >= w) {
                windowStart = now - (windowStart == Long.MIN_VALUE ? 0 : (now - windowStart) % w);
                count = 0;
            }
            return ++count <= perSecond;
        }
    }

    @Override
    public Mono<Integer> removeStaleTemporaries(String prefix, java.time.Instant olderThan) {
        return inner.removeStaleTemporaries(prefix, olderThan);
    }
}
