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
}
