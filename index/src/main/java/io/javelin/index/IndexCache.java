package io.javelin.index;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;
import reactor.core.publisher.Mono;

/**
 * A byte-budgeted LRU cache of loaded index parts (BTree lookups and pages, bitmaps, IVF
 * partitions), keyed by {@code uuid/file[#part]}. Concurrent loads of the same key share one
 * load; failed loads are not cached. Values must be immutable (they are shared across queries);
 * values implementing {@link AutoCloseable} are closed on eviction. Guarded by a plain monitor
 * held only for map updates, never across I/O.
 */
public final class IndexCache {

    private final long budgetBytes;
    private final LinkedHashMap<String, Entry> lru = new LinkedHashMap<>(64, 0.75f, true);
    private final Map<String, Mono<Object>> inFlight = new ConcurrentHashMap<>();
    private long usedBytes;
    private long hits;
    private long misses;

    private record Entry(Object value, long bytes) {
    }

    public IndexCache(long budgetBytes) {
        if (budgetBytes < 0) {
            throw new IllegalArgumentException("Invalid cache budget: " + budgetBytes + " (must be >= 0)");
        }
        this.budgetBytes = budgetBytes;
    }

    /** The cached value, or the result of {@code loader} (subscribed once for concurrent callers). */
    @SuppressWarnings("unchecked")
    public <T> Mono<T> get(String key, Supplier<Mono<T>> loader, ToLongFunction<? super T> weigher) {
        return Mono.defer(() -> {
            synchronized (this) {
                Entry e = lru.get(key);
                if (e != null) {
                    hits++;
                    return Mono.just((T) e.value());
                }
                misses++;
            }
            Mono<Object> load = inFlight.computeIfAbsent(key, k -> loader.get()
                    .map(v -> (Object) v)
                    .doOnNext(v -> put(k, v, weigher.applyAsLong((T) v)))
                    .doFinally(s -> inFlight.remove(k))
                    .cache());
            return (Mono<T>) load;
        });
    }

    /** The cached value of {@code key} without loading it (null when absent); counts as a hit when present. */
    @SuppressWarnings("unchecked")
    public synchronized <T> T peek(String key) {
        Entry e = lru.get(key);
        if (e == null) {
            return null;
        }
        hits++;
        return (T) e.value();
    }

    /** Inserts {@code value}; values larger than the whole budget are returned but not kept. */
    public synchronized void put(String key, Object value, long bytes) {
        if (bytes > budgetBytes) {
            return;
        }
        Entry old = lru.put(key, new Entry(value, bytes));
        if (old != null) {
            usedBytes -= old.bytes();
            if (old.value() != value) {
                closeQuietly(old.value());
            }
        }
        usedBytes += bytes;
        Iterator<Map.Entry<String, Entry>> it = lru.entrySet().iterator();
        while (usedBytes > budgetBytes && it.hasNext()) {
            Map.Entry<String, Entry> eldest = it.next();
            if (eldest.getKey().equals(key)) {
                continue;
            }
            it.remove();
            usedBytes -= eldest.getValue().bytes();
            closeQuietly(eldest.getValue().value());
        }
    }

    /** Drops every entry whose key starts with {@code prefix} (e.g. a replaced segment's uuid). */
    public synchronized void invalidatePrefix(String prefix) {
        Iterator<Map.Entry<String, Entry>> it = lru.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<String, Entry> e = it.next();
            if (e.getKey().startsWith(prefix)) {
                it.remove();
                usedBytes -= e.getValue().bytes();
                closeQuietly(e.getValue().value());
            }
        }
    }

    public synchronized long usedBytes() {
        return usedBytes;
    }

    public synchronized int size() {
        return lru.size();
    }

    public synchronized long hits() {
        return hits;
    }

    public synchronized long misses() {
        return misses;
    }

    private static void closeQuietly(Object v) {
        if (v instanceof AutoCloseable c) {
            try {
                c.close();
            } catch (Exception ignored) {
                // eviction must not fail the query that triggered it
            }
        }
    }
}
