package io.javelin.tx.tree;

import io.javelin.tx.UnsupportedFeatureException;
import io.javelin.tx.store.ManifestStore;
import io.javelin.tx.store.StoreNotFoundException;
import java.util.Arrays;
import java.util.NoSuchElementException;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Tree objects of the current dataset through the table's {@link ManifestStore} (paths relative
 * to the dataset root). Objects of other datasets (shallow clones) are not reachable through it.
 */
public final class ManifestStoreTreeStore implements TreeStore {

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
                    + " cross-dataset tree references are not supported yet");
        }
        return l.path();
    }

    @Override
    public Mono<Void> put(ObjectLocation location, byte[] bytes) {
        return Mono.defer(() -> store.put(path(location), bytes));
    }

    @Override
    public Mono<byte[]> get(ObjectLocation location) {
        return Mono.defer(() -> store.read(path(location)))
                .onErrorMap(StoreNotFoundException.class, e -> new CorruptSnapshotException(Rule.R08_OBJECT_ENCODING,
                        "tree object " + location + " is missing", e));
    }

    @Override
    public Mono<byte[]> getRange(ObjectLocation location, long offset, int length) {
        return get(location).map(b -> {
            if (offset < 0 || offset + length > b.length) {
                throw new NoSuchElementException("range " + offset + "+" + length + " of " + b.length);
            }
            return Arrays.copyOfRange(b, (int) offset, (int) offset + length);
        });
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
