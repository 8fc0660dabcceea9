package io.javelin.tx.store;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** Wraps a store and injects failures into create-if-absent calls, chosen per (path, call number). */
public final class FaultyStore implements ManifestStore {

    /** What to do with one putIfAbsent call. */
    public enum Fault {
        NONE,
        /** 503 before the write happened. */
        FAIL_BEFORE,
        /** The write happened but the response was lost (503 after). */
        LOSE_ACK,
        /** Report "already exists" without writing. */
        FAKE_EXISTS
    }

    private final ManifestStore delegate;
    private final BiFunction<String, Integer, Fault> faults;
    private final AtomicInteger calls = new AtomicInteger();

    public FaultyStore(ManifestStore delegate, BiFunction<String, Integer, Fault> faults) {
        this.delegate = delegate;
        this.faults = faults;
    }

    public static final class Unavailable extends RuntimeException {
        public Unavailable(String path) {
            super("503 Service Unavailable: " + path);
        }
    }

    @Override
    public Mono<Void> putIfAbsent(String path, byte[] bytes) {
        return Mono.defer(() -> {
            Fault f = faults.apply(path, calls.incrementAndGet());
            return switch (f) {
                case NONE -> delegate.putIfAbsent(path, bytes);
                case FAIL_BEFORE -> Mono.error(new Unavailable(path));
                case LOSE_ACK -> delegate.putIfAbsent(path, bytes).then(Mono.error(new Unavailable(path)));
                case FAKE_EXISTS -> Mono.error(new StoreAlreadyExistsException(path));
            };
        });
    }

    @Override
    public Mono<byte[]> read(String path) {
        return delegate.read(path);
    }

    @Override
    public Mono<Void> put(String path, byte[] bytes) {
        return delegate.put(path, bytes);
    }

    @Override
    public Flux<StoreEntry> list(String prefix) {
        return delegate.list(prefix);
    }

    @Override
    public Mono<Void> delete(String path) {
        return delegate.delete(path);
    }

    @Override
    public boolean listsInLexicalOrder() {
        return delegate.listsInLexicalOrder();
    }
}
