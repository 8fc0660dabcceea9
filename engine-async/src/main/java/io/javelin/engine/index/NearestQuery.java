package io.javelin.engine.index;

import io.javelin.engine.Dataset;
import io.javelin.engine.InvalidScanException;
import io.javelin.index.DeletionMask;
import io.javelin.index.IndexReaders;
import io.javelin.index.LanceIndexFileSource;
import io.javelin.index.LazyIvfIndex;
import io.javelin.index.RowFilter;
import io.javelin.index.rowid.RowAddrTreeMap;
import io.javelin.index.vector.DistanceType;
import io.javelin.index.vector.IvfIndex;
import io.javelin.index.vector.Neighbor;
import io.javelin.index.vector.TopK;
import io.javelin.index.vector.VectorQuery;
import io.javelin.tx.FragmentInfo;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongUnaryOperator;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.roaringbitmap.RoaringBitmap;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * A k-nearest-neighbour query over one vector column of a dataset version ({@code scanner().nearest(...)}):
 * the column's vector index (if any, and {@link #useIndex} is on) answers for the fragments it covers,
 * with Lance's min/max nprobes rule and optional exact refine; fragments it does not cover are searched
 * exactly; deleted rows and rows of vanished fragments never come back. With a filter the search is
 * prefiltered (only matching rows are candidates). The result is one batch, nearest first: the
 * projected columns, {@code _distance} (float32; squared L2 for l2) and {@code _rowid} when asked.
 * Immutable; setters return copies.
 */
public final class NearestQuery {

    public static final String DISTANCE = "_distance";

    private final Dataset ds;
    private final List<String> columns;
    private final String filter;
    private final boolean withRowId;
    private final String column;
    private final float[] query;
    private final int k;
    private final int minNprobes;
    private final int maxNprobes;
    private final int refineFactor;
    private final int ef;
    private final boolean useIndex;
    private final String metric;

    public NearestQuery(Dataset ds, List<String> columns, String filter, boolean withRowId, String column, float[] query, int k) {
        this(ds, columns, filter, withRowId, column, query, k, 1, 0, 0, 0, true, null);
    }

    private NearestQuery(Dataset ds, List<String> columns, String filter, boolean withRowId, String column, float[] query, int k,
                         int minNprobes, int maxNprobes, int refineFactor, int ef, boolean useIndex, String metric) {
        this.ds = ds;
        this.columns = columns;
        this.filter = filter;
        this.withRowId = withRowId;
        this.column = column;
        this.query = query.clone();
        this.k = k;
        this.minNprobes = minNprobes;
        this.maxNprobes = maxNprobes;
        this.refineFactor = refineFactor;
        this.ef = ef;
        this.useIndex = useIndex;
        this.metric = metric;
        if (k <= 0) {
            throw invalid("k must be positive, got " + k);
        }
    }

    private InvalidScanException invalid(String m) {
        return new InvalidScanException(ds.uri(), ds.version(), m);
    }

    private NearestQuery copy(int min, int max, int rf, int e, boolean idx, String m) {
        return new NearestQuery(ds, columns, filter, withRowId, column, query, k, min, max, rf, e, idx, m);
    }

    /** Partitions to search: sets both minimum and maximum (Lance's {@code nprobes}). */
    public NearestQuery nprobes(int n) {
        if (n < 1) {
            throw invalid("nprobes must be >= 1, got " + n);
        }
        return copy(n, n, refineFactor, ef, useIndex, metric);
    }

    /** Lance's {@code minimum_nprobes} / {@code maximum_nprobes} (0 = all partitions). */
    public NearestQuery nprobes(int min, int max) {
        if (min < 1 || (max != 0 && max < min)) {
            throw invalid("invalid nprobes range [" + min + ", " + max + "]");
        }
        return copy(min, max, refineFactor, ef, useIndex, metric);
    }

    /** Re-rank {@code k·factor} candidates by exact distance (vectors taken from the data files). */
    public NearestQuery refineFactor(int factor) {
        if (factor < 0) {
            throw invalid("refine_factor must be >= 0, got " + factor);
        }
        return copy(minNprobes, maxNprobes, factor, ef, useIndex, metric);
    }

    /** HNSW beam width (0 = Lance's default). */
    public NearestQuery ef(int e) {
        return copy(minNprobes, maxNprobes, refineFactor, e, useIndex, metric);
    }

    /** Off: exact (flat) search over every row even when an index exists. */
    public NearestQuery useIndex(boolean on) {
        return copy(minNprobes, maxNprobes, refineFactor, ef, on, metric);
    }

    /** Distance for flat search ({@code l2}, {@code cosine}, {@code dot}); an index searches with its own metric. */
    public NearestQuery metric(String m) {
        DistanceType.parse(m);
        return copy(minNprobes, maxNprobes, refineFactor, ef, useIndex, m);
    }

    /** The neighbours (row address + distance), nearest first, without reading the result rows. */
    public Mono<List<Neighbor>> neighbors() {
        return Mono.defer(this::search).map(Arrays::asList)
                .onErrorMap(e -> e instanceof IllegalArgumentException ? invalid(e.getMessage()) : e);
    }

    /** Runs the query: one batch (nearest first), the subscriber's to close. */
    public Flux<VectorSchemaRoot> scan(BufferAllocator allocator) {
        return neighbors().flatMap(nbs -> rows(nbs, allocator)).map(b -> io.javelin.engine.BatchSchemas.conform(b, ds.schema())).flux();
    }

    // ------------------------------------------------------------------ search

    private Mono<Neighbor[]> search() {
        var field = ds.schema().getFields().stream().filter(f -> f.getName().equals(column)).findFirst()
                .orElseThrow(() -> invalid("No column '" + column + "'"));
        if (!(field.getType() instanceof org.apache.arrow.vector.types.pojo.ArrowType.FixedSizeList fsl)) {
            throw invalid("Column '" + column + "' is not a vector column (fixed_size_list), it is " + field.getType());
        }
        if (fsl.getListSize() != query.length) {
            throw invalid("Query vector has " + query.length + " dimensions, column '" + column + "' has " + fsl.getListSize());
        }
        IndexInfo index = !useIndex ? null : IndexCatalog.usable(ds).stream()
                .filter(i -> i.isVector() && column.equals(i.column())).findFirst().orElse(null);
        // with stable row ids an index holds row ids: they resolve to addresses through the row-id sequences
        boolean stable = index != null && ds.hasStableRowIds();
        Mono<LongUnaryOperator> resolver = stable ? ds.rowAddressResolver() : Mono.just(id -> id);
        Mono<RowAddrTreeMap> allowed = filter == null ? Mono.just(new RowAddrTreeMap()) : ScalarIndexScan.matchingAddresses(ds, filter);
        return Mono.zip(allowed, deletions(), resolver).flatMap(t -> {
            RowFilter prefilter = filter == null ? RowFilter.ALL : t.getT1();
            Map<Integer, RoaringBitmap> deleted = t.getT2();
            RoaringBitmap live = new RoaringBitmap();
            ds.fragments().forEach(f -> live.add((int) f.id()));
            if (index == null) {
                DistanceType type = metric == null ? DistanceType.L2 : DistanceType.parse(metric);
                return flat(live, type, prefilter, deleted);
            }
            RoaringBitmap unindexed = RoaringBitmap.andNot(live, index.fragments());
            LongUnaryOperator addressOf = t.getT3();
            RowFilter masked;
            RowFilter inIndexPrefilter;
            if (stable) {
                // an id is searchable in the index while its live row sits in a fragment the index covers (an
                // updated row moved to a new fragment is found there by the exact search instead)
                RoaringBitmap covered = index.fragments();
                masked = id -> {
                    long a = addressOf.applyAsLong(id);
                    return a < 0 || !covered.contains((int) (a >>> 32));
                };
                inIndexPrefilter = filter == null ? RowFilter.ALL : id -> {
                    long a = addressOf.applyAsLong(id);
                    return a >= 0 && prefilter.allows(a);
                };
            } else {
                masked = new DeletionMask(deleted, index.fragments(), live);
                inIndexPrefilter = prefilter;
            }
            VectorQuery vq = new VectorQuery(query, k, minNprobes, maxNprobes, refineFactor, inIndexPrefilter, masked, RowFilter.ALL, ef);
            return indexed(index, vq, addressOf).flatMap(res -> {
                DistanceType type = res.type();
                Neighbor[] found = res.neighbors();
                if (stable) {
                    found = Arrays.stream(found).map(n -> new Neighbor(addressOf.applyAsLong(n.rowId()), n.distance()))
                            .toArray(Neighbor[]::new);
                }
                if (unindexed.isEmpty()) {
                    return Mono.just(found);
                }
                Neighbor[] fromIndex = found;
                return flat(unindexed, type, prefilter, deleted).map(rest -> merge(fromIndex, rest, k));
            });
        });
    }

    private Mono<Map<Integer, RoaringBitmap>> deletions() {
        return Flux.fromIterable(ds.fragments())
                .filter(f -> f.deletedRows() > 0 || f.fragment().hasDeletionFile())
                .concatMap(f -> ds.snapshot().deletions(f).map(d -> Map.entry((int) f.id(), d)), 4)
                .collectMap(Map.Entry::getKey, Map.Entry::getValue)
                .map(m -> (Map<Integer, RoaringBitmap>) new HashMap<>(m));
    }

    private record Result(Neighbor[] neighbors, DistanceType type) {
    }

    private Mono<Result> indexed(IndexInfo info, VectorQuery vq, LongUnaryOperator addressOf) {
        String key = IndexCaches.key(ds, info.uuid());
        var cache = IndexCaches.shared();
        // the source lives as long as the cached index (segments are immutable); its readers are opened lazily
        Mono<Object> open = cache.get(key + "/ivf", () -> {
            LanceIndexFileSource src = LanceIndexFileSource.forSegment(ds.objectStore(), "", info.uuid(), new RootAllocator());
            return IndexReaders.ivfParts(src, key).flatMap(pp -> pp.hnsw()
                    ? IndexReaders.openIvf(src, key).map(o -> (Object) o)
                    : LazyIvfIndex.open(src, cache, key).map(o -> (Object) o));
        }, o -> o instanceof IvfIndex full ? full.estimatedBytes() : 64 * 1024);
        return open.flatMap(o -> {
            IvfIndex header = o instanceof LazyIvfIndex lazy ? lazy.header() : (IvfIndex) o;
            java.util.function.Function<long[], Mono<float[]>> take = ids -> vectorsOf(resolve(ids, addressOf), header.dim());
            Mono<Neighbor[]> found = o instanceof LazyIvfIndex lazy ? lazy.search(vq, take) : searchLoaded((IvfIndex) o, vq, take);
            return found.map(n -> new Result(n, header.distanceType()));
        });
    }

    /** Probe a fully loaded (HNSW) index on the parallel scheduler, refining through a take. */
    private static Mono<Neighbor[]> searchLoaded(IvfIndex index, VectorQuery q, java.util.function.Function<long[], Mono<float[]>> take) {
        return Mono.fromCallable(() -> {
            IvfIndex.Probe probe = index.probe(q);
            int p;
            while ((p = probe.next()) >= 0) {
                probe.search(p, index.partition(p));
            }
            return probe;
        }).subscribeOn(Schedulers.parallel()).flatMap(probe -> {
            if (q.refineFactor() == 0) {
                return Mono.just(probe.finish(null));
            }
            Neighbor[] cands = probe.candidates();
            long[] ids = Arrays.stream(cands).mapToLong(Neighbor::rowId).toArray();
            return take.apply(ids).map(v -> probe.finish(rows -> v));
        });
    }

    private static long[] resolve(long[] ids, LongUnaryOperator addressOf) {
        long[] out = new long[ids.length];
        for (int i = 0; i < ids.length; i++) {
            out[i] = addressOf.applyAsLong(ids[i]);
        }
        return out;
    }

    /** Row-major f32 vectors of {@code ids} (row addresses), in order. */
    private Mono<float[]> vectorsOf(long[] ids, int dim) {
        if (ids.length == 0) {
            return Mono.just(new float[0]);
        }
        return Mono.usingWhen(Mono.fromCallable(RootAllocator::new),
                alloc -> ds.takeRowAddresses(ids, List.of(column), alloc).map(root -> {
                    try (root) {
                        return floats((FixedSizeListVector) root.getVector(column), root.getRowCount(), dim);
                    }
                }),
                alloc -> Mono.fromRunnable(alloc::close));
    }

    private static float[] floats(FixedSizeListVector v, int rows, int dim) {
        Float4Vector items = (Float4Vector) v.getDataVector();
        float[] out = new float[rows * dim];
        if (v.getNullCount() == 0 && items.getNullCount() == 0) {
            // one bulk copy of the item buffer (little-endian f32, as Arrow lays it out)
            java.lang.foreign.MemorySegment.ofAddress(items.getDataBufferAddress()).reinterpret(4L * rows * dim)
                    .asByteBuffer().order(java.nio.ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(out);
            return out;
        }
        for (int i = 0; i < rows; i++) {
            if (v.isNull(i)) {
                Arrays.fill(out, i * dim, (i + 1) * dim, Float.NaN);
                continue;
            }
            for (int j = 0; j < dim; j++) {
                int at = i * dim + j;
                out[at] = items.isNull(at) ? Float.NaN : items.get(at);
            }
        }
        return out;
    }

    /** Exact top-k over the live rows of {@code fragments} (null vectors never match). */
    private Mono<Neighbor[]> flat(RoaringBitmap fragments, DistanceType type, RowFilter prefilter, Map<Integer, RoaringBitmap> deleted) {
        return FlatVectorScan.search(ds, column, query, k, type, fragments, prefilter);
    }

    static Neighbor[] merge(Neighbor[] a, Neighbor[] b, int k) {
        TopK top = new TopK(k);
        for (Neighbor n : a) {
            top.offer(n.rowId(), n.distance());
        }
        for (Neighbor n : b) {
            top.offer(n.rowId(), n.distance());
        }
        return top.sorted();
    }

    // ------------------------------------------------------------------ rows

    private Mono<VectorSchemaRoot> rows(List<Neighbor> nbs, BufferAllocator allocator) {
        long[] addrs = nbs.stream().mapToLong(Neighbor::rowId).toArray();
        float[] scores = new float[nbs.size()];
        for (int i = 0; i < scores.length; i++) {
            scores[i] = nbs.get(i).distance();
        }
        return SearchRows.take(ds, addrs, columns, withRowId, DISTANCE, scores, allocator);
    }

    /** Fragments of {@code ds} by id (for callers composing searches). */
    static Map<Long, FragmentInfo> byId(Dataset ds) {
        Map<Long, FragmentInfo> m = new HashMap<>();
        ds.fragments().forEach(f -> m.put(f.id(), f));
        return m;
    }
}
