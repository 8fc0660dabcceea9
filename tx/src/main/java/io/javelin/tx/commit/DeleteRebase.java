package io.javelin.tx.commit;

import io.javelin.tx.RetryableCommitConflictException;
import io.javelin.tx.deletion.DeletionFiles;
import io.javelin.tx.manifest.ManifestFile;
import io.javelin.tx.pb.DataFragment;
import io.javelin.tx.pb.Transaction;
import io.javelin.tx.store.ManifestStore;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.roaringbitmap.RoaringBitmap;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Rebases a Delete over concurrent deletes of the same fragments (matrix cell "Ro"): our new rows are
 * {@code D = ours - baseline}, where the baseline is the manifest our vectors were last computed
 * against (the read version, then the version of the previous rebase: using the read version again
 * would count rows others deleted meanwhile as ours); if someone else deleted any of them the operation is retried by the
 * application (as Lance does), otherwise we write {@code theirs ∪ D} as a fresh cumulative deletion
 * file. Fragments that end up fully deleted are removed instead.
 */
final class DeleteRebase {

    private DeleteRebase() {
    }

    static Mono<Transaction> rebase(ManifestStore store, Transaction txn, ManifestFile baseline, ManifestFile latest) {
        java.util.List<Long> ids = txn.getDelete().getUpdatedFragmentsList().stream().map(DataFragment::getId).toList();
        return Mono.zip(byId(store, baseline, ids), byId(store, latest, ids))
                .flatMap(t -> rebase(store, txn, t.getT1(), t.getT2(), latest));
    }

    private static Mono<Transaction> rebase(ManifestStore store, Transaction txn, Map<Long, DataFragment> read,
            Map<Long, DataFragment> now, ManifestFile latest) {
        Transaction.Delete d = txn.getDelete();
        Set<Long> deleted = new LinkedHashSet<>(d.getDeletedFragmentIdsList());
        return Flux.fromIterable(d.getUpdatedFragmentsList())
                .concatMap(mine -> {
                    DataFragment current = now.get(mine.getId());
                    if (current == null) {
                        return Mono.error(new RetryableCommitConflictException("Fragment " + mine.getId()
                                + " was removed by a concurrent commit"));
                    }
                    DataFragment original = read.get(mine.getId());
                    if (original != null && original.getDeletionFile().equals(current.getDeletionFile())) {
                        return Mono.just(mine); // nobody else touched its deletions
                    }
                    return Mono.zip(DeletionFiles.read(store, mine),
                                    original == null ? Mono.just(new RoaringBitmap()) : DeletionFiles.read(store, original),
                                    DeletionFiles.read(store, current))
                            .flatMap(t -> {
                                RoaringBitmap added = RoaringBitmap.andNot(t.getT1(), t.getT2());
                                if (RoaringBitmap.intersects(added, t.getT3())) {
                                    return Mono.error(new RetryableCommitConflictException("A concurrent delete removed some of"
                                            + " the same rows of fragment " + mine.getId()));
                                }
                                RoaringBitmap merged = RoaringBitmap.or(t.getT3(), added);
                                if (current.getPhysicalRows() > 0 && merged.getLongCardinality() >= current.getPhysicalRows()) {
                                    deleted.add(mine.getId());
                                    return Mono.<DataFragment>empty();
                                }
                                return DeletionFiles.write(store, mine.getId(), latest.version(), merged)
                                        .map(df -> current.toBuilder().setDeletionFile(df).build());
                            });
                })
                .collectList()
                .map(updated -> {
                    List<DataFragment> kept = new ArrayList<>();
                    for (DataFragment f : updated) {
                        if (!deleted.contains(f.getId())) {
                            kept.add(f);
                        }
                    }
                    return txn.toBuilder().setDelete(d.toBuilder().clearUpdatedFragments().addAllUpdatedFragments(kept)
                            .clearDeletedFragmentIds().addAllDeletedFragmentIds(deleted)).build();
                });
    }

    /** The records of {@code ids} in a version: from its flat list, or resolved along a tree's routing paths. */
    private static Mono<Map<Long, DataFragment>> byId(ManifestStore store, ManifestFile m, java.util.List<Long> ids) {
        if (m.manifest().hasFragmentTree()) {
            return io.javelin.tx.tree.TreeTables.open(store, m.manifest())
                    .flatMap(t -> t.resolveAll(new java.util.TreeSet<>(ids))).map(HashMap::new);
        }
        Map<Long, DataFragment> out = new HashMap<>();
        m.manifest().getFragmentsList().forEach(f -> out.put(f.getId(), f));
        return Mono.just(out);
    }
}
