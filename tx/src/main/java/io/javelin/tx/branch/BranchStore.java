package io.javelin.tx.branch;

import io.javelin.tx.RefAlreadyExistsException;
import io.javelin.tx.RefNotFoundException;
import io.javelin.tx.store.ManifestStore;
import io.javelin.tx.store.StoreAlreadyExistsException;
import io.javelin.tx.store.StoreNotFoundException;
import java.util.Map;
import java.util.TreeMap;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** Branch references of a (main) dataset; the branch datasets themselves live under {@code tree/{name}/}. */
public final class BranchStore {

    public static final String DIR = "_refs/branches/";

    private final ManifestStore store;

    public BranchStore(ManifestStore store) {
        this.store = store;
    }

    public Mono<Branch> create(Branch b) {
        return Mono.defer(() -> store.putIfAbsent(BranchNames.refPath(b.name()), BranchJson.encode(b)).thenReturn(b))
                .onErrorMap(StoreAlreadyExistsException.class, e -> new RefAlreadyExistsException("Branch " + b.name() + " already exists"));
    }

    public Mono<Branch> read(String name) {
        return Mono.defer(() -> {
            String path = BranchNames.refPath(name);
            return store.read(path).map(bytes -> BranchJson.decode(name, path, bytes))
                    .onErrorMap(StoreNotFoundException.class, e -> new RefNotFoundException("Branch " + name + " does not exist"));
        });
    }

    public Mono<Map<String, Branch>> list() {
        return store.list(DIR)
                .filter(e -> e.name().endsWith(".json") && e.path().equals(DIR + e.name()))
                .map(e -> e.name().substring(0, e.name().length() - ".json".length()).replace("%2F", "/").replace("%2f", "/"))
                .flatMap(this::read, 8)
                .collectMap(Branch::name, b -> b, TreeMap::new)
                .map(m -> (Map<String, Branch>) m);
    }

    /** Deletes the reference, then every object of the branch dataset. */
    public Mono<Void> delete(String name) {
        return read(name).flatMap(b -> store.delete(BranchNames.refPath(name)))
                .then(Mono.defer(() -> store.list(BranchNames.root(name)).flatMap(e -> store.delete(e.path()), 8).then()));
    }

}
