package io.javelin.engine;

import io.javelin.objectstore.memory.Buffer;
import io.javelin.tx.InvalidNameException;
import io.javelin.tx.branch.Branch;
import io.javelin.tx.branch.BranchNames;
import io.javelin.tx.branch.BranchStore;
import io.javelin.tx.branch.Clones;
import io.javelin.tx.deletion.DeletionFiles;
import io.javelin.tx.manifest.ManifestCodec;
import io.javelin.tx.maintenance.CleanupPlanner;
import io.javelin.tx.pb.DataFile;
import io.javelin.tx.pb.DataFragment;
import io.javelin.tx.store.ManifestStore;
import io.javelin.tx.store.ObjectStoreManifestStore;
import io.javelin.tx.transaction.TransactionFiles;
import io.javelin.tx.version.ManifestNaming;
import io.javelin.tx.version.VersionResolver;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Branches and clones, laid out as Lance 7.0.0 does: a branch is a shallow clone of a main version at
 * {@code tree/{name}/} (its first manifest keeps the version number, sets {@code Manifest.branch} and points
 * at the main root through base path 0), then {@code _refs/branches/{name}.json}. A shallow clone is the same
 * at another URI without the branch; a deep clone copies the files of this root and keeps the manifest.
 */
final class Branches {

    private Branches() {
    }

    static Mono<Dataset> create(Dataset ds, String name) {
        return Mono.defer(() -> {
            BranchNames.check(name);
            if (ds.snapshot().manifestFile().manifest().hasBranch()) {
                return Mono.error(new InvalidNameException("Create branches from a main-dataset version (this is branch "
                        + ds.snapshot().manifestFile().manifest().getBranch() + ")"));
            }
            Dataset.Handle h = ds.handle();
            Instant now = Instant.now();
            return treeShared(ds, Clones.shallow(ds.snapshot().manifestFile(), BasePaths.rootPath(h.uri), null, name, now))
                    .flatMap(c -> publishBranch(ds, name, now, c));
        });
    }

    private static Mono<Dataset> publishBranch(Dataset ds, String name, Instant now, Clones.Cloned c) {
        return Mono.defer(() -> {
            Dataset.Handle h = ds.handle();
            ManifestStore target = new ObjectStoreManifestStore(h.store, BranchNames.root(name));
            byte[] bytes = ManifestCodec.encode(c.manifest(), c.indexSection(), c.transaction());
            Branch ref = new Branch(name, null, ds.version(), now.getEpochSecond(), bytes.length,
                    List.of(new Branch.VersionMapping(ds.version(), uuidHex())), Map.of());
            return new BranchStore(h.manifests).read(name).map(b -> true)
                    .onErrorResume(io.javelin.tx.RefNotFoundException.class, e -> Mono.just(false))
                    .flatMap(exists -> exists ? Mono.error(new io.javelin.tx.RefAlreadyExistsException("Branch " + name + " already exists"))
                            : TransactionFiles.write(target, c.transaction())
                                    .then(target.putIfAbsent(ManifestNaming.V2.path(ds.version()), bytes))
                                    .then(new BranchStore(h.manifests).create(ref)))
                    .then(Dataset.open(BasePaths.child(h.uri, BranchNames.root(name)), h.options));
        });
    }

    static Mono<Dataset> checkout(Dataset ds, String name) {
        Dataset.Handle h = ds.handle();
        return new BranchStore(h.manifests).read(name)
                .then(Mono.defer(() -> Dataset.open(BasePaths.child(h.uri, BranchNames.root(name)), h.options)));
    }

    static Mono<Dataset> shallowClone(Dataset ds, String targetUri, Map<String, String> targetOptions) {
        return Mono.defer(() -> {
            Clones.Cloned c = Clones.shallow(ds.snapshot().manifestFile(), BasePaths.rootPath(ds.uri()), null, null, Instant.now());
            return treeShared(ds, c).flatMap(cc -> publish(targetUri, targetOptions, cc, Flux.empty(), ds));
        });
    }

    /**
     * A tree table's clone or branch shares the source's tree objects through the new base path (the last
     * one {@link Clones#shallow} added); its own root is inline and remapped (spec 000 copy-and-remap).
     */
    private static Mono<Clones.Cloned> treeShared(Dataset ds, Clones.Cloned c) {
        io.javelin.tx.pb.Manifest src = ds.snapshot().manifestFile().manifest();
        if (!src.hasFragmentTree()) {
            return Mono.just(c);
        }
        int base = c.manifest().getBasePaths(c.manifest().getBasePathsCount() - 1).getId();
        return io.javelin.tx.tree.TreeClones.shallow(ds.handle().manifests, src, c.manifest(), base)
                .map(m -> new Clones.Cloned(m, c.indexSection(), c.transaction()));
    }

    static Mono<Dataset> deepClone(Dataset ds, String targetUri, Map<String, String> targetOptions) {
        return Mono.defer(() -> {
            Clones.Cloned c = Clones.deep(ds.snapshot().manifestFile(), BasePaths.rootPath(ds.uri()), null, Instant.now());
            Set<String> files = new HashSet<>();
            Set<String> indexUuids = new HashSet<>();
            CleanupPlanner.collect(ds.snapshot().manifestFile(), files, indexUuids);
            files.remove("_transactions/" + ds.snapshot().manifestFile().manifest().getTransactionFile());
            Flux<String> toCopy = Flux.concat(Flux.fromIterable(files),
                    Flux.fromIterable(indexUuids).concatMap(u -> ds.handle().store.list("_indices/" + u + "/").map(m -> m.path())));
            return publish(targetUri, targetOptions, c, toCopy, ds);
        });
    }

    /** Copies {@code files} (deep clone), then writes the clone's transaction and first manifest at {@code targetUri}. */
    private static Mono<Dataset> publish(String targetUri, Map<String, String> options, Clones.Cloned c, Flux<String> files, Dataset src) {
        return Mono.usingWhen(Mono.fromCallable(() -> Dataset.Handle.open(targetUri, options)),
                h -> new VersionResolver(h.manifests).latest().hasElement()
                        .onErrorResume(io.javelin.tx.VersionNotFoundException.class, e -> Mono.just(false))
                        .flatMap(exists -> exists ? Mono.error(new DatasetAlreadyExistsException(targetUri, -1, "Dataset already exists"))
                                : files.flatMap(p -> src.handle().store.readAll(p).flatMap(b -> h.store.put(p, b.segment())
                                        .doFinally(s -> b.release())).doOnDiscard(Buffer.class, Buffer::release), 4)
                                .then(TransactionFiles.write(h.manifests, c.transaction()))
                                .then(h.manifests.putIfAbsent(ManifestNaming.V2.path(c.manifest().getVersion()),
                                        ManifestCodec.encode(c.manifest(), c.indexSection(), c.transaction())))),
                h -> Mono.fromRunnable(h::release))
                .then(Mono.defer(() -> Dataset.open(targetUri, options)));
    }

    /** Files of the root that some branch version still names (cleanup must keep them). */
    static Mono<Set<String>> referencesIntoRoot(Dataset.Handle h) {
        return new BranchStore(h.manifests).list().flatMapMany(m -> Flux.fromIterable(m.keySet()))
                .concatMap(name -> {
                    VersionResolver r = new VersionResolver(new ObjectStoreManifestStore(h.store, BranchNames.root(name)));
                    return r.list().flatMapMany(Flux::fromIterable).concatMap(r::read, 4);
                })
                .collect(HashSet<String>::new, (acc, f) -> {
                    for (DataFragment fr : f.manifest().getFragmentsList()) {
                        for (DataFile df : fr.getFilesList()) {
                            if (df.hasBaseId()) {
                                acc.add("data/" + df.getPath());
                            }
                        }
                        if (fr.hasDeletionFile() && fr.getDeletionFile().hasBaseId()) {
                            acc.add(DeletionFiles.path(fr.getId(), fr.getDeletionFile()));
                        }
                    }
                })
                .map(s -> (Set<String>) s);
    }

    private static String uuidHex() {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        return String.format("%016x%016x", (r.nextLong() & ~0xF000L) | 0x4000L, (r.nextLong() & 0x3FFF_FFFF_FFFF_FFFFL) | 0x8000_0000_0000_0000L);
    }
}
