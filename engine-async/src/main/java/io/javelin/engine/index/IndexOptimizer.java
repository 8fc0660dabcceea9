package io.javelin.engine.index;

import io.javelin.engine.Dataset;
import io.javelin.engine.InvalidScanException;
import io.javelin.index.IndexType;
import io.javelin.tx.FragmentInfo;
import io.javelin.tx.pb.IndexMetadata;
import io.javelin.tx.transaction.Transactions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.pojo.Field;
import org.roaringbitmap.RoaringBitmap;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * {@code optimize_indices} for scalar indexes: every BTree / Bitmap / LabelList / ZoneMap / Bloom filter
 * index with fragments it does not cover (appends, or coverage lost in a compaction) gets one merged
 * segment over all current fragments that replaces all its segments (Lance's scalar update merges old
 * and new data into a single new segment the same way), committed as one CreateIndex. Vector indexes are
 * left as they are. Empty when nothing needs folding in.
 */
public final class IndexOptimizer {

    private IndexOptimizer() {
    }

    /** Optimizes the named indexes (all scalar indexes when {@code names} is null or empty). */
    public static Mono<Dataset> optimize(Dataset ds, List<String> names) {
        return Mono.defer(() -> {
            Map<String, List<IndexInfo>> byName = new LinkedHashMap<>();
            for (IndexInfo i : IndexCatalog.list(ds)) {
                byName.computeIfAbsent(i.name(), k -> new ArrayList<>()).add(i);
            }
            if (names != null) {
                for (String n : names) {
                    if (!byName.containsKey(n)) {
                        return Mono.error(new InvalidScanException(ds.uri(), ds.version(), "No index named '" + n + "'"));
                    }
                }
            }
            RoaringBitmap all = new RoaringBitmap();
            for (FragmentInfo f : ds.fragments()) {
                all.add((int) f.id());
            }
            List<Mono<IndexMetadata>> builds = new ArrayList<>();
            List<IndexMetadata> removed = new ArrayList<>();
            for (var e : byName.entrySet()) {
                if (names != null && !names.isEmpty() && !names.contains(e.getKey())) {
                    continue;
                }
                IndexInfo first = e.getValue().get(0);
                IndexKind kind = kindOf(first.type());
                if (kind == null || !first.readable() || first.fieldIds().size() != 1 || e.getValue().stream().anyMatch(i -> i.type() != first.type())) {
                    continue;
                }
                RoaringBitmap covered = new RoaringBitmap();
                e.getValue().forEach(i -> covered.or(i.fragments()));
                if (RoaringBitmap.andNot(all, covered).isEmpty() && e.getValue().size() == 1) {
                    continue; // already covers everything in one segment
                }
                String column = first.column();
                Field field = ds.schema().getFields().stream().filter(f -> f.getName().equals(column)).findFirst().orElse(null);
                if (field == null) {
                    continue; // nested or dropped column: not rebuilt here
                }
                builds.add(IndexCreator.build(ds, column, field, kind, IndexParams.defaults(), e.getKey()));
                e.getValue().forEach(i -> removed.add(i.metadata()));
            }
            if (builds.isEmpty()) {
                return Mono.empty();
            }
            return Flux.concat(builds).collectList()
                    .flatMap(added -> ds.commit(Transactions.createIndex(ds.version(), added, removed)));
        });
    }

    static IndexKind kindOf(IndexType t) {
        if (t == null) {
            return null;
        }
        return switch (t) {
            case BTREE -> IndexKind.BTREE;
            case BITMAP -> IndexKind.BITMAP;
            case LABEL_LIST -> IndexKind.LABEL_LIST;
            case ZONEMAP -> IndexKind.ZONEMAP;
            case BLOOM_FILTER -> IndexKind.BLOOM_FILTER;
            default -> null;
        };
    }
}
