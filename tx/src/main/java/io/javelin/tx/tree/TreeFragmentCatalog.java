package io.javelin.tx.tree;

import io.javelin.tx.FragmentCatalog;
import io.javelin.tx.FragmentInfo;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReference;
import reactor.core.publisher.Mono;

/**
 * The fragments of a tree-backed version: counts from the opened root (no leaf I/O), the full
 * list streamed from the leaves once on first use, single fragments along their routing path.
 */
public final class TreeFragmentCatalog implements FragmentCatalog {

    private final TreeSnapshot tree;
    private final AtomicReference<List<FragmentInfo>> loaded = new AtomicReference<>();
    private final Mono<List<FragmentInfo>> list;

    public TreeFragmentCatalog(TreeSnapshot tree) {
        this.tree = tree;
        this.list = tree.fragments().map(FragmentInfo::of).collectList().map(List::copyOf)
                .doOnNext(loaded::set)
                // a successful listing is kept; a failed one is retried by the next subscriber
                .cache(l -> java.time.Duration.ofMillis(Long.MAX_VALUE), e -> java.time.Duration.ZERO,
                        () -> java.time.Duration.ZERO);
    }

    /** The opened tree (shape, descriptor, reachability). */
    public TreeSnapshot tree() {
        return tree;
    }

    @Override
    public boolean lazy() {
        return true;
    }

    @Override
    public long fragmentCount() {
        return tree.fragmentCount();
    }

    @Override
    public long physicalRows() {
        return tree.totalRows();
    }

    @Override
    public long liveRows() {
        return tree.visibleRows();
    }

    @Override
    public Mono<List<FragmentInfo>> list() {
        List<FragmentInfo> l = loaded.get();
        return l != null ? Mono.just(l) : list;
    }

    @Override
    public Optional<List<FragmentInfo>> loaded() {
        return Optional.ofNullable(loaded.get());
    }

    @Override
    public Mono<Map<Long, FragmentInfo>> resolve(Collection<Long> ids) {
        List<FragmentInfo> l = loaded.get();
        if (l != null) {
            return Mono.just(fromList(l, ids));
        }
        return tree.resolveAll(new TreeSet<>(ids)).map(m -> {
            Map<Long, FragmentInfo> out = new LinkedHashMap<>();
            new TreeSet<>(m.keySet()).forEach(id -> out.put(id, FragmentInfo.of(m.get(id))));
            return out;
        });
    }

    private static Map<Long, FragmentInfo> fromList(List<FragmentInfo> l, Collection<Long> ids) {
        java.util.Set<Long> want = new java.util.HashSet<>(ids);
        Map<Long, FragmentInfo> out = new LinkedHashMap<>();
        for (FragmentInfo f : l) {
            if (want.contains(f.id())) {
                out.put(f.id(), f);
            }
        }
        return out;
    }
}
