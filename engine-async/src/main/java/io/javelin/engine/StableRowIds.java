package io.javelin.engine;

import io.javelin.tx.FragmentInfo;
import io.javelin.tx.manifest.FeatureFlags;
import io.javelin.tx.rowid.FragmentRowIds;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The {@code _rowid} of one dataset version. Without stable row ids (feature flag 2) a row id is the row
 * address {@code fragment_id << 32 | offset}; with them it is the fragment's {@code RowIdSequence} entry at
 * the row's offset. Sequences are decoded once per version and cached; external sequences are read by
 * {@link #preload()} before a scan needs them.
 */
final class StableRowIds {

    private final Dataset ds;
    private final boolean enabled;
    private final Map<Long, long[]> byFragment = new ConcurrentHashMap<>();
    private volatile Map<Long, Long> addressOfId;

    StableRowIds(Dataset ds) {
        this.ds = ds;
        this.enabled = (ds.snapshot().manifestFile().manifest().getReaderFeatureFlags() & FeatureFlags.STABLE_ROW_IDS) != 0;
    }

    boolean enabled() {
        return enabled;
    }

    /** Reads the row ids of every fragment whose sequence is not inline (no-op otherwise). */
    Mono<Void> preload() {
        if (!enabled) {
            return Mono.empty();
        }
        return Flux.fromIterable(ds.fragments())
                .filter(f -> !byFragment.containsKey(f.id()) && f.fragment().hasExternalRowIds())
                .concatMap(f -> FragmentRowIds.read(ds.handle().manifests, f.fragment())
                        .doOnNext(seq -> byFragment.put(f.id(), seq.toArray())), 4)
                .then();
    }

    /** Row ids of a fragment by physical offset. */
    long[] of(FragmentInfo f) {
        return byFragment.computeIfAbsent(f.id(), id -> FragmentRowIds.readInline(f.fragment()).toArray());
    }

    private FragmentInfo fragment(long id) {
        for (FragmentInfo f : ds.fragments()) {
            if (f.id() == id) {
                return f;
            }
        }
        throw new IllegalStateException("No fragment " + id);
    }

    /** The {@code _rowid} column for rows at {@code offsets} of fragment {@code fragmentId}. */
    FieldVector vector(long fragmentId, long[] offsets, BufferAllocator allocator) {
        if (!enabled) {
            return Batches.rowAddresses(Batches.ROW_ID, fragmentId, offsets, allocator);
        }
        long[] ids = of(fragment(fragmentId));
        long[] out = new long[offsets.length];
        for (int i = 0; i < offsets.length; i++) {
            out[i] = ids[(int) offsets[i]];
        }
        return Batches.rowAddresses(Batches.ROW_ID, 0, out, allocator);
    }

    /** Row addresses of live rows by stable row id; unknown or deleted ids are an error. */
    Mono<long[]> addresses(long[] rowIds) {
        if (!enabled) {
            return Mono.just(rowIds.clone());
        }
        return index().map(m -> {
            long[] out = new long[rowIds.length];
            for (int i = 0; i < rowIds.length; i++) {
                Long a = m.get(rowIds[i]);
                if (a == null) {
                    throw new InvalidScanException(ds.uri(), ds.version(), "No live row with row id " + Long.toUnsignedString(rowIds[i]));
                }
                out[i] = a;
            }
            return out;
        });
    }

    /** The row ids at row {@code addresses} (the addresses themselves without stable row ids). */
    Mono<long[]> idsAt(long[] addresses) {
        if (!enabled) {
            return Mono.just(addresses.clone());
        }
        return preload().then(Mono.fromCallable(() -> {
            long[] out = new long[addresses.length];
            for (int i = 0; i < addresses.length; i++) {
                out[i] = of(fragment(addresses[i] >>> 32))[(int) addresses[i]];
            }
            return out;
        }));
    }

    /** Row id → row address of its live row, or -1 (identity without stable row ids); built once per version. */
    Mono<java.util.function.LongUnaryOperator> resolver() {
        if (!enabled) {
            return Mono.just(id -> id);
        }
        return index().map(m -> id -> {
            Long a = m.get(id);
            return a == null ? -1L : a;
        });
    }

    private Mono<Map<Long, Long>> index() {
        return addressOfId != null ? Mono.just(addressOfId)
                : preload().then(Flux.fromIterable(ds.fragments())
                        .concatMap(f -> ds.deletions(f).map(d -> Map.entry(f, d)), 4)
                        .collectList()
                        .map(list -> {
                            Map<Long, Long> m = new HashMap<>();
                            for (var e : list) {
                                long[] ids = of(e.getKey());
                                for (int off = 0; off < ids.length; off++) {
                                    if (!e.getValue().contains(off)) {
                                        m.put(ids[off], (e.getKey().id() << 32) | off);
                                    }
                                }
                            }
                            addressOfId = m;
                            return m;
                        }));
    }
}
