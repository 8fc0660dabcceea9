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
        return run(ds.handle(), policy, now);
    }

    static Mono<CleanupStats> run(Dataset.Handle h, CleanupPolicy policy, Instant now) {
        return plan(h, policy, now)
                .flatMap(plan -> delete(h, plan.manifests()).then(delete(h, plan.files())).thenReturn(stats(plan)))
                .flatMap(stats -> h.store.removeStaleTemporaries("", temporariesBefore(policy, now))
                        .map(n -> stats.withTemporaryFilesRemoved(n)));
    }

    /** What {@link #run} would delete and why, deleting nothing (a dry run; local staging temporaries not included). */
    static Mono<CleanupPlan> plan(Dataset.Handle h, CleanupPolicy policy, Instant now) {
        Mono<List<CleanupPlanner.Version>> versions = h.table.versions().list()
                .flatMapMany(Flux::fromIterable)
                .concatMap(loc -> h.table.versions().read(loc).map(f -> new CleanupPlanner.Version(loc.path(),
                        loc.size() >= 0 ? loc.size() : f.size(), f)), 4)
                .collectList().cache();
        Mono<Set<Long>> tagged = h.table.tags().list().map(tags -> {
            Set<Long> out = new HashSet<>();
            for (Tag t : tags.values()) {
                if (t.branch() == null) {
                    out.add(t.version());
                }
            }
            return out;
        }).cache();
        // Tree tables keep their fragment records under _bt/, not in Manifest.fragments: without these the
        // planner would see their data and deletion files as unreferenced.
        Mono<Set<String>> treeRefs = Mono.zip(versions, tagged).flatMap(t -> treeReferences(h, t.getT1(), t.getT2(), policy));
        Mono<Set<String>> branchRefs = Mono.zip(Branches.referencesIntoRoot(h), treeRefs).map(t -> {
            Set<String> all = new HashSet<>(t.getT1());
            all.addAll(t.getT2());
            return all;
        });
        Mono<List<CleanupPlanner.Listed>> listing = h.store.list("")
                .map(m -> new CleanupPlanner.Listed(m.path(), m.size(), m.lastModified()))
                .collectList();
        return Mono.zip(versions, tagged, branchRefs, listing)
                .map(t -> CleanupPlanner.plan(t.getT1(), t.getT2(), t.getT3(), t.getT4(), policy, now));
    }

    /**
     * Staging files of killed writes are unverified files: removed once older than the unverified threshold,
     * or older than the cutoff when the caller vouches that no write is in flight ({@code deleteUnverified}).
     */
    static Instant temporariesBefore(CleanupPolicy policy, Instant now) {
        if (!policy.deleteUnverified()) {
            return now.minus(CleanupPolicy.UNVERIFIED_THRESHOLD);
        }
        Instant cutoff = policy.beforeTimestamp();
        return cutoff != null && cutoff.isBefore(now) ? cutoff : now;
    }

    /** Files named by the fragment trees of every version the planner will retain (latest, tagged, young). */
    static Mono<Set<String>> treeReferences(Dataset.Handle h, List<CleanupPlanner.Version> versions, Set<Long> tagged,
                                            CleanupPolicy policy) {
        long latest = versions.stream().mapToLong(CleanupPlanner.Version::number).max().orElse(-1);
        List<io.javelin.tx.pb.Manifest> retained = versions.stream()
                .filter(v -> v.file().manifest().hasFragmentTree())
                .filter(v -> v.number() == latest || tagged.contains(v.number()) || !policy.isOld(v.number(), v.committed()))
                .map(v -> v.file().manifest()).toList();
        if (retained.isEmpty()) {
            return Mono.just(Set.of());
        }
        return io.javelin.tx.tree.TreeCleanup.plan(h.manifests, retained).map(p -> {
            Set<String> refs = new HashSet<>(p.referencedFiles());
            refs.addAll(p.keepTreeObjects());
            return refs;
        });
    }

    private static Mono<Void> delete(Dataset.Handle h, List<String> paths) {
        return Flux.fromIterable(paths).flatMap(h.store::delete, 8).then();
    }

    private static CleanupStats stats(CleanupPlan p) {
        return new CleanupStats(p.oldVersions().size(), p.bytesRemoved(), p.dataFiles(), p.deletionFiles(),
                p.transactionFiles(), p.indexFiles());
    }
}
