package io.javelin.jmh.objectstore;

import io.javelin.objectstore.ListPage;
import io.javelin.objectstore.ObjectMeta;
import io.javelin.objectstore.ObjectStore;
import io.javelin.objectstore.metrics.StoreCounters;
import io.javelin.objectstore.StoreTraits;
import io.javelin.objectstore.memory.Buffer;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.time.Duration;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A store that answers every read (GET, HEAD) a fixed latency later than the store it wraps, and plans like
 * a cloud store (64 concurrent requests, 64 KiB merge gap, no batched local reads): a local file behaves
 * like an object in S3 with that first-byte latency and unlimited bandwidth. The delay comes before the
 * read, so a cancelled request holds no buffer. Writes and listings pass through undelayed.
 */
public final class LatencyObjectStore implements ObjectStore {

    private final ObjectStore inner;
    private final Duration latency;

    public LatencyObjectStore(ObjectStore inner, Duration latency) {
        this.inner = inner;
        this.latency = latency;
    }

    private <T> Mono<T> delayed(Mono<T> m) {
        return Mono.delay(latency).then(m);
    }

    @Override
    public String uri() {
        return inner.uri();
    }

    @Override
    public StoreTraits traits() {
        return StoreTraits.cloudDefaults();
    }

    @Override
    public StoreCounters counters() {
        return inner.counters();
    }

    @Override
    public Mono<Buffer> read(String path, long offset, long length) {
        return delayed(inner.read(path, offset, length));
    }

    @Override
    public Mono<Buffer> readTail(String path, long length) {
        return delayed(inner.readTail(path, length));
    }

    @Override
    public Mono<Buffer> readAll(String path) {
        return delayed(inner.readAll(path));
    }

    @Override
    public Mono<ObjectMeta> head(String path) {
        return delayed(inner.head(path));
    }

    @Override
    public Mono<ObjectMeta> put(String path, MemorySegment data) {
        return inner.put(path, data);
    }

    @Override
    public Mono<ObjectMeta> put(String path, Flux<ByteBuffer> data) {
        return inner.put(path, data);
    }

    @Override
    public Mono<ObjectMeta> putIfAbsent(String path, MemorySegment data) {
        return inner.putIfAbsent(path, data);
    }

    @Override
    public Mono<ListPage> listPage(String prefix, String delimiter, String pageToken, int maxKeys) {
        return inner.listPage(prefix, delimiter, pageToken, maxKeys);
    }

    @Override
    public Mono<Void> delete(String path) {
        return inner.delete(path);
    }

    @Override
    public Mono<ObjectMeta> copy(String from, String to) {
        return inner.copy(from, to);
    }

    @Override
    public void close() {
        // the wrapped store belongs to the caller
    }
}
