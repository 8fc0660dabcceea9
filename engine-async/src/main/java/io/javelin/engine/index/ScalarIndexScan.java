package io.javelin.engine.index;

import io.javelin.engine.Dataset;
import io.javelin.engine.filter.Expr;
import io.javelin.engine.filter.FilterParser;
import io.javelin.engine.filter.Predicate;
import io.javelin.index.IndexReaders;
import io.javelin.index.LanceIndexFileSource;
import io.javelin.index.rowid.RowAddrTreeMap;
import io.javelin.index.rowid.SearchResult;
import io.javelin.index.scalar.BTreeIndex;
import io.javelin.index.scalar.BitmapIndex;
import io.javelin.index.scalar.BloomFilterIndex;
import io.javelin.index.scalar.ZoneMapIndex;
import io.javelin.index.scalar.SargableQuery;
import io.javelin.index.scalar.ScalarKind;
import io.javelin.tx.FragmentInfo;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.util.TransferPair;
import org.roaringbitmap.RoaringBitmap;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The filter planner's scalar-index path. Sargable leaves of the filter (column {@code = < <= > >=}
 * literal, {@code IN}, {@code BETWEEN}, {@code IS NULL}) on a column with a BTree or Bitmap index are
 * answered by the index; AND intersects and OR unions their row sets (each a superset of the matching
 * rows within the fragments the index covers). The candidate rows of covered fragments are then taken
 * by address and the <em>whole</em> filter is re-evaluated on them (so results equal a full scan's;
 * deleted rows are dropped before the take), and fragments no index covers are scanned normally.
 * Output order: covered fragments' rows in address order, then the uncovered fragments.
 * When no index applies the regular scan runs unchanged.
 */
public final class ScalarIndexScan {

    /** Scans answered through an index (tests and metrics). */
    public static final java.util.concurrent.atomic.AtomicLong INDEXED_SCANS = new java.util.concurrent.atomic.AtomicLong();

    private ScalarIndexScan() {
    }

    /** Rows matching a filter leaf set: {@code rows} ⊇ matches within {@code fragments}. */
    /**
     * Rows that may match, within {@code fragments} (the fragments the indexes cover). {@code exact}: within
     * those fragments the rows are exactly the matches of the whole expression (deletions aside), so the
     * taken rows need no re-check and the predicate's columns need not be read.
     */
    record Candidates(RowAddrTreeMap rows, RoaringBitmap fragments, boolean exact) {
        Candidates inexact() {
            return exact ? new Candidates(rows, fragments, false) : this;
        }
    }

    /**
     * The scan hook: {@code regular} when no index helps, else the indexed plan. {@code scanFragments}
     * runs the same scan (filter, columns, row-id options, no limit/offset) restricted to fragment ids.
     */
    public static Flux<VectorSchemaRoot> scan(Dataset ds, List<String> columns, String filter, boolean withRowId,
                                              boolean withRowAddress, long limit, long offset, int batchSize,
                                              Function<List<Long>, Flux<VectorSchemaRoot>> scanFragments, BufferAllocator allocator,
                                              Flux<VectorSchemaRoot> regular) {
        List<IndexInfo> indexes = IndexCatalog.usable(ds).stream()
                .filter(i -> i.isScalarLookup() || i.type() == io.javelin.index.IndexType.LABEL_LIST).toList();
        if (indexes.isEmpty() || filter == null || (columns != null && columns.stream().anyMatch(c -> c.contains(".")))) {
            return regular;
        }
        Expr expr;
        Predicate pred;
        try {
            expr = FilterParser.parse(filter);
            pred = Predicate.compile(filter, ds.schema());
        } catch (RuntimeException e) {
            return regular; // the regular scan reports the error with its position
        }
        if (!pred.rowColumns().isEmpty()) {
            return regular; // _rowid/_rowaddr are built by the regular scan's filter step
        }
        return candidates(ds, indexes, expr).flatMapMany(opt -> {
            if (opt.isEmpty()) {
                return regular;
            }
            INDEXED_SCANS.incrementAndGet();
            return indexed(ds, opt.get(), pred, columns, withRowId, withRowAddress, limit, offset, batchSize, scanFragments,
                    allocator);
        });
    }

    /** Addresses of the live rows matching {@code filter} (uses indexes through the scanner's hook). */
    public static Mono<RowAddrTreeMap> matchingAddresses(Dataset ds, String filter) {
        return Mono.usingWhen(Mono.fromCallable(RootAllocator::new),
                alloc -> ds.scanner().filter(filter).columns(List.of()).withRowAddress(true).scan(alloc)
                        .reduce(new RowAddrTreeMap(), (acc, b) -> {
                            try (b) {
                                UInt8Vector a = (UInt8Vector) b.getVector("_rowaddr");
                                for (int i = 0; i < b.getRowCount(); i++) {
                                    acc.add(a.get(i));
                                }
                                return acc;
                            }
                        }),
                alloc -> Mono.fromRunnable(alloc::close));
    }

    // ------------------------------------------------------------------ candidates

    static Mono<Optional<Candidates>> candidates(Dataset ds, List<IndexInfo> indexes, Expr e) {
        return switch (e) {
            case Expr.And a -> Flux.fromIterable(fuseRanges(conjuncts(a, new ArrayList<>())))
                    .concatMap(c -> c instanceof Leaf q ? query(ds, indexes, q.column(), q.query()) : candidates(ds, indexes, (Expr) c))
                    .collectList()
                    .map(parts -> {
                        // a conjunct no index answers is only checked by the re-check: then nothing is exact
                        boolean allIndexed = parts.stream().allMatch(Optional::isPresent);
                        Optional<Candidates> acc = Optional.empty();
                        for (Optional<Candidates> r : parts) {
                            acc = acc.isEmpty() ? r : r.isEmpty() ? acc : Optional.of(and(acc.get(), r.get()));
                        }
                        return allIndexed ? acc : acc.map(Candidates::inexact);
                    });
            case Expr.Or o -> Mono.zip(candidates(ds, indexes, o.left()), candidates(ds, indexes, o.right())).map(t -> {
                if (t.getT1().isEmpty() || t.getT2().isEmpty()) {
                    return Optional.<Candidates>empty();
                }
                Candidates l = t.getT1().get(), r = t.getT2().get();
                RoaringBitmap f = RoaringBitmap.and(l.fragments(), r.fragments());
                return Optional.of(new Candidates(restrict(RowAddrTreeMap.or(l.rows(), r.rows()), f), f, l.exact() && r.exact()));
            });
            default -> {
                Optional<Mono<Optional<Candidates>>> fn = FunctionPredicates.candidates(ds, indexes, e);
                yield fn.orElseGet(() -> leaf(e).map(q -> query(ds, indexes, q.column(), q.query())).orElse(Mono.just(Optional.empty())));
            }
        };
    }

    private static List<Expr> conjuncts(Expr e, List<Expr> out) {
        if (e instanceof Expr.And a) {
            conjuncts(a.left(), out);
            conjuncts(a.right(), out);
        } else {
            out.add(e);
        }
        return out;
    }

    /**
     * Pairs a lower-bound-only and an upper-bound-only comparison on the same column into one range, so
     * {@code x >= a AND x < b} is one index search over the pages between a and b instead of two
     * half-open searches that each match about half of the column and are then intersected.
     * Returns {@link Leaf}s (fused ranges) and the remaining {@link Expr}s, in the input order.
     */
    static List<Object> fuseRanges(List<Expr> conj) {
        List<Object> out = new ArrayList<>(conj);
        for (int i = 0; i < out.size(); i++) {
            Optional<Leaf> li = out.get(i) instanceof Expr e ? leaf(e) : Optional.empty();
            if (li.isEmpty() || !(li.get().query() instanceof SargableQuery.Range ri) || (ri.lo() == null) == (ri.hi() == null)) {
                continue;
            }
            for (int j = i + 1; j < out.size(); j++) {
                Optional<Leaf> lj = out.get(j) instanceof Expr e ? leaf(e) : Optional.empty();
                if (lj.isEmpty() || !lj.get().column().equals(li.get().column())
                        || !(lj.get().query() instanceof SargableQuery.Range rj) || (rj.lo() == null) == (rj.hi() == null)
                        || (rj.lo() == null) == (ri.lo() == null)) {
                    continue;
                }
                SargableQuery.Range lower = ri.lo() != null ? ri : rj;
                SargableQuery.Range upper = ri.lo() != null ? rj : ri;
                out.set(i, new Leaf(li.get().column(), new SargableQuery.Range(lower.lo(), lower.loInclusive(), upper.hi(), upper.hiInclusive())));
                out.remove(j);
                break;
            }
        }
        return out;
    }

    private static Candidates and(Candidates l, Candidates r) {
        RoaringBitmap both = RoaringBitmap.and(l.fragments(), r.fragments());
        RowAddrTreeMap rows = RowAddrTreeMap.and(restrict(l.rows(), both), restrict(r.rows(), both));
        rows = RowAddrTreeMap.or(rows, restrict(l.rows(), RoaringBitmap.andNot(l.fragments(), r.fragments())));
        rows = RowAddrTreeMap.or(rows, restrict(r.rows(), RoaringBitmap.andNot(r.fragments(), l.fragments())));
        // rows of fragments only one side covers were not checked against the other side
        return new Candidates(rows, RoaringBitmap.or(l.fragments(), r.fragments()),
                l.exact() && r.exact() && l.fragments().equals(r.fragments()));
    }

    static RowAddrTreeMap restrict(RowAddrTreeMap rows, RoaringBitmap fragments) {
        RowAddrTreeMap whole = new RowAddrTreeMap();
        fragments.forEach((int f) -> whole.addFullFragment(f));
        return RowAddrTreeMap.and(rows, whole);
    }

    record Leaf(String column, SargableQuery query) {
    }

    /** The sargable form of a leaf, if it has one. */
    static Optional<Leaf> leaf(Expr e) {
        switch (e) {
            case Expr.Compare c -> {
                Expr.Column col;
                Expr.Literal lit;
                Expr.CompareOp op = c.op();
                if (c.left() instanceof Expr.Column cc && c.right() instanceof Expr.Literal ll) {
                    col = cc;
                    lit = ll;
                } else if (c.right() instanceof Expr.Column cc && c.left() instanceof Expr.Literal ll) {
                    col = cc;
                    lit = ll;
                    op = switch (op) {
                        case LT -> Expr.CompareOp.GT;
                        case LE -> Expr.CompareOp.GE;
                        case GT -> Expr.CompareOp.LT;
                        case GE -> Expr.CompareOp.LE;
                        default -> op;
                    };
                } else {
                    return Optional.empty();
                }
                if (col.path().size() != 1 || lit.value() == null || lit.type() != null) {
                    return Optional.empty();
                }
                Object v = lit.value();
                SargableQuery q = switch (op) {
                    case EQ -> new SargableQuery.Equals(v);
                    case LT -> new SargableQuery.Range(null, false, v, false);
                    case LE -> new SargableQuery.Range(null, false, v, true);
                    case GT -> new SargableQuery.Range(v, false, null, false);
                    case GE -> new SargableQuery.Range(v, true, null, false);
                    case NE -> null;
                };
                return q == null ? Optional.empty() : Optional.of(new Leaf(col.path().get(0), q));
            }
            case Expr.In in -> {
                if (in.negated() || !(in.operand() instanceof Expr.Column col) || col.path().size() != 1) {
                    return Optional.empty();
                }
                List<Object> vals = new ArrayList<>();
                for (Expr x : in.values()) {
                    if (!(x instanceof Expr.Literal l) || l.value() == null || l.type() != null) {
                        return Optional.empty();
                    }
                    vals.add(l.value());
                }
                return Optional.of(new Leaf(col.path().get(0), new SargableQuery.IsIn(vals)));
            }
            case Expr.Between b -> {
                if (b.negated() || !(b.operand() instanceof Expr.Column col) || col.path().size() != 1
                        || !(b.low() instanceof Expr.Literal lo) || !(b.high() instanceof Expr.Literal hi)
                        || lo.value() == null || hi.value() == null || lo.type() != null || hi.type() != null) {
                    return Optional.empty();
                }
                return Optional.of(new Leaf(col.path().get(0), new SargableQuery.Range(lo.value(), true, hi.value(), true)));
            }
            case Expr.IsNull n -> {
                if (n.negated() || !(n.operand() instanceof Expr.Column col) || col.path().size() != 1) {
                    return Optional.empty();
                }
                return Optional.of(new Leaf(col.path().get(0), new SargableQuery.IsNull()));
            }
            default -> {
                return Optional.empty();
            }
        }
    }

    /** Whether literal {@code v} can be compared with index values of {@code kind} without changing the predicate. */
    static boolean compatible(ScalarKind kind, Object v) {
        return switch (kind) {
            case SIGNED -> v instanceof Long;
            case UNSIGNED -> v instanceof Long l && l >= 0;
            case FLOAT -> v instanceof Long || v instanceof Double d && !d.isNaN();
            case UTF8 -> v instanceof String;
            case BOOL -> v instanceof Boolean;
            case BINARY -> false;
        };
    }

    private static boolean compatible(ScalarKind kind, SargableQuery q) {
        return switch (q) {
            case SargableQuery.Equals eq -> compatible(kind, eq.value());
            case SargableQuery.Range r -> (r.lo() == null || compatible(kind, r.lo())) && (r.hi() == null || compatible(kind, r.hi()));
            case SargableQuery.IsIn in -> in.values().stream().allMatch(v -> compatible(kind, v));
            case SargableQuery.IsNull n -> true;
        };
    }

    /** Preference among indexes on one column: exact lookups first, then zone maps, then bloom filters. */
    static int rank(IndexInfo i) {
        return switch (i.type()) {
            case BTREE -> 0;
            case BITMAP -> 1;
            case ZONEMAP -> 2;
            case BLOOM_FILTER -> 3;
            default -> 9;
        };
    }

    static Mono<Optional<Candidates>> query(Dataset ds, List<IndexInfo> indexes, String column, SargableQuery q) {
        Field f = ds.schema().getFields().stream().filter(x -> x.getName().equals(column)).findFirst().orElse(null);
        if (f == null) {
            return Mono.just(Optional.empty());
        }
        ScalarKind kind;
        try {
            kind = ScalarKind.of(f.getType(), column);
        } catch (RuntimeException e) {
            return Mono.just(Optional.empty());
        }
        // date/timestamp columns compare with typed literals the index does not see; only plain types here
        ArrowType.ArrowTypeID id = f.getType().getTypeID();
        boolean plain = id == ArrowType.ArrowTypeID.Int || id == ArrowType.ArrowTypeID.FloatingPoint || id == ArrowType.ArrowTypeID.Utf8
                || id == ArrowType.ArrowTypeID.LargeUtf8 || id == ArrowType.ArrowTypeID.Bool;
        if (!plain || !compatible(kind, q)) {
            return Mono.just(Optional.empty());
        }
        SargableQuery typed = SargableQuery.coerce(q, kind);
        // the best index on the column that answers this query kind; all its segments (optimize may add delta segments)
        IndexInfo best = indexes.stream()
                .filter(i -> column.equals(i.column()) && (i.type() != io.javelin.index.IndexType.BLOOM_FILTER || BloomFilterIndex.supports(typed)))
                .min(java.util.Comparator.comparingInt(ScalarIndexScan::rank)).orElse(null);
        if (best == null) {
            return Mono.just(Optional.empty());
        }
        List<IndexInfo> segments = indexes.stream().filter(i -> i.name().equals(best.name()) && i.type() == best.type()).toList();
        // BTree and Bitmap answer exactly; floats keep the re-check (the index orders -0.0/NaN totally, SQL does not)
        boolean exact = (best.type() == io.javelin.index.IndexType.BTREE || best.type() == io.javelin.index.IndexType.BITMAP)
                && id != ArrowType.ArrowTypeID.FloatingPoint;
        Map<Long, Long> physical = new HashMap<>();
        for (FragmentInfo fi : ds.fragments()) {
            physical.put(fi.id(), fi.physicalRows());
        }
        java.util.function.LongUnaryOperator rowsOf = frag -> physical.getOrDefault(frag, -1L);
        return Flux.fromIterable(segments)
                .concatMap(seg -> search(ds, seg, f, typed, rowsOf).map(rows -> new Candidates(restrict(rows, seg.fragments()), seg.fragments(), exact)))
                .reduce((a, b) -> new Candidates(RowAddrTreeMap.or(a.rows(), b.rows()), RoaringBitmap.or(a.fragments(), b.fragments()), exact))
                .map(Optional::of)
                .defaultIfEmpty(Optional.empty())
                // a corrupt or unreadable segment: fall back to scanning (never wrong rows)
                .onErrorResume(io.javelin.index.CorruptIndexException.class, e -> Mono.just(Optional.empty()));
    }

    /** One segment's superset of the matching rows (in index row-id space translated to addresses). */
    static Mono<RowAddrTreeMap> search(Dataset ds, IndexInfo idx, Field f, SargableQuery typed, java.util.function.LongUnaryOperator rowsOf) {
        String key = IndexCaches.key(ds, idx.uuid());
        Mono<SearchResult> result = switch (idx.type()) {
            case BTREE -> {
                LanceIndexFileSource src = LanceIndexFileSource.forSegment(ds.objectStore(), "", idx.uuid(), new RootAllocator());
                yield IndexCaches.shared().get(key + "/lookup", () -> IndexReaders.openBTree(src, key), b -> 64L * b.pages().size() + 1024)
                        .flatMap(b -> IndexReaders.searchBTree((BTreeIndex) b, src, typed, key, IndexCaches.shared()));
            }
            case BITMAP -> IndexCaches.shared().get(key + "/bitmap", () -> {
                LanceIndexFileSource src = LanceIndexFileSource.forSegment(ds.objectStore(), "", idx.uuid(), new RootAllocator());
                return IndexReaders.openBitmap(src, key);
            }, b -> 64L * b.numKeys() + 1024).map(b -> ((BitmapIndex) b).search(typed));
            case ZONEMAP -> IndexCaches.shared().get(key + "/zonemap", () -> {
                LanceIndexFileSource src = LanceIndexFileSource.forSegment(ds.objectStore(), "", idx.uuid(), new RootAllocator());
                return IndexReaders.openZoneMap(src, key);
            }, z -> 96L * z.zones().size() + 1024).map(z -> ((ZoneMapIndex) z).search(typed, rowsOf));
            case BLOOM_FILTER -> IndexCaches.shared().get(key + "/bloom", () -> {
                LanceIndexFileSource src = LanceIndexFileSource.forSegment(ds.objectStore(), "", idx.uuid(), new RootAllocator());
                return IndexReaders.openBloomFilter(src, f.getType(), key);
            }, b -> b.zones().stream().mapToLong(z -> z.filter().numBytes() + 64L).sum() + 1024)
                    .map(b -> ((BloomFilterIndex) b).search(typed, rowsOf));
            default -> Mono.error(new io.javelin.index.CorruptIndexException(key, "not a scalar lookup index: " + idx.type()));
        };
        return result.flatMap(r -> switch (r) {
            case SearchResult.Exact x -> Mono.just(x.rows());
            case SearchResult.AtMost x -> Mono.just(x.rows());
            // a subset cannot bound the matches: treat as unusable
            case SearchResult.AtLeast x -> Mono.error(new io.javelin.index.CorruptIndexException(key, "index cannot bound the matches"));
        }).flatMap(rows -> RowIdTranslation.toAddresses(ds, idx, rows));
    }

    // ------------------------------------------------------------------ indexed plan

    private static Flux<VectorSchemaRoot> indexed(Dataset ds, Candidates c, Predicate pred, List<String> columns, boolean withRowId,
                                                  boolean withRowAddress, long limit, long offset, int batchSize,
                                                  Function<List<Long>, Flux<VectorSchemaRoot>> scanFragments,
                                                  BufferAllocator allocator) {
        RoaringBitmap live = new RoaringBitmap();
        Map<Integer, FragmentInfo> frags = new HashMap<>();
        for (FragmentInfo f : ds.fragments()) {
            live.add((int) f.id());
            frags.put((int) f.id(), f);
        }
        RoaringBitmap covered = RoaringBitmap.and(c.fragments(), live);
        List<Long> uncovered = new ArrayList<>();
        for (FragmentInfo f : ds.fragments()) {
            if (!covered.contains((int) f.id())) {
                uncovered.add(f.id());
            }
        }
        // covered fragments with dense candidates (whole fragments from zone indexes, or over a quarter of the
        // rows) are scanned with the filter rather than taken row by row
        RoaringBitmap dense = new RoaringBitmap();
        RowAddrTreeMap sparse = new RowAddrTreeMap();
        RowAddrTreeMap restricted = restrict(c.rows(), covered);
        for (int f : covered) {
            RowAddrTreeMap one = new RowAddrTreeMap();
            one.addFullFragment(f);
            RowAddrTreeMap part = RowAddrTreeMap.and(restricted, one);
            long card = part.cardinality();
            // (taken rows carry addresses; stable _rowid values come from the scan)
            boolean stableIds = withRowId && ds.hasStableRowIds();
            if (card < 0 || card * 4 > frags.get(f).physicalRows() || stableIds && card > 0) {
                dense.add(f);
            } else if (card > 0) {
                sparse = RowAddrTreeMap.or(sparse, part);
            }
        }
        for (FragmentInfo f : ds.fragments()) {
            if (dense.contains((int) f.id())) {
                uncovered.add(f.id());
            }
        }
        uncovered.sort(java.util.Comparator.comparingInt(id -> position(ds, id)));
        RowAddrTreeMap cand = sparse;
        List<String> out = columns != null ? columns : ds.schema().getFields().stream().map(Field::getName).toList();
        LinkedHashSet<String> read = new LinkedHashSet<>(out);
        // exact candidates need no re-check: read only the output columns (unless there are none to take)
        boolean recheck = !c.exact() || out.isEmpty();
        if (recheck) {
            read.addAll(pred.referencedColumns());
        }
        List<String> readList = List.copyOf(read);
        Mono<long[]> addrs = Flux.fromIterable(covered::iterator)
                .map(frags::get)
                .concatMap(f -> f.deletedRows() > 0 || f.fragment().hasDeletionFile()
                        ? ds.snapshot().deletions(f).map(d -> Map.entry((int) f.id(), d)) : Mono.just(Map.entry((int) f.id(), new RoaringBitmap())), 4)
                .collectMap(Map.Entry::getKey, Map.Entry::getValue)
                .map(deleted -> {
                    long[] all = cand.toArray();
                    int n = 0;
                    for (long a : all) {
                        int f = (int) (a >>> 32);
                        int o = (int) a;
                        FragmentInfo fi = frags.get(f);
                        RoaringBitmap d = deleted.get(f);
                        if (fi != null && (o & 0xFFFF_FFFFL) < fi.physicalRows() && (d == null || !d.contains(o))) {
                            all[n++] = a;
                        }
                    }
                    long[] kept = Arrays.copyOf(all, n);
                    Arrays.sort(kept);
                    return kept;
                });
        Flux<VectorSchemaRoot> fromIndex = addrs.flatMapMany(a -> Flux.range(0, (a.length + batchSize - 1) / batchSize)
                .concatMap(b -> {
                    long[] chunk = Arrays.copyOfRange(a, b * batchSize, Math.min(a.length, (b + 1) * batchSize));
                    return ds.takeRowAddresses(chunk, readList, allocator).map(root -> select(root, chunk, recheck ? pred : null, out, withRowId,
                            withRowAddress, allocator));
                }, 1)
                .filter(r -> {
                    if (r.getRowCount() == 0) {
                        r.close();
                        return false;
                    }
                    return true;
                }));
        Flux<VectorSchemaRoot> rest = uncovered.isEmpty() ? Flux.empty() : scanFragments.apply(uncovered);
        Flux<VectorSchemaRoot> all = Flux.concat(fromIndex, rest);
        return (offset > 0 || limit >= 0) ? window(all, offset, limit) : all;
    }

    private static int position(Dataset ds, long fragmentId) {
        List<FragmentInfo> all = ds.fragments();
        for (int i = 0; i < all.size(); i++) {
            if (all.get(i).id() == fragmentId) {
                return i;
            }
        }
        return Integer.MAX_VALUE;
    }

    /** Rows of a taken batch passing the whole predicate, as the output columns (+ row id / address). */
    /** {@code pred} null: every taken row matches (exact candidates). */
    private static VectorSchemaRoot select(VectorSchemaRoot root, long[] addrs, Predicate pred, List<String> out, boolean withRowId,
                                           boolean withRowAddress, BufferAllocator allocator) {
        try (root) {
            int[] pos = pred != null ? pred.evaluate(root).positions() : java.util.stream.IntStream.range(0, root.getRowCount()).toArray();
            List<FieldVector> vectors = new ArrayList<>();
            try {
                for (String c : out) {
                    FieldVector src = root.getVector(c);
                    FieldVector dst = src.getField().createVector(allocator);
                    TransferPair tp = src.makeTransferPair(dst);
                    for (int i = 0; i < pos.length; i++) {
                        tp.copyValueSafe(pos[i], i);
                    }
                    dst.setValueCount(pos.length);
                    vectors.add(dst);
                }
                if (withRowId) {
                    vectors.add(addresses("_rowid", addrs, pos, allocator));
                }
                if (withRowAddress) {
                    vectors.add(addresses("_rowaddr", addrs, pos, allocator));
                }
            } catch (RuntimeException e) {
                vectors.forEach(FieldVector::close);
                throw e;
            }
            return new VectorSchemaRoot(vectors.stream().map(FieldVector::getField).toList(), vectors, pos.length);
        }
    }

    private static FieldVector addresses(String name, long[] addrs, int[] pos, BufferAllocator allocator) {
        UInt8Vector v = new UInt8Vector(name, allocator);
        v.allocateNew(pos.length);
        for (int i = 0; i < pos.length; i++) {
            v.set(i, addrs[pos[i]]);
        }
        v.setValueCount(pos.length);
        return v;
    }

    /** Offset and limit over batches, slicing the edges. */
    private static Flux<VectorSchemaRoot> window(Flux<VectorSchemaRoot> in, long offset, long limit) {
        if (limit == 0) {
            return Flux.empty();
        }
        return Flux.defer(() -> {
            long[] state = {offset, limit < 0 ? Long.MAX_VALUE : limit};
            return in.<VectorSchemaRoot>handle((b, sink) -> {
                int n = b.getRowCount();
                int from = (int) Math.min(n, state[0]);
                state[0] -= from;
                int take = (int) Math.min(n - from, state[1]);
                state[1] -= take;
                if (take == 0) {
                    b.close();
                } else if (from == 0 && take == n) {
                    sink.next(b);
                } else {
                    try (b) {
                        sink.next(b.slice(from, take));
                    }
                }
                if (state[1] == 0) {
                    sink.complete();
                }
            }).doOnDiscard(VectorSchemaRoot.class, VectorSchemaRoot::close);
        });
    }
}
