package io.javelin.engine;

import io.javelin.tx.manifest.FeatureFlags;
import io.javelin.tx.pb.DataFragment;
import java.util.List;
import reactor.core.publisher.Mono;

/**
 * The hook where row rewrites (update, merge-insert) keep stable row ids (feature flag 2). Without the
 * flag a row's id is its address and moving it is all there is to do. With it, Lance gives each new
 * fragment a {@code row_id_sequence} carrying the ids of the rows it replaces, in the order written
 * ({@code replacedAddresses[i]} is the old address of the i-th written row, {@code -1} for an inserted
 * row, which gets a fresh id at commit), and copies their {@code created_at} versions.
 *
 * <p>TODO(row ids): map addresses to row ids through the fragments' sequences and set the sequences;
 * until then such datasets are refused here instead of being given wrong ids.
 */
final class RowIdCarry {

    private RowIdCarry() {
    }

    static boolean enabled(Dataset ds) {
        return (ds.snapshot().manifestFile().manifest().getReaderFeatureFlags() & FeatureFlags.STABLE_ROW_IDS) != 0;
    }

    static Mono<List<DataFragment>> carry(Dataset ds, List<DataFragment> written, long[] replacedAddresses) {
        if (!enabled(ds)) {
            return Mono.just(written);
        }
        return Mono.error(SchemaEvolution.error(ds, "Rewriting rows of a dataset with stable row ids is not supported yet"));
    }
}
