package io.javelin.tx.tree;

import io.javelin.tx.UnsupportedFeatureException;
import io.javelin.tx.store.ManifestStore;
import io.javelin.tx.store.StoreNotFoundException;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Tree objects through the table's {@link ManifestStore} (paths relative to the dataset root).
 * Objects of another dataset (a shallow clone's or branch's shared source subtrees, named through a
 * BasePath) are read through a store opened on that dataset's root with default storage options
 * (environment credentials), once per root and process; they are never written or listed.
 */
public final class ManifestStoreTreeStore implements TreeStore {

    /** Stores of other datasets' roots, opened on first use and kept for the process. */
    private static final java.util.concurrent.ConcurrentHashMap<String, ManifestStore> OTHERS =
            new java.util.concurrent.ConcurrentHashMap<>();

    private final ManifestStore store;

    public ManifestStoreTreeStore(ManifestStore store) {
        this.store = store;
    }

    @Override
    public Object identity() {
        return store;
    }

    private static String path(ObjectLocation l) {
        if (!l.dataset().isEmpty()) {
            throw new UnsupportedFeatureException("Tree object " + l + " belongs to another dataset;"
                    + " tree objects of other datasets are never written");
        }
        return l.path();
    }

    /** The store holding {@code l}: this table's, or the other dataset's root store (read only). */
    private ManifestStore reading(ObjectLocation l) {
        if (l.dataset().isEmpty()) {
            return store;
        }
        return OTHERS.computeIfAbsent(l.dataset(), root -> new io.javelin.tx.store.ObjectStoreManifestStore(
                io.javelin.objectstore.ObjectStores.open(root), ""));
    }

    @Override
    public Mono<Void> put(ObjectLocation location, byte[] bytes) {
        return Mono.defer(() -> store.put(path(location), bytes));
    }

    @Override
    public Mono<byte[]> get(ObjectLocation location) {
        return Mono.defer(() -> reading(location).read(location.path()))
                .onErrorMap(StoreNotFoundException.class, e -> new CorruptSnapshotException(Rule.R08_OBJECT_ENCODING,
                        "tree object " + location + " is missing", e));
    }

    @Override
    public Mono<byte[]> getRange(ObjectLocation location, long offset, int length) {
        return Mono.defer(() -> reading(location).readRange(location.path(), offset, length))
                .onErrorMap(StoreNotFoundException.class, e -> new CorruptSnapshotException(Rule.R08_OBJECT_ENCODING,
                        "tree object " + location + " is missing", e));
    }

    @Override
    public Flux<ObjectLocation> list(String dataset, String prefix) {
        return Flux.defer(() -> {
            if (!dataset.isEmpty()) {
                return Flux.error(new UnsupportedFeatureException("cannot list another dataset: " + dataset));
            }
            return store.list(prefix).map(e -> new ObjectLocation("", e.path()));
        });
    }
}
