package io.javelin.engine;

import io.javelin.tx.FragmentInfo;
import io.javelin.tx.pb.DataFragment;
import io.javelin.tx.rowid.FragmentRowIds;
import io.javelin.tx.rowid.RowIdAssigner;
import io.javelin.tx.rowid.RowVersions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import reactor.core.publisher.Mono;

/**
 * Where row rewrites (update, merge-insert) keep stable row ids (feature flag 2). Without the flag a row's
 * id is its address and moving it is all there is to do. With it, each new fragment carries the ids of the
 * rows it replaces ({@code replacedAddresses[i]} is the old address of the i-th written row, {@code -1} for
 * an inserted row): the replaced rows form a prefix of the fragment's sequence and the commit gives the
 * inserted rest fresh ids ({@link RowIdAssigner#preserve}), stamping last-updated-at with its version.
 */
final class RowIdCarry {

    private RowIdCarry() {
    }

    static Mono<List<DataFragment>> carry(Dataset ds, List<DataFragment> written, long[] replacedAddresses) {
        if (!ds.hasStableRowIds()) {
            return Mono.just(written);
        }
        return ds.rowIds().preload().then(Mono.fromCallable(() -> {
            Map<Long, FragmentInfo> byId = new HashMap<>();
            for (FragmentInfo f : ds.fragments()) {
                byId.put(f.id(), f);
            }
            List<DataFragment> out = new ArrayList<>(written.size());
            Map<Long, long[]> createdAt = new HashMap<>();
            int pos = 0;
            for (DataFragment f : written) {
                int rows = Math.toIntExact(f.getPhysicalRows());
                if (pos + rows > replacedAddresses.length) {
                    throw new IllegalStateException("rewrite wrote more rows than it planned: " + (pos + rows)
                            + " > " + replacedAddresses.length);
                }
                int prefix = 0;
                while (prefix < rows && replacedAddresses[pos + prefix] >= 0) {
                    prefix++;
                }
                for (int i = prefix; i < rows; i++) {
                    if (replacedAddresses[pos + i] >= 0) {
                        // a sequence can only preserve a prefix; refusing beats giving a moved row a new id
                        throw SchemaEvolution.error(ds, "Cannot keep stable row ids: updated rows follow inserted rows"
                                + " in one written fragment");
                    }
                }
                long[] ids = new long[prefix];
                long[] created = new long[rows]; // the rest: RowIdAssigner.THIS_COMMIT (0)
                for (int i = 0; i < prefix; i++) {
                    long address = replacedAddresses[pos + i];
                    FragmentInfo old = byId.get(address >>> 32);
                    if (old == null) {
                        throw new IllegalStateException("replaced row " + address + " is in no fragment of version " + ds.version());
                    }
                    int offset = (int) (address & 0xFFFF_FFFFL);
                    ids[i] = ds.rowIds().of(old)[offset];
                    // an updated row keeps the version that created it (spec 001 "Last Updated At Version")
                    created[i] = createdAt.computeIfAbsent(old.id(), k -> FragmentRowIds.createdAt(old.fragment(), 1))[offset];
                }
                out.add(prefix == 0 ? f : FragmentRowIds.setCreatedAt(RowIdAssigner.preserve(f.toBuilder(), ids),
                        RowVersions.compress(created)).build());
                pos += rows;
            }
            if (pos != replacedAddresses.length) {
                throw new IllegalStateException("rewrite wrote " + pos + " rows, planned " + replacedAddresses.length);
            }
            return out;
        }));
    }
}
