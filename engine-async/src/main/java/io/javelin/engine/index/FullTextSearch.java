package io.javelin.engine.index;

import io.javelin.engine.Dataset;
import io.javelin.engine.InvalidScanException;
import io.javelin.index.DeletionMask;
import io.javelin.index.LanceIndexFileSource;
import io.javelin.index.fts.FtsParams;
import io.javelin.index.fts.FtsPartition;
import io.javelin.index.fts.FtsSearcher;
import io.javelin.index.fts.InvertedIndex;
import io.javelin.index.fts.InvertedIndexReader;
import io.javelin.index.fts.MemoryPartition;
import io.javelin.index.fts.ScoredRow;
import io.javelin.index.fts.TextAnalyzer;
import io.javelin.index.rowid.RowAddrTreeMap;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongPredicate;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.roaringbitmap.RoaringBitmap;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * A full-text query over one dataset version ({@code ds.fullTextSearch(query)}): the column's
 * INVERTED index answers for the fragments it covers; rows of fragments it does not cover are
 * analysed with the index's tokenizer and searched exactly, their statistics added to the index's
 * (Lance's flat search); deleted rows and rows of vanished fragments never come back; with a filter
 * only matching rows are candidates (prefilter). Without an index every row is searched that way
 * with the default tokenizer. Results are BM25-ranked ({@code _score} descending, row id ascending).
 * Immutable; setters return copies.
 */
public final class FullTextSearch {

    public static final String SCORE = "_score";

    private final Dataset ds;
    private final FtsQuery query;
    private final List<String> columns;
    private final String filter;
    private final int limit;
    private final boolean withRowId;

    public FullTextSearch(Dataset ds, FtsQuery query) {
        this(ds, query, null, null, -1, true);
    }

    private FullTextSearch(Dataset ds, FtsQuery query, List<String> columns, String filter, int limit, boolean withRowId) {
        this.ds = ds;
        this.query = query;
        this.columns = columns == null ? null : List.copyOf(columns);
        this.filter = filter;
        this.limit = limit;
        this.withRowId = withRowId;
    }

    /** Columns of the result batch (default: all). */
    public FullTextSearch columns(List<String> cols) {
        return new FullTextSearch(ds, query, cols, filter, limit, withRowId);
    }

    /** SQL prefilter: only rows matching it are scored candidates. */
    public FullTextSearch filter(String f) {
        return new FullTextSearch(ds, query, columns, f, limit, withRowId);
    }

    /** At most {@code n} results (negative: all). */
    public FullTextSearch limit(int n) {
        return new FullTextSearch(ds, query, columns, filter, n, withRowId);
    }

    /** Adds {@code _rowid} to the result batch (default on). */
    public FullTextSearch withRowId(boolean on) {
        return new FullTextSearch(ds, query, columns, filter, limit, on);
    }

    private InvalidScanException invalid(String m) {
        return new InvalidScanException(ds.uri(), ds.version(), m);
    }

    /** The hits (row address and {@code _score}), best first, without reading the result rows. */
    public Mono<List<ScoredRow>> hits() {
        return Mono.defer(this::search)
                .onErrorMap(e -> e instanceof IllegalArgumentException ? invalid(e.getMessage()) : e);
    }

    /** Runs the query: one batch, best first, with {@code _score} (and {@code _rowid}); the subscriber closes it. */
    public Flux<VectorSchemaRoot> scan(BufferAllocator allocator) {
        return hits().flatMap(h -> rows(h, allocator)).flux();
    }

    // ------------------------------------------------------------------ search

    private Mono<List<ScoredRow>> search() {
        String column = query.column();
        var field = ds.schema().getFields().stream().filter(f -> f.getName().equals(column)).findFirst()
                .orElseThrow(() -> invalid("No column '" + column + "'"));
        if (!(field.getType() instanceof ArrowType.Utf8 || field.getType() instanceof ArrowType.LargeUtf8)) {
            throw invalid("Column '" + column + "' is not a string column, it is " + field.getType());
        }
        if (ds.hasStableRowIds()) {
            throw invalid("full-text search on datasets with stable row ids is not supported yet");
        }
        IndexInfo index = IndexCatalog.usable(ds).stream()
                .filter(i -> i.type() == io.javelin.index.IndexType.INVERTED && column.equals(i.column())).findFirst().orElse(null);
        Mono<RowAddrTreeMap> allowed = filter == null ? Mono.just(new RowAddrTreeMap()) : ScalarIndexScan.matchingAddresses(ds, filter);
        Mono<InvertedIndex> opened = index == null ? Mono.just(new InvertedIndex(FtsParams.defaults(), List.of(), "none")) : open(index);
        return Mono.zip(allowed, deletions(), opened).flatMap(t -> {
            RoaringBitmap live = new RoaringBitmap();
            ds.fragments().forEach(f -> live.add((int) f.id()));
            RoaringBitmap covered = index == null ? new RoaringBitmap() : index.fragments();
            DeletionMask mask = new DeletionMask(t.getT2(), covered, live);
            RowAddrTreeMap pass = t.getT1();
            LongPredicate excluded = filter == null ? mask::allows : row -> mask.allows(row) || !pass.contains(row);
            InvertedIndex idx = t.getT3();
            RoaringBitmap unindexed = RoaringBitmap.andNot(live, covered);
            return Mono.fromCallable(() -> new TextAnalyzer(idx.params())).subscribeOn(Schedulers.boundedElastic())
                    .flatMap(analyzer -> unindexed(unindexed, column, analyzer, idx.params().withPosition(), index != null)
                            .flatMap(mem -> {
                                List<FtsPartition> parts = new ArrayList<>(idx.partitions());
                                if (mem.numDocs() > 0) {
                                    parts.add(mem);
                                }
                                return FtsSearcher.search(parts, compile(analyzer, idx.params()), limit, excluded);
                            }));
        });
    }

    private FtsSearcher.Query compile(TextAnalyzer analyzer, FtsParams params) {
        return switch (query) {
            case FtsQuery.Match m -> FtsSearcher.Query.match(analyzer.texts(m.text()), m.operator() == FtsQuery.Operator.AND);
            case FtsQuery.Phrase p -> {
                if (!params.withPosition()) {
                    throw invalid("phrase query on column '" + p.column() + "' needs an index built with with_position=true");
                }
                List<TextAnalyzer.Token> ts = analyzer.tokens(p.text());
                int[] pos = ts.stream().mapToInt(TextAnalyzer.Token::position).toArray();
                yield new FtsSearcher.Query(ts.stream().map(TextAnalyzer.Token::text).toList(), true,
                        new FtsSearcher.Phrase(pos, p.slop()));
            }
        };
    }

    private Mono<InvertedIndex> open(IndexInfo info) {
        String key = IndexCaches.key(ds, info.uuid());
        return IndexCaches.shared().get(key + "/fts", () -> {
            LanceIndexFileSource src = LanceIndexFileSource.forSegment(ds.objectStore(), "", info.uuid(), new RootAllocator());
            return InvertedIndexReader.open(src, key);
        }, i -> 64L * 1024 + i.numDocs() * 12L);
    }

    private Mono<Map<Integer, RoaringBitmap>> deletions() {
        return Flux.fromIterable(ds.fragments())
                .filter(f -> f.deletedRows() > 0 || f.fragment().hasDeletionFile())
                .concatMap(f -> ds.snapshot().deletions(f).map(d -> Map.entry((int) f.id(), d)), 4)
                .collectMap(Map.Entry::getKey, Map.Entry::getValue)
                .map(m -> (Map<Integer, RoaringBitmap>) new HashMap<>(m));
    }

    /** The live rows of {@code fragments}, analysed in memory (row addresses as row ids). */
    private Mono<MemoryPartition> unindexed(RoaringBitmap fragments, String column, TextAnalyzer analyzer, boolean positions,
                                            boolean unindexedOfIndex) {
        List<Long> ids = new ArrayList<>();
        fragments.forEach((int f) -> ids.add((long) f));
        MemoryPartition.Builder b = new MemoryPartition.Builder(analyzer, positions);
        if (ids.isEmpty()) {
            return Mono.just(b.build());
        }
        return Mono.usingWhen(Mono.fromCallable(RootAllocator::new),
                alloc -> ds.scanner().fragments(ids).columns(column).withRowAddress(true).scan(alloc)
                        .publishOn(Schedulers.parallel())
                        .doOnNext(batch -> {
                            try (batch) {
                                FieldVector v = batch.getVector(column);
                                UInt8Vector addr = (UInt8Vector) batch.getVector("_rowaddr");
                                for (int i = 0; i < batch.getRowCount(); i++) {
                                    b.add(addr.get(i), text(v, i));
                                }
                            }
                        })
                        .then(Mono.fromCallable(unindexedOfIndex ? b::buildUnindexed : b::build)),
                alloc -> Mono.fromRunnable(alloc::close));
    }

    static String text(FieldVector v, int i) {
        if (v.isNull(i)) {
            return null;
        }
        byte[] bytes = v instanceof VarCharVector s ? s.get(i) : ((LargeVarCharVector) v).get(i);
        return new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
    }

    // ------------------------------------------------------------------ rows

    private Mono<VectorSchemaRoot> rows(List<ScoredRow> hits, BufferAllocator allocator) {
        long[] addrs = hits.stream().mapToLong(ScoredRow::rowId).toArray();
        float[] scores = new float[hits.size()];
        for (int i = 0; i < scores.length; i++) {
            scores[i] = hits.get(i).score();
        }
        return SearchRows.take(ds, addrs, columns, withRowId, SCORE, scores, allocator);
    }
}
