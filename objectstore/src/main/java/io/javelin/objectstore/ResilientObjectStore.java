package io.javelin.objectstore;

import io.javelin.objectstore.memory.Buffer;
import io.javelin.objectstore.metrics.StoreCounters;
import io.javelin.objectstore.throttle.RequestPolicy;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.Collection;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Puts a {@link RequestPolicy} (AIMD limiter, timeout, retries) around every request of a raw
 * store. Streaming puts pass through: they cannot be replayed, so the raw store retries their parts.
 */
public final class ResilientObjectStore implements ObjectStore {

    private final ObjectStore inner;
    private final RequestPolicy policy;

    public ResilientObjectStore(ObjectStore inner, RequestPolicy policy) {
        this.inner = inner;
        this.policy = policy;
    }

    public ObjectStore inner() {
        return inner;
    }

    public RequestPolicy policy() {
        return policy;
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
        return policy.execute(OpClass.READ, "read " + path, () -> inner.read(path, offset, length))
                .doOnDiscard(Buffer.class, Buffer::release);
    }

    @Override
    public boolean batchesReads() {
        return inner.batchesReads();
    }

    @Override
    public Mono<java.util.List<Buffer>> readBatch(String path, java.util.List<ByteRange> ranges) {
        return policy.execute(OpClass.READ, "read " + path, () -> inner.readBatch(path, ranges))
                .doOnDiscard(java.util.List.class, l -> l.forEach(b -> ((Buffer) b).release()));
    }

    @Override
    public Mono<Buffer> readInto(String path, long offset, Buffer dst) {
        // Every attempt gets its own handle, which the attempt should release when it fails or is cancelled. At the
        // end every attempt's handle but the delivered one is released here again (release is idempotent per
        // handle): a cancel racing an attempt's end could strand one (Azure, about 1 in 700 cancelled reads).
        java.util.List<Buffer> attempts = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
        java.util.concurrent.atomic.AtomicReference<Buffer> delivered = new java.util.concurrent.atomic.AtomicReference<>();
        return policy.execute(OpClass.READ, "read " + path, () -> Mono.defer(() -> {
                    Buffer handle = dst.share();
                    attempts.add(handle);
                    return inner.readInto(path, offset, handle);
                }))
                .doOnDiscard(Buffer.class, Buffer::release)
                .doOnNext(delivered::set)
                .doFinally(sig -> {
                    Buffer kept = delivered.get();
                    synchronized (attempts) {
                        attempts.forEach(h -> {
                            if (h != kept) {
                                h.release();
                            }
                        });
                    }
                    dst.release();
                });
    }

    @Override
    public Mono<Buffer> readTail(String path, long length) {
        return policy.execute(OpClass.READ, "read tail of " + path, () -> inner.readTail(path, length))
                .doOnDiscard(Buffer.class, Buffer::release);
    }

    @Override
    public Mono<Buffer> readAll(String path) {
        return policy.execute(OpClass.READ, "read " + path, () -> inner.readAll(path))
                .doOnDiscard(Buffer.class, Buffer::release);
    }

    @Override
    public Mono<ObjectMeta> head(String path) {
        return policy.execute(OpClass.READ, "head " + path, () -> inner.head(path));
    }

    @Override
    public Mono<ObjectMeta> put(String path, MemorySegment data) {
        return policy.execute(OpClass.WRITE, "put " + path, () -> inner.put(path, data));
    }

    @Override
    public Mono<ObjectMeta> put(String path, Flux<ByteBuffer> data) {
        return inner.put(path, data);
    }

    @Override
    public Mono<ObjectMeta> putIfAbsent(String path, MemorySegment data) {
        return policy.executeCreate("create " + path, () -> inner.putIfAbsent(path, data));
    }

    @Override
    public Mono<ObjectMeta> putIfAbsent(String path, Flux<ByteBuffer> data) {
        return inner.putIfAbsent(path, data);
    }

    @Override
    public Mono<ListPage> listPage(String prefix, String delimiter, String pageToken, int maxKeys) {
        return policy.execute(OpClass.LIST, "list " + prefix, () -> inner.listPage(prefix, delimiter, pageToken, maxKeys));
    }

    @Override
    public Mono<Integer> removeStaleTemporaries(String prefix, java.time.Instant olderThan) {
        return inner.removeStaleTemporaries(prefix, olderThan);
    }

    @Override
    public Mono<Void> delete(String path) {
        return policy.execute(OpClass.DELETE, "delete " + path, () -> inner.delete(path));
    }

    @Override
    public Mono<Void> deleteAll(Collection<String> paths) {
        return inner.deleteAll(paths);
    }

    @Override
    public Mono<ObjectMeta> copy(String from, String to) {
        return policy.execute(OpClass.WRITE, "copy " + from + " to " + to, () -> inner.copy(from, to));
    }

    @Override
    public void close() {
        inner.close();
    }

    @Override
    public String toString() {
        return "Resilient[" + inner + "]";
    }
}
