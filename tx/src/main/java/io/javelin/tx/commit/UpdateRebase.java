package io.javelin.tx.commit;

import io.javelin.tx.manifest.ManifestFile;
import io.javelin.tx.pb.Transaction;
import io.javelin.tx.store.ManifestStore;
import reactor.core.publisher.Mono;

/**
 * Rebases an Update (REWRITE_ROWS: update, merge-insert) over concurrent deletes/updates of the same
 * fragments, as Lance does: only its deletion vectors need merging, exactly like a Delete's (the rows it
 * wrote are in new fragments nobody else knows). So the Update's {@code updated_fragments} /
 * {@code removed_fragment_ids} go through {@link DeleteRebase} and come back.
 */
final class UpdateRebase {

    private UpdateRebase() {
    }

    static Mono<Transaction> rebase(ManifestStore store, Transaction txn, ManifestFile baseline, ManifestFile latest) {
        Transaction.Update u = txn.getUpdate();
        Transaction asDelete = txn.toBuilder().setDelete(Transaction.Delete.newBuilder()
                .addAllUpdatedFragments(u.getUpdatedFragmentsList()).addAllDeletedFragmentIds(u.getRemovedFragmentIdsList())).build();
        return DeleteRebase.rebase(store, asDelete, baseline, latest).map(d -> txn.toBuilder().setUpdate(u.toBuilder()
                .clearUpdatedFragments().addAllUpdatedFragments(d.getDelete().getUpdatedFragmentsList())
                .clearRemovedFragmentIds().addAllRemovedFragmentIds(d.getDelete().getDeletedFragmentIdsList())).build());
    }
}
