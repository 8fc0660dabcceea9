package io.javelin.engine;

import io.javelin.tx.FragmentInfo;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import reactor.core.publisher.Mono;

/**
 * Stable row id → row address for index lookups (indexes on stable-row-id datasets store row ids). Per
 * fragment the id sequence is kept sorted with the matching offsets (most sequences are ascending ranges
 * already, then no copy is made), so translating a sorted id set is a merge per fragment without a
 * per-row hash map. Ids not in any current fragment are dropped; ids of deleted rows are kept (the caller
 * masks deletions), and an id in two fragments (an updated row) yields both addresses.
 */
final class RowIdInverse {

    private record Fragment(long id, long min, long max, long[] sortedIds, int[] offsets) {
    }

    private static final Map<Dataset, List<Fragment>> CACHE = new WeakHashMap<>();

    private RowIdInverse() {
    }

    static Mono<long[]> addresses(Dataset ds, long[] sortedRowIds) {
        if (!ds.rowIds().enabled()) {
            return Mono.just(sortedRowIds.clone());
        }
        return ds.rowIds().preload().then(Mono.fromCallable(() -> translate(fragments(ds), sortedRowIds)));
    }

    private static List<Fragment> fragments(Dataset ds) {
        synchronized (CACHE) {
            List<Fragment> cached = CACHE.get(ds);
            if (cached != null) {
                return cached;
            }
        }
        List<Fragment> out = new ArrayList<>();
        for (FragmentInfo f : ds.fragments()) {
            long[] ids = ds.rowIds().of(f);
            if (ids.length == 0) {
                continue;
            }
            boolean ascending = true;
            for (int i = 1; i < ids.length && ascending; i++) {
                ascending = Long.compareUnsigned(ids[i - 1], ids[i]) < 0;
            }
            if (ascending) {
                out.add(new Fragment(f.id(), ids[0], ids[ids.length - 1], ids, null));
            } else {
                Integer[] order = new Integer[ids.length];
                for (int i = 0; i < order.length; i++) {
                    order[i] = i;
                }
                Arrays.sort(order, (a, b) -> Long.compareUnsigned(ids[a], ids[b]));
                long[] sorted = new long[ids.length];
                int[] offsets = new int[ids.length];
                for (int i = 0; i < order.length; i++) {
                    sorted[i] = ids[order[i]];
                    offsets[i] = order[i];
                }
                out.add(new Fragment(f.id(), sorted[0], sorted[sorted.length - 1], sorted, offsets));
            }
        }
        synchronized (CACHE) {
            CACHE.put(ds, out);
        }
        return out;
    }

    private static long[] translate(List<Fragment> frags, long[] ids) {
        long[] out = new long[Math.max(16, ids.length)];
        int n = 0;
        for (Fragment f : frags) {
            int from = lowerBound(ids, 0, ids.length, f.min());
            for (int i = from; i < ids.length && Long.compareUnsigned(ids[i], f.max()) <= 0; i++) {
                int at = lowerBound(f.sortedIds(), 0, f.sortedIds().length, ids[i]);
                // row ids are unique within a fragment
                if (at < f.sortedIds().length && f.sortedIds()[at] == ids[i]) {
                    if (n == out.length) {
                        out = Arrays.copyOf(out, out.length * 2);
                    }
                    out[n++] = (f.id() << 32) | (f.offsets() == null ? at : f.offsets()[at]);
                }
            }
        }
        long[] r = Arrays.copyOf(out, n);
        Arrays.sort(r);
        return r;
    }

    private static int lowerBound(long[] a, int lo, int hi, long key) {
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (Long.compareUnsigned(a[mid], key) < 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }
}
