package io.javelin.engine;

import io.javelin.engine.maintenance.CleanupStats;
import io.javelin.tx.maintenance.CleanupPlan;
import io.javelin.tx.maintenance.CleanupPlanner;
import io.javelin.tx.maintenance.CleanupPolicy;
import io.javelin.tx.tag.Tag;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Cleanup I/O around the pure {@link CleanupPlanner}: read every manifest, the tags, the branches' references
 * into this root and a full listing, then delete old manifests first (an old version disappears as a whole)
 * and the unreferenced files after them.
 */
final class Cleanup {

    private Cleanup() {
    }

    static Mono<CleanupStats> run(Dataset ds, CleanupPolicy policy, Instant now) {
        Dataset.Handle h = ds.handle();
        Mono<List<CleanupPlanner.Version>> versions = h.table.versions().list()
                .flatMapMany(Flux::fromIterable)
                .concatMap(loc -> h.table.versions().read(loc).map(f -> new CleanupPlanner.Version(loc.path(),
                        loc.size() >= 0 ? loc.size() : f.size(), f)), 4)
                .collectList();
        Mono<Set<Long>> tagged = h.table.tags().list().map(tags -> {
            Set<Long> out = new HashSet<>();
            for (Tag t : tags.values()) {
                if (t.branch() == null) {
                    out.add(t.version());
                }
            }
            return out;
        });
        Mono<Set<String>> branchRefs = Branches.referencesIntoRoot(h);
        Mono<List<CleanupPlanner.Listed>> listing = h.store.list("")
                .map(m -> new CleanupPlanner.Listed(m.path(), m.size(), m.lastModified()))
                .collectList();
        return Mono.zip(versions, tagged, branchRefs, listing)
                .map(t -> CleanupPlanner.plan(t.getT1(), t.getT2(), t.getT3(), t.getT4(), policy, now))
                .flatMap(plan -> delete(h, plan.manifests()).then(delete(h, plan.files())).thenReturn(stats(plan)));
    }

    private static Mono<Void> delete(Dataset.Handle h, List<String> paths) {
        return Flux.fromIterable(paths).flatMap(h.store::delete, 8).then();
    }

    private static CleanupStats stats(CleanupPlan p) {
        return new CleanupStats(p.oldVersions().size(), p.bytesRemoved(), p.dataFiles(), p.deletionFiles(),
                p.transactionFiles(), p.indexFiles());
    }
}
