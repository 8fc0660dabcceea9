package io.javelin.tx;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import reactor.core.publisher.Mono;

/**
 * Where one version's fragment records come from: the manifest's flat list, or a fragment
 * metadata tree read lazily (spec 000). Counts never need I/O; listing and resolving may.
 */
public interface FragmentCatalog {

    /** True when records are fetched on demand (a tree table). */
    boolean lazy();

    /** Number of fragments (derived for a tree: root summaries plus buffered deltas). */
    long fragmentCount();

    /** Physical rows including deleted ones. */
    long physicalRows();

    /** Live rows (physical minus deleted). */
    long liveRows();

    /** Every fragment in id order; loaded once and then served from memory. */
    Mono<List<FragmentInfo>> list();

    /** The list if it is already in memory. */
    Optional<List<FragmentInfo>> loaded();

    /** The fragments among {@code ids} that exist, reading only what they need. */
    Mono<Map<Long, FragmentInfo>> resolve(Collection<Long> ids);
}
