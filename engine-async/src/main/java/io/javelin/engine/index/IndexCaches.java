package io.javelin.engine.index;

import io.javelin.index.IndexCache;

/**
 * The process-wide index cache (decoded BTree lookups/pages, bitmaps, IVF headers and partitions),
 * keyed by dataset URI and segment uuid. Segments are immutable, so entries never go stale; the byte
 * budget ({@code -Djavelin.index.cacheBytes}, default 512 MiB) bounds memory.
 */
public final class IndexCaches {

    private static final IndexCache SHARED = new IndexCache(Long.getLong("javelin.index.cacheBytes", 512L << 20));

    private IndexCaches() {
    }

    public static IndexCache shared() {
        return SHARED;
    }

    /**
     * Cache key of a segment as opened through {@code ds}'s store: cached readers hold that store, so a
     * dataset opened again (a new store) gets its own entries rather than a closed store's.
     */
    static String key(io.javelin.engine.Dataset ds, java.util.UUID uuid) {
        return ds.uri() + "@" + Integer.toHexString(System.identityHashCode(ds.objectStore())) + "#" + uuid;
    }
}
