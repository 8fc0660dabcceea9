package io.javelin.engine.index;

import io.javelin.engine.Dataset;
import io.javelin.engine.filter.Expr;
import io.javelin.engine.filter.FilterParser;
import io.javelin.index.IndexType;
import io.javelin.index.rowid.RowAddrTreeMap;
import io.javelin.index.scalar.SargableQuery;
import io.javelin.tx.FragmentInfo;
import java.util.List;
import java.util.Optional;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.roaringbitmap.RoaringBitmap;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * {@code count(filter)} answered from exact indexes alone, without reading data: when every leaf of the
 * filter (combined with AND / OR) is answered exactly by a BTree or Bitmap index — equality, IN and
 * IS NULL on any indexed type, ranges on integer columns only (string and float orders are left to the
 * scan) — and the indexes together cover every fragment, the count is the size of the row set minus
 * deleted rows (deletion files masked). Otherwise empty: the caller scans.
 */
public final class IndexCount {

    /** Counts answered from indexes (tests and metrics). */
    public static final java.util.concurrent.atomic.AtomicLong INDEX_COUNTS = new java.util.concurrent.atomic.AtomicLong();

    private IndexCount() {
    }

    public static Mono<Long> count(Dataset ds, String filter) {
        return Mono.defer(() -> {
            List<IndexInfo> exact = IndexCatalog.usable(ds).stream()
                    .filter(i -> i.type() == IndexType.BTREE || i.type() == IndexType.BITMAP || i.type() == IndexType.LABEL_LIST)
                    .toList();
            if (filter == null || exact.isEmpty()) {
                return Mono.empty();
            }
            Expr expr;
            try {
                expr = FilterParser.parse(filter);
            } catch (RuntimeException e) {
                return Mono.empty();
            }
            RoaringBitmap live = new RoaringBitmap();
            for (FragmentInfo f : ds.fragments()) {
                live.add((int) f.id());
            }
            return rows(ds, exact, expr, live).flatMap(opt -> opt.map(rows -> masked(ds, rows)).orElse(Mono.empty()))
                    .doOnNext(n -> INDEX_COUNTS.incrementAndGet());
        });
    }

    /** The exact matching rows over all live fragments, or empty when some part is not exactly indexed. */
    static Mono<Optional<RowAddrTreeMap>> rows(Dataset ds, List<IndexInfo> indexes, Expr e, RoaringBitmap live) {
        return switch (e) {
            case Expr.And a -> Mono.zip(rows(ds, indexes, a.left(), live), rows(ds, indexes, a.right(), live))
                    .map(t -> t.getT1().isPresent() && t.getT2().isPresent()
                            ? Optional.of(RowAddrTreeMap.and(t.getT1().get(), t.getT2().get())) : Optional.<RowAddrTreeMap>empty());
            case Expr.Or o -> Mono.zip(rows(ds, indexes, o.left(), live), rows(ds, indexes, o.right(), live))
                    .map(t -> t.getT1().isPresent() && t.getT2().isPresent()
                            ? Optional.of(RowAddrTreeMap.or(t.getT1().get(), t.getT2().get())) : Optional.<RowAddrTreeMap>empty());
            default -> {
                // exact LabelList answers (array_has_any/array_has_all/array_has with literal labels)
                var fn = FunctionPredicates.candidates(ds, indexes, e);
                if (fn.isPresent()) {
                    yield fn.get().map(c -> c.filter(x -> x.exact() && RoaringBitmap.andNot(live, x.fragments()).isEmpty())
                            .map(ScalarIndexScan.Candidates::rows));
                }
                Optional<ScalarIndexScan.Leaf> leaf = ScalarIndexScan.leaf(e);
                if (leaf.isEmpty() || !exactOn(ds, leaf.get())) {
                    yield Mono.just(Optional.empty());
                }
                yield ScalarIndexScan.query(ds, indexes, leaf.get().column(), leaf.get().query())
                        .map(c -> c.filter(x -> RoaringBitmap.andNot(live, x.fragments()).isEmpty()).map(ScalarIndexScan.Candidates::rows));
            }
        };
    }

    private static boolean exactOn(Dataset ds, ScalarIndexScan.Leaf leaf) {
        if (!(leaf.query() instanceof SargableQuery.Range)) {
            return true;
        }
        Field f = ds.schema().getFields().stream().filter(x -> x.getName().equals(leaf.column())).findFirst().orElse(null);
        return f != null && f.getType() instanceof ArrowType.Int;
    }

    private static Mono<Long> masked(Dataset ds, RowAddrTreeMap rows) {
        if (rows.cardinality() < 0) {
            return Mono.empty();
        }
        return Flux.fromIterable(ds.fragments())
                .concatMap(f -> {
                    RowAddrTreeMap one = new RowAddrTreeMap();
                    one.addFullFragment((int) f.id());
                    RowAddrTreeMap in = RowAddrTreeMap.and(rows, one);
                    if (in.isEmpty()) {
                        return Mono.just(0L);
                    }
                    Mono<RoaringBitmap> del = f.deletedRows() > 0 || f.fragment().hasDeletionFile()
                            ? ds.snapshot().deletions(f) : Mono.just(new RoaringBitmap());
                    return del.map(d -> {
                        long n = 0;
                        for (long a : in.toArray()) {
                            int off = (int) a;
                            if ((a & 0xFFFF_FFFFL) < f.physicalRows() && !d.contains(off)) {
                                n++;
                            }
                        }
                        return n;
                    });
                }, 4)
                .reduce(0L, Long::sum);
    }
}
