package io.javelin.engine.index;

import io.javelin.engine.Dataset;
import io.javelin.engine.filter.Expr;
import io.javelin.index.IndexReaders;
import io.javelin.index.IndexType;
import io.javelin.index.LanceIndexFileSource;
import io.javelin.index.rowid.RowAddrTreeMap;
import io.javelin.index.scalar.BitmapIndex;
import io.javelin.index.scalar.SargableQuery;
import io.javelin.index.rowid.SearchResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.roaringbitmap.RoaringBitmap;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Index answers for function predicates: a LabelList index for {@code array_has_any/array_has_all/array_has}
 * with literal labels, and a BTree (or any range-capable index) for {@code starts_with(col, 'p')} and
 * {@code col LIKE 'p%'} as the range [p, p with its last character incremented). LabelList answers with
 * string labels on a string list (or integer labels on an integer list) are exact: the rows holding the labels
 * are exactly the rows where the function is TRUE (NULL lists hold none). Everything else is re-checked.
 */
final class FunctionPredicates {

    private static final Set<String> HAS_ANY = Set.of("array_has_any", "list_has_any", "arrays_overlap");
    private static final Set<String> HAS_ALL = Set.of("array_has_all", "list_has_all");
    private static final Set<String> HAS = Set.of("array_has", "array_contains", "list_has", "list_contains");

    private FunctionPredicates() {
    }

    static Optional<Mono<Optional<ScalarIndexScan.Candidates>>> candidates(Dataset ds, List<IndexInfo> indexes, Expr e) {
        if (e instanceof Expr.Call c && c.args().size() == 2 && c.args().get(0) instanceof Expr.Column col && col.path().size() == 1) {
            String column = col.path().getFirst();
            if (c.name().equals("starts_with")) {
                return prefix(c.args().get(1)).map(p -> range(ds, indexes, column, p));
            }
            boolean any = HAS_ANY.contains(c.name()) || HAS.contains(c.name());
            if (any || HAS_ALL.contains(c.name())) {
                return labels(c.args().get(1), HAS.contains(c.name())).map(l -> labelList(ds, indexes, column, l, any,
                        exactLabels(ds, column, l)));
            }
        }
        if (e instanceof Expr.Like l && !l.negated() && !l.caseInsensitive() && l.escape() == null
                && l.operand() instanceof Expr.Column col && col.path().size() == 1) {
            String p = l.pattern();
            int wild = firstWildcard(p);
            if (wild > 0 && wild == p.length() - 1 && p.charAt(wild) == '%') {
                return Optional.of(range(ds, indexes, col.path().getFirst(), p.substring(0, wild)));
            }
        }
        return Optional.empty();
    }

    private static int firstWildcard(String p) {
        for (int i = 0; i < p.length(); i++) {
            char ch = p.charAt(i);
            if (ch == '%' || ch == '_' || ch == '\\') {
                return ch == '\\' ? -1 : i;
            }
        }
        return -1;
    }

    private static boolean exactLabels(Dataset ds, String column, List<Object> labels) {
        var f = ds.schema().getFields().stream().filter(x -> x.getName().equals(column)).findFirst().orElse(null);
        if (f == null || f.getChildren().isEmpty()) {
            return false;
        }
        var t = f.getChildren().getFirst().getType();
        boolean strings = t instanceof org.apache.arrow.vector.types.pojo.ArrowType.Utf8
                || t instanceof org.apache.arrow.vector.types.pojo.ArrowType.LargeUtf8;
        boolean ints = t instanceof org.apache.arrow.vector.types.pojo.ArrowType.Int i && i.getIsSigned();
        return labels.stream().allMatch(l -> strings ? l instanceof String : ints && l instanceof Long);
    }

    private static Optional<String> prefix(Expr e) {
        return e instanceof Expr.Literal l && l.type() == null && l.value() instanceof String s && !s.isEmpty()
                ? Optional.of(s) : Optional.empty();
    }

    private static Optional<List<Object>> labels(Expr e, boolean single) {
        List<Expr> items = single ? List.of(e) : e instanceof Expr.ArrayLiteral a ? a.items() : List.of();
        if (items.isEmpty()) {
            return Optional.empty();
        }
        List<Object> out = new ArrayList<>();
        for (Expr x : items) {
            if (!(x instanceof Expr.Literal l) || l.value() == null || l.type() != null) {
                return Optional.empty();
            }
            out.add(l.value());
        }
        return Optional.of(out);
    }

    /** Strings starting with {@code p}: [p, successor) in code point order, which is UTF-8 byte order. */
    private static Mono<Optional<ScalarIndexScan.Candidates>> range(Dataset ds, List<IndexInfo> indexes, String column, String p) {
        int[] cps = p.codePoints().toArray();
        int last = cps.length - 1;
        while (last >= 0 && cps[last] == Character.MAX_CODE_POINT) {
            last--;
        }
        String hi = null;
        if (last >= 0) {
            cps[last]++;
            if (cps[last] >= Character.MIN_SURROGATE && cps[last] <= Character.MAX_SURROGATE) {
                cps[last] = Character.MAX_SURROGATE + 1;
            }
            hi = new String(cps, 0, last + 1);
        }
        SargableQuery q = new SargableQuery.Range(p, true, hi, false);
        return ScalarIndexScan.query(ds, indexes, column, q).map(o -> o.map(ScalarIndexScan.Candidates::inexact));
    }

    private static Mono<Optional<ScalarIndexScan.Candidates>> labelList(Dataset ds, List<IndexInfo> indexes, String column,
                                                                       List<Object> labels, boolean any, boolean exact) {
        List<IndexInfo> segments = indexes.stream()
                .filter(i -> i.type() == IndexType.LABEL_LIST && column.equals(i.column())).toList();
        if (segments.isEmpty()) {
            return Mono.just(Optional.empty());
        }
        return Flux.fromIterable(segments)
                .concatMap(seg -> {
                    String key = IndexCaches.key(ds, seg.uuid());
                    return IndexCaches.shared().get(key + "/labellist", () -> {
                                LanceIndexFileSource src = LanceIndexFileSource.forSegment(ds.objectStore(), "", seg.uuid(),
                                        new org.apache.arrow.memory.RootAllocator());
                                return IndexReaders.openBitmap(src, key);
                            }, b -> 64L * b.numKeys() + 1024)
                            .map(b -> {
                                BitmapIndex bm = (BitmapIndex) b;
                                SearchResult r = any ? bm.hasAnyLabel(labels) : bm.hasAllLabels(labels);
                                return ((SearchResult.Exact) r).rows();
                            })
                            .flatMap(rows -> RowIdTranslation.toAddresses(ds, seg, rows))
                            .map(rows -> new ScalarIndexScan.Candidates(ScalarIndexScan.restrict(rows, seg.fragments()),
                                    seg.fragments(), exact));
                })
                .reduce((a, b) -> new ScalarIndexScan.Candidates(RowAddrTreeMap.or(a.rows(), b.rows()),
                        RoaringBitmap.or(a.fragments(), b.fragments()), exact))
                .map(Optional::of)
                .defaultIfEmpty(Optional.empty())
                .onErrorResume(io.javelin.index.CorruptIndexException.class, err -> Mono.just(Optional.empty()));
    }
}
