package io.javelin.testing;

import io.javelin.objectstore.ListPage;
import io.javelin.objectstore.ObjectMeta;
import io.javelin.objectstore.ObjectStore;
import io.javelin.objectstore.ObjectStoreTimeoutException;
import io.javelin.objectstore.StoreTraits;
import io.javelin.objectstore.ThrottledException;
import io.javelin.objectstore.TransientObjectStoreException;
import io.javelin.objectstore.memory.Buffer;
import io.javelin.objectstore.metrics.StoreCounters;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Random faults below the retry policy, at a fixed rate per request: 503 SlowDown (throttling), 500,
 * a timeout after a delay (request not applied), and — for writes — the request applied and then its
 * acknowledgement lost. Wrap a raw store with this and put the production {@code ResilientObjectStore}
 * on top, so the real retry, AIMD and lost-ack paths run. Counts every injected fault.
 */
public final class ChaosObjectStore implements ObjectStore {

    public enum Kind { THROTTLE, SERVER_ERROR, TIMEOUT, LOST_ACK }

    private final ObjectStore inner;
    private final double rate;
    private final SplittableRandom seedSource;
    private volatile boolean enabled = true;
    /** Paths whose reads fail until the given nano time (after a lost acknowledgement of a create). */
    private final java.util.Map<String, Long> darkUntil = new java.util.concurrent.ConcurrentHashMap<>();
    private volatile long darkNanos;
    private volatile double darkProbability;
    /** Reads failed because their path was dark, and creates that made their path dark. */
    public final AtomicLong darkReads = new AtomicLong();
    public final AtomicLong darkened = new AtomicLong();
    public final AtomicLong requests = new AtomicLong();
    public final AtomicLong[] injected = {new AtomicLong(), new AtomicLong(), new AtomicLong(), new AtomicLong()};

    public ChaosObjectStore(ObjectStore inner, double rate, long seed) {
        this.inner = inner;
        this.rate = rate;
        this.seedSource = new SplittableRandom(seed);
    }

    /**
     * With {@code probability}, a create-if-absent whose acknowledgement is lost also reads as 404 for
     * {@code duration} (a stale replica or cache): the writer's read-back cannot tell whether it won, so
     * the outcome is reported as unknown (the path that makes callers resolve it from the history).
     * Listing still shows the object.
     */
    public ChaosObjectStore withDarkAfterLostCreate(Duration duration, double probability) {
        this.darkNanos = duration.toNanos();
        this.darkProbability = probability;
        return this;
    }

    /** Faults off (for verification reads after the torture). */
    public void disable() {
        enabled = false;
    }

    public long injectedTotal() {
        long n = 0;
        for (AtomicLong a : injected) {
            n += a.get();
        }
        return n;
    }

    private synchronized double roll() {
        return seedSource.nextDouble();
    }

    private Kind pick(boolean write) {
        requests.incrementAndGet();
        if (!enabled || roll() >= rate) {
            return null;
        }
        double r = roll();
        Kind k = r < 0.4 ? Kind.THROTTLE : r < 0.55 ? Kind.SERVER_ERROR : r < 0.7 ? Kind.TIMEOUT
                : write ? Kind.LOST_ACK : Kind.THROTTLE;
        injected[k.ordinal()].incrementAndGet();
        return k;
    }

    private <T> Mono<T> chaos(boolean write, String what, Supplier<Mono<T>> call) {
        return chaos(write, what, null, false, call);
    }

    private <T> Mono<T> chaos(boolean write, String what, String path, boolean create, Supplier<Mono<T>> call) {
        return Mono.defer(() -> {
            if (path != null && !write && enabled) {
                Long until = darkUntil.get(path);
                if (until != null && System.nanoTime() < until) {
                    darkReads.incrementAndGet();
                    return Mono.error(new io.javelin.objectstore.ObjectNotFoundException(path,
                            new IllegalStateException("chaos: stale 404 after a lost create")));
                }
            }
            Kind k = pick(write);
            if (k == Kind.LOST_ACK && create && darkNanos > 0 && roll() < darkProbability) {
                darkened.incrementAndGet();
                darkUntil.put(path, System.nanoTime() + darkNanos);
            }
            if (k == null) {
                return call.get();
            }
            return switch (k) {
                case THROTTLE -> Mono.error(new ThrottledException("chaos: " + what + " HTTP 503 SlowDown", 503, "SlowDown", null));
                case SERVER_ERROR -> Mono.error(new TransientObjectStoreException("chaos: " + what + " HTTP 500", 500,
                        "InternalError", null));
                case TIMEOUT -> Mono.delay(Duration.ofMillis(20)).then(Mono.error(
                        new ObjectStoreTimeoutException("chaos: " + what, Duration.ofMillis(20), null)));
                case LOST_ACK -> call.get().flatMap(v -> {
                    if (v instanceof Buffer b) {
                        b.release();
                    }
                    return Mono.<T>error(new TransientObjectStoreException(
                            "chaos: " + what + " applied, response lost (HTTP 503)", 503, null, null));
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
        return inner.traits();
    }

    @Override
    public StoreCounters counters() {
        return inner.counters();
    }

    @Override
    public Mono<Buffer> read(String path, long offset, long length) {
        return chaos(false, "read " + path, path, false, () -> inner.read(path, offset, length));
    }

    @Override
    public Mono<Buffer> readTail(String path, long length) {
        return chaos(false, "readTail " + path, path, false, () -> inner.readTail(path, length));
    }

    @Override
    public Mono<Buffer> readAll(String path) {
        return chaos(false, "readAll " + path, path, false, () -> inner.readAll(path));
    }

    @Override
    public Mono<ObjectMeta> head(String path) {
        return chaos(false, "head " + path, path, false, () -> inner.head(path));
    }

    @Override
    public Mono<ObjectMeta> put(String path, MemorySegment data) {
        return chaos(true, "put " + path, () -> inner.put(path, data));
    }

    @Override
    public Mono<ObjectMeta> put(String path, Flux<ByteBuffer> data) {
        return chaos(true, "put " + path, () -> inner.put(path, data));
    }

    @Override
    public Mono<ObjectMeta> putIfAbsent(String path, MemorySegment data) {
        return chaos(true, "putIfAbsent " + path, path, true, () -> inner.putIfAbsent(path, data));
    }

    @Override
    public Mono<ListPage> listPage(String prefix, String delimiter, String pageToken, int maxKeys) {
        return chaos(false, "list " + prefix, () -> inner.listPage(prefix, delimiter, pageToken, maxKeys));
    }

    @Override
    public Mono<Void> delete(String path) {
        return chaos(true, "delete " + path, () -> inner.delete(path));
    }

    @Override
    public Mono<ObjectMeta> copy(String from, String to) {
        return chaos(true, "copy " + from, () -> inner.copy(from, to));
    }

    @Override
    public void close() {
        inner.close();
    }

    @Override
    public Mono<Integer> removeStaleTemporaries(String prefix, java.time.Instant olderThan) {
        return inner.removeStaleTemporaries(prefix, olderThan);
    }
}
