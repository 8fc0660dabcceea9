package io.javelin.tx.tree;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Cleanup support: which {@code _bt/} objects of the current dataset no retained version reaches.
 * Deleting them is the caller's job, under the same age and in-progress rules as data files.
 */
public final class TreeCleanup {

    private TreeCleanup() {
    }

    /** The reachable tree objects of all retained versions (roots, nodes, leaves; any dataset). */
    public static Mono<Set<ObjectLocation>> reachable(List<TreeSnapshot> retained) {
        return Flux.fromIterable(retained).concatMap(TreeSnapshot::treeObjects)
                .collect(HashSet<ObjectLocation>::new, Set::addAll).map(s -> (Set<ObjectLocation>) s);
    }

    /** Objects under the current dataset's {@code _bt/} that no retained version reaches. */
    public static Mono<Set<ObjectLocation>> unreachable(TreeStore store, List<TreeSnapshot> retained) {
        return reachable(retained).flatMap(keep -> store.list("", TreePaths.PREFIX)
                .filter(l -> !keep.contains(l))
                .collect(HashSet<ObjectLocation>::new, Set::add)
                .map(s -> (Set<ObjectLocation>) s));
    }

    /**
     * What cleanup of a table must keep for the tree versions among {@code retained} (flat manifests
     * are ignored here: their files are in the manifest).
     *
     * @param keepTreeObjects      {@code _bt/} paths of this dataset reachable from a retained version
     * @param unreachableTreeObjects {@code _bt/} paths of this dataset no retained version reaches
     *                             (candidates: the caller applies the same age / in-progress rules as for data files)
     * @param referencedFiles      data, deletion and row-id files of this dataset named by the resolved
     *                             fragment state of a retained tree version (relative paths, e.g. {@code data/x.lance})
     */
    public record Plan(Set<String> keepTreeObjects, Set<String> unreachableTreeObjects, Set<String> referencedFiles) {
    }

    /** Reachability over every retained tree manifest of a table, buffers and suffixes applied (spec 000). */
    public static Mono<Plan> plan(io.javelin.tx.store.ManifestStore store, List<io.javelin.tx.pb.Manifest> retained) {
        return Flux.fromIterable(retained).filter(io.javelin.tx.pb.Manifest::hasFragmentTree)
                .concatMap(m -> TreeTables.open(store, m)).collectList().flatMap(trees -> {
                    Mono<Set<ObjectLocation>> files = Flux.fromIterable(trees).concatMap(TreeSnapshot::referencedFiles)
                            .collect(HashSet<ObjectLocation>::new, Set::addAll);
                    TreeStore tstore = new ManifestStoreTreeStore(store);
                    return Mono.zip(reachable(trees), unreachable(tstore, trees), files).map(t -> new Plan(
                            local(t.getT1()), local(t.getT2()), local(t.getT3())));
                });
    }

    private static Set<String> local(Set<ObjectLocation> locations) {
        Set<String> out = new java.util.TreeSet<>();
        for (ObjectLocation l : locations) {
            if (l.dataset().isEmpty()) {
                out.add(l.path());
            }
        }
        return out;
    }
}
