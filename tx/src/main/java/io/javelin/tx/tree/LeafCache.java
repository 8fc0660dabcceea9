package io.javelin.tx.tree;

import io.javelin.tx.pb.DataFragment;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Decoded leaves shared by the versions of a table opened in one process. Leaves are immutable and
 * uuid-named, so a leaf is identified by (store, location, owner, stored size); every hit is still
 * checked against the referencing parent (range, counts, max_fragment_id) like a fresh decode.
 * Bounded by the number of cached records and by their estimated heap size (least recently used
 * leaves go first), so a listing of a large table is decoded once and later listings and commits
 * read it from memory.
 */
public final class LeafCache {

    private record Key(Object store, ObjectLocation location, Datasets.Owner owner, long size) {
    }

    /** Rough heap bytes of a decoded record per serialized byte (protobuf objects, strings, lists). */
    private static final int HEAP_PER_BYTE = 4;
    private static final int HEAP_PER_RECORD = 96;

    private final long maxRecords;
    private final long maxBytes;
    private long records;
    private long bytes;
    private final LinkedHashMap<Key, Entry> leaves = new LinkedHashMap<>(64, 0.75f, true);

    private record Entry(List<DataFragment> records, long bytes) {
    }

    public LeafCache(long maxRecords) {
        this(maxRecords, Long.MAX_VALUE);
    }

    public LeafCache(long maxRecords, long maxBytes) {
        this.maxRecords = maxRecords;
        this.maxBytes = maxBytes;
    }

    /**
     * The process-wide default: {@code -Djavelin.tree.leafCacheRecords} (unbounded if unset) and
     * {@code -Djavelin.tree.leafCacheBytes} (default: an eighth of the maximum heap) of estimated heap.
     */
    public static LeafCache defaults() {
        long bytes = Long.getLong("javelin.tree.leafCacheBytes", Runtime.getRuntime().maxMemory() / 8);
        return new LeafCache(Long.getLong("javelin.tree.leafCacheRecords", Long.MAX_VALUE), bytes);
    }

    /** Estimated heap bytes of decoded records. */
    static long heapBytes(List<DataFragment> decoded) {
        long b = 0;
        for (DataFragment f : decoded) {
            b += (long) f.getSerializedSize() * HEAP_PER_BYTE + HEAP_PER_RECORD;
        }
        return b;
    }

    synchronized List<DataFragment> get(Object store, ChildRef ref) {
        Entry e = leaves.get(key(store, ref));
        return e == null ? null : e.records();
    }

    synchronized void put(Object store, ChildRef ref, List<DataFragment> decoded) {
        long size = heapBytes(decoded);
        if (decoded.size() > maxRecords || size > maxBytes) {
            return;
        }
        Entry old = leaves.put(key(store, ref), new Entry(List.copyOf(decoded), size));
        records += decoded.size() - (old == null ? 0 : old.records().size());
        bytes += size - (old == null ? 0 : old.bytes());
        var it = leaves.entrySet().iterator();
        while ((records > maxRecords || bytes > maxBytes) && it.hasNext()) {
            Map.Entry<Key, Entry> e = it.next();
            records -= e.getValue().records().size();
            bytes -= e.getValue().bytes();
            it.remove();
        }
    }

    /** Drops every cached leaf (tests measuring cold reads). */
    public synchronized void clear() {
        leaves.clear();
        records = 0;
        bytes = 0;
    }

    private static Key key(Object store, ChildRef ref) {
        return new Key(store, ref.location(), ref.owner(), ref.child().getObjectSize());
    }
}
