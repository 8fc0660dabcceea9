package io.javelin.tx;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import reactor.core.publisher.Mono;

/** The fragment list of a flat manifest: everything is in memory. */
final class FlatFragmentCatalog implements FragmentCatalog {

    private final List<FragmentInfo> fragments;
    private final Map<Long, FragmentInfo> byId = new LinkedHashMap<>();

    FlatFragmentCatalog(List<FragmentInfo> fragments) {
        this.fragments = List.copyOf(fragments);
        fragments.forEach(f -> byId.put(f.id(), f));
    }

    @Override
    public boolean lazy() {
        return false;
    }

    @Override
    public long fragmentCount() {
        return fragments.size();
    }

    @Override
    public long physicalRows() {
        return fragments.stream().mapToLong(FragmentInfo::physicalRows).sum();
    }

    @Override
    public long liveRows() {
        return fragments.stream().mapToLong(FragmentInfo::liveRows).sum();
    }

    @Override
    public Mono<List<FragmentInfo>> list() {
        return Mono.just(fragments);
    }

    @Override
    public Optional<List<FragmentInfo>> loaded() {
        return Optional.of(fragments);
    }

    @Override
    public Mono<Map<Long, FragmentInfo>> resolve(Collection<Long> ids) {
        Map<Long, FragmentInfo> out = new LinkedHashMap<>();
        for (long id : ids) {
            FragmentInfo f = byId.get(id);
            if (f != null) {
                out.put(id, f);
            }
        }
        return Mono.just(out);
    }
}
