package io.javelin.tx.store;

import io.javelin.objectstore.ObjectAlreadyExistsException;
import io.javelin.objectstore.ObjectNotFoundException;
import io.javelin.objectstore.ObjectStore;
import io.javelin.objectstore.memory.Buffer;
import java.lang.foreign.ValueLayout;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The engine's {@link ObjectStore} as a {@link ManifestStore} for one dataset: prefixes the dataset's
 * root, copies the (small) metadata objects out of their off-heap buffers and releases them at once,
 * and maps the typed store errors. Retries and throttling stay in the object store's own policy; an
 * "already exists" that follows an ambiguous attempt keeps that flag so the commit can read back.
 */
public final class ObjectStoreManifestStore implements ManifestStore {

    private final ObjectStore store;
    private final String root;

    /** {@code root}: the dataset's key prefix in {@code store} ("" or e.g. "tables/t1.lance/"). */
    public ObjectStoreManifestStore(ObjectStore store, String root) {
        this.store = store;
        this.root = root.isEmpty() || root.endsWith("/") ? root : root + "/";
    }

    @Override
    public Mono<byte[]> read(String path) {
        return store.readAll(root + path)
                .map(ObjectStoreManifestStore::copyAndRelease)
                .doOnDiscard(Buffer.class, Buffer::release)
                .onErrorMap(ObjectNotFoundException.class, e -> new StoreNotFoundException(path));
    }

    @Override
    public Mono<byte[]> readRange(String path, long offset, int length) {
        return store.read(root + path, offset, length)
                .map(ObjectStoreManifestStore::copyAndRelease)
                .doOnDiscard(Buffer.class, Buffer::release)
                .onErrorMap(ObjectNotFoundException.class, e -> new StoreNotFoundException(path));
    }

    private static byte[] copyAndRelease(Buffer b) {
        try {
            return b.segment().toArray(ValueLayout.JAVA_BYTE);
        } finally {
            b.release();
        }
    }

    @Override
    public Mono<Void> put(String path, byte[] bytes) {
        return store.put(root + path, bytes).then();
    }

    @Override
    public Mono<Void> putIfAbsent(String path, byte[] bytes) {
        return store.putIfAbsent(root + path, bytes).then()
                .onErrorMap(ObjectAlreadyExistsException.class,
                        e -> new StoreAlreadyExistsException(path, e.afterAmbiguousAttempt()));
    }

    @Override
    public Flux<StoreEntry> list(String prefix) {
        return store.list(root + prefix).map(m -> new StoreEntry(m.path().substring(root.length()), m.size()));
    }

    @Override
    public Mono<Void> delete(String path) {
        return store.delete(root + path);
    }

    @Override
    public boolean listsInLexicalOrder() {
        return store.traits().listIsLexicallyOrdered();
    }
}
