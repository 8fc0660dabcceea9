package io.javelin.tx.tree;

import io.javelin.tx.pb.DataFragment;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Decoded leaves shared by the versions of a table opened in one process. Leaves are immutable and
 * uuid-named, so a leaf is identified by (store, location, owner, stored size); every hit is still
 * checked against the referencing parent (range, counts, max_fragment_id) like a fresh decode.
 * Bounded by the number of cached records (least recently used leaves go first).
 */
public final class LeafCache {

    private record Key(Object store, ObjectLocation location, Datasets.Owner owner, long size) {
    }

    private final long maxRecords;
    private long records;
    private final LinkedHashMap<Key, List<DataFragment>> leaves = new LinkedHashMap<>(64, 0.75f, true);

    public LeafCache(long maxRecords) {
        this.maxRecords = maxRecords;
    }

    synchronized List<DataFragment> get(Object store, ChildRef ref) {
        return leaves.get(key(store, ref));
    }

    synchronized void put(Object store, ChildRef ref, List<DataFragment> decoded) {
        if (decoded.size() > maxRecords) {
            return;
        }
        List<DataFragment> old = leaves.put(key(store, ref), List.copyOf(decoded));
        records += decoded.size() - (old == null ? 0 : old.size());
        var it = leaves.entrySet().iterator();
        while (records > maxRecords && it.hasNext()) {
            Map.Entry<Key, List<DataFragment>> e = it.next();
            records -= e.getValue().size();
            it.remove();
        }
    }

    /** Drops every cached leaf (tests measuring cold reads). */
    public synchronized void clear() {
        leaves.clear();
        records = 0;
    }

    private static Key key(Object store, ChildRef ref) {
        return new Key(store, ref.location(), ref.owner(), ref.child().getObjectSize());
    }
}
