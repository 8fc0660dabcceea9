package io.javelin.engine;

import io.javelin.tx.FragmentInfo;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import org.roaringbitmap.RoaringBitmap;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Rows named by {@code _rowid} as live offsets per fragment, for update and delete by row id: stable ids
 * are translated through {@link RowIdInverse}, otherwise an id is the row's address. Ids of no live row
 * are skipped (as a filter {@code _rowid IN (...)} would match nothing for them).
 */
final class RowIdTargets {

    private RowIdTargets() {
    }

    static Mono<Map<FragmentInfo, RoaringBitmap>> of(Dataset ds, long[] rowIds) {
        long[] sorted = rowIds.clone();
        Arrays.sort(sorted);
        return RowIdInverse.addresses(ds, sorted).flatMap(addrs -> {
            Map<Long, FragmentInfo> byId = new HashMap<>();
            ds.fragments().forEach(f -> byId.put(f.id(), f));
            Map<FragmentInfo, RoaringBitmap> hits = new LinkedHashMap<>();
            for (long a : addrs) {
                FragmentInfo f = byId.get(a >>> 32);
                long off = a & 0xFFFF_FFFFL;
                if (f != null && off < f.physicalRows()) {
                    hits.computeIfAbsent(f, k -> new RoaringBitmap()).add((int) off);
                }
            }
            // an updated row's old copy is deleted already: keep live offsets only
            return Flux.fromIterable(hits.entrySet())
                    .concatMap(e -> ds.deletions(e.getKey()).map(del -> Map.entry(e.getKey(), RoaringBitmap.andNot(e.getValue(), del))), 1)
                    .filter(e -> !e.getValue().isEmpty())
                    .collectMap(Map.Entry::getKey, Map.Entry::getValue, LinkedHashMap::new);
        });
    }
}
