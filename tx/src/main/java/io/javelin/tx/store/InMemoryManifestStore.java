package io.javelin.tx.store;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A lexically ordered in-memory store (like S3) for tests and scratch datasets. Counts requests by kind
 * so tests can prove how many round trips an operation costs; {@code putIfAbsent} is atomic.
 */
public final class InMemoryManifestStore implements ManifestStore {

    private final ConcurrentSkipListMap<String, byte[]> objects = new ConcurrentSkipListMap<>();
    private final boolean lexical;
    private final AtomicLong reads = new AtomicLong();
    private final AtomicLong writes = new AtomicLong();
    private final AtomicLong lists = new AtomicLong();
    private final AtomicLong deletes = new AtomicLong();

    public InMemoryManifestStore() {
        this(true);
    }

    /** {@code lexical=false} mimics a local directory: listings come back in a scrambled order. */
    public InMemoryManifestStore(boolean lexical) {
        this.lexical = lexical;
    }

    @Override
    public Mono<byte[]> read(String path) {
        return Mono.defer(() -> {
            reads.incrementAndGet();
            byte[] b = objects.get(path);
            return b == null ? Mono.error(new StoreNotFoundException(path)) : Mono.just(b.clone());
        });
    }

    @Override
    public Mono<Void> put(String path, byte[] bytes) {
        return Mono.fromRunnable(() -> {
            writes.incrementAndGet();
            objects.put(path, bytes.clone());
        });
    }

    @Override
    public Mono<Void> putIfAbsent(String path, byte[] bytes) {
        return Mono.defer(() -> {
            writes.incrementAndGet();
            return objects.putIfAbsent(path, bytes.clone()) == null
                    ? Mono.<Void>empty()
                    : Mono.error(new StoreAlreadyExistsException(path));
        });
    }

    @Override
    public Flux<StoreEntry> list(String prefix) {
        return Flux.defer(() -> {
            lists.incrementAndGet();
            List<StoreEntry> out = new ArrayList<>();
            for (Map.Entry<String, byte[]> e : objects.tailMap(prefix).entrySet()) {
                if (!e.getKey().startsWith(prefix)) {
                    break;
                }
                out.add(new StoreEntry(e.getKey(), e.getValue().length));
            }
            if (!lexical) {
                Collections.reverse(out); // any non-lexical order will do; reversed is the nastiest for V1
                if (out.size() > 2) {
                    Collections.swap(out, 0, out.size() / 2);
                }
            }
            return Flux.fromIterable(out);
        });
    }

    @Override
    public Mono<Void> delete(String path) {
        return Mono.fromRunnable(() -> {
            deletes.incrementAndGet();
            objects.remove(path);
        });
    }

    @Override
    public boolean listsInLexicalOrder() {
        return lexical;
    }

    /** Synchronous seeding for tests (not counted). */
    public void seed(String path, byte[] bytes) {
        objects.put(path, bytes.clone());
    }

    /** Synchronous peek for tests (not counted); null if absent. */
    public byte[] peek(String path) {
        byte[] b = objects.get(path);
        return b == null ? null : b.clone();
    }

    public List<String> paths() {
        return new ArrayList<>(objects.keySet());
    }

    public long reads() {
        return reads.get();
    }

    public long writes() {
        return writes.get();
    }

    public long lists() {
        return lists.get();
    }

    public long deletes() {
        return deletes.get();
    }

    public void resetCounters() {
        reads.set(0);
        writes.set(0);
        lists.set(0);
        deletes.set(0);
    }
}
