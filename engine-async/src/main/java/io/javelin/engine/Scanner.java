package io.javelin.engine;

import io.javelin.engine.filter.Predicate;
import io.javelin.tx.FragmentInfo;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * An immutable scan description over one dataset version; every {@code with}-style method returns a copy.
 * {@link #scan(BufferAllocator)} runs it: each emitted batch belongs to the subscriber, who must close it.
 *
 * <p>Names and defaults follow Lance: {@code batch_size} 8192, {@code fragment_readahead} (fragments with
 * reads scheduled at once) 16, {@code batch_readahead} (decoded batches buffered per fragment) = CPUs.
 */
public final class Scanner {

    public static final int DEFAULT_BATCH_SIZE = 8192;
    public static final int DEFAULT_FRAGMENT_READAHEAD = 16;

    final Dataset dataset;
    final List<String> columns;
    final String filter;
    final long limit;
    final long offset;
    final int batchSize;
    final List<Long> fragmentIds;
    final boolean withRowId;
    final boolean withRowAddress;
    final boolean ordered;
    final int fragmentReadahead;
    final int batchReadahead;
    final boolean pushdown;
    final FragmentPruner pruner;
    /** Read-ahead bytes of the whole scan (Lance's {@code io_buffer_size}); 0: the store's default. Set only by copies. */
    long ioBufferSize;

    Scanner(Dataset dataset) {
        this(dataset, null, null, -1, 0, DEFAULT_BATCH_SIZE, null, false, false, true, DEFAULT_FRAGMENT_READAHEAD,
                Math.max(1, Runtime.getRuntime().availableProcessors()), true, FragmentPruner.KEEP_ALL);
    }

    private Scanner(Dataset dataset, List<String> columns, String filter, long limit, long offset, int batchSize,
                    List<Long> fragmentIds, boolean withRowId, boolean withRowAddress, boolean ordered,
                    int fragmentReadahead, int batchReadahead, boolean pushdown, FragmentPruner pruner) {
        this.dataset = dataset;
        this.columns = columns;
        this.filter = filter;
        this.limit = limit;
        this.offset = offset;
        this.batchSize = batchSize;
        this.fragmentIds = fragmentIds;
        this.withRowId = withRowId;
        this.withRowAddress = withRowAddress;
        this.ordered = ordered;
        this.fragmentReadahead = fragmentReadahead;
        this.batchReadahead = batchReadahead;
        this.pushdown = pushdown;
        this.pruner = pruner;
    }

    private Scanner copy(List<String> columns, String filter, long limit, long offset, int batchSize, List<Long> fragmentIds,
                         boolean withRowId, boolean withRowAddress, boolean ordered, int fragmentReadahead,
                         int batchReadahead, boolean pushdown, FragmentPruner pruner) {
        Scanner s = new Scanner(dataset, columns, filter, limit, offset, batchSize, fragmentIds, withRowId, withRowAddress, ordered,
                fragmentReadahead, batchReadahead, pushdown, pruner);
        s.ioBufferSize = ioBufferSize;
        return s;
    }

    private InvalidScanException invalid(String message) {
        return new InvalidScanException(dataset.uri(), dataset.version(), message);
    }

    /** Output columns, top-level or nested paths ({@code "meta.source"}); null = all top-level columns. */
    public Scanner columns(List<String> cols) {
        return copy(cols == null ? null : List.copyOf(cols), filter, limit, offset, batchSize, fragmentIds, withRowId,
                withRowAddress, ordered, fragmentReadahead, batchReadahead, pushdown, pruner);
    }

    public Scanner columns(String... cols) {
        return columns(List.of(cols));
    }

    /** SQL filter ({@code "score > 0.5 AND name LIKE 'a%'"}); null or blank = none. */
    public Scanner filter(String sql) {
        return copy(columns, sql == null || sql.isBlank() ? null : sql, limit, offset, batchSize, fragmentIds, withRowId,
                withRowAddress, ordered, fragmentReadahead, batchReadahead, pushdown, pruner);
    }

    /** At most {@code n} rows; negative = no limit. */
    public Scanner limit(long n) {
        return copy(columns, filter, n, offset, batchSize, fragmentIds, withRowId, withRowAddress, ordered, fragmentReadahead,
                batchReadahead, pushdown, pruner);
    }

    public Scanner offset(long n) {
        if (n < 0) {
            throw invalid("offset must be >= 0, got " + n);
        }
        return copy(columns, filter, limit, n, batchSize, fragmentIds, withRowId, withRowAddress, ordered, fragmentReadahead,
                batchReadahead, pushdown, pruner);
    }

    public Scanner batchSize(int rows) {
        if (rows <= 0) {
            throw invalid("batch size must be positive, got " + rows);
        }
        return copy(columns, filter, limit, offset, rows, fragmentIds, withRowId, withRowAddress, ordered, fragmentReadahead,
                batchReadahead, pushdown, pruner);
    }

    /** Scan only these fragments (by id), in this order. */
    public Scanner fragments(List<Long> ids) {
        return copy(columns, filter, limit, offset, batchSize, ids == null ? null : List.copyOf(ids), withRowId, withRowAddress,
                ordered, fragmentReadahead, batchReadahead, pushdown, pruner);
    }

    /** Adds a {@code _rowid} uint64 column. */
    public Scanner withRowId(boolean on) {
        return copy(columns, filter, limit, offset, batchSize, fragmentIds, on, withRowAddress, ordered, fragmentReadahead,
                batchReadahead, pushdown, pruner);
    }

    /** Adds a {@code _rowaddr} uint64 column ({@code fragment_id << 32 | offset}). */
    public Scanner withRowAddress(boolean on) {
        return copy(columns, filter, limit, offset, batchSize, fragmentIds, withRowId, on, ordered, fragmentReadahead,
                batchReadahead, pushdown, pruner);
    }

    /** Ordered (default): batches in fragment and row order. Unordered: whichever fragment is ready first. */
    public Scanner ordered(boolean on) {
        return copy(columns, filter, limit, offset, batchSize, fragmentIds, withRowId, withRowAddress, on, fragmentReadahead,
                batchReadahead, pushdown, pruner);
    }

    public Scanner fragmentReadahead(int n) {
        if (n <= 0) {
            throw invalid("fragment_readahead must be positive, got " + n);
        }
        return copy(columns, filter, limit, offset, batchSize, fragmentIds, withRowId, withRowAddress, ordered, n,
                batchReadahead, pushdown, pruner);
    }

    /**
     * Encoded bytes the scan may read ahead of its consumer, over all fragments it reads at once (Lance's
     * {@code io_buffer_size}). Default: 256 MiB on local stores, 1 GiB on cloud stores. Each file scan may still
     * hold one page ahead, so a budget smaller than that many pages only slows the scan down.
     */
    public Scanner ioBufferSize(long bytes) {
        if (bytes <= 0) {
            throw invalid("io_buffer_size must be positive, got " + bytes);
        }
        Scanner s = copy(columns, filter, limit, offset, batchSize, fragmentIds, withRowId, withRowAddress, ordered,
                fragmentReadahead, batchReadahead, pushdown, pruner);
        s.ioBufferSize = bytes;
        return s;
    }

    public Scanner batchReadahead(int n) {
        if (n <= 0) {
            throw invalid("batch_readahead must be positive, got " + n);
        }
        return copy(columns, filter, limit, offset, batchSize, fragmentIds, withRowId, withRowAddress, ordered, fragmentReadahead,
                n, pushdown, pruner);
    }

    /**
     * Filter pushdown (default on): statistics pruning through the {@link FragmentPruner} and late
     * materialization (filter columns first, other columns fetched only for surviving rows). Off: every
     * column is read and the filter applied afterwards. Results are the same either way.
     */
    public Scanner pushdown(boolean on) {
        return copy(columns, filter, limit, offset, batchSize, fragmentIds, withRowId, withRowAddress, ordered, fragmentReadahead,
                batchReadahead, on, pruner);
    }

    public Scanner pruner(FragmentPruner p) {
        return copy(columns, filter, limit, offset, batchSize, fragmentIds, withRowId, withRowAddress, ordered, fragmentReadahead,
                batchReadahead, pushdown, p);
    }

    /** The Arrow schema of the batches {@link #scan} emits. */
    public org.apache.arrow.vector.types.pojo.Schema outputSchema() {
        List<org.apache.arrow.vector.types.pojo.Field> fields = new ArrayList<>();
        try (var alloc = new org.apache.arrow.memory.RootAllocator()) {
            Projection p = Projection.of(columns, dataset.schema(), dataset.uri(), dataset.version());
            // compute by pruning an empty batch
            java.util.Map<String, org.apache.arrow.vector.FieldVector> byName = new java.util.LinkedHashMap<>();
            for (String c : p.topLevel()) {
                byName.put(c, BlobV2.scanField(dataset.schema().findField(c)).createVector(alloc)); // blob v2: the descriptor
            }
            List<org.apache.arrow.vector.FieldVector> extra = new ArrayList<>();
            if (withRowId) {
                extra.add(Batches.rowAddresses(Batches.ROW_ID, 0, new long[0], alloc));
            }
            if (withRowAddress) {
                extra.add(Batches.rowAddresses(Batches.ROW_ADDR, 0, new long[0], alloc));
            }
            try (VectorSchemaRoot r = p.apply(byName, extra, 0, alloc)) {
                fields.addAll(r.getSchema().getFields());
            }
        }
        return BatchSchemas.conform(new org.apache.arrow.vector.types.pojo.Schema(fields), dataset.schema());
    }

    /**
     * Runs the scan. Batches are the subscriber's to close; cancelling (or an error) releases everything the
     * scan holds: batches not yet delivered, page buffers, the page-I/O scheduler's byte budget and read
     * slots. Operators the caller adds downstream may themselves drop a batch that races a cancel
     * ({@code take(Duration)}, {@code timeout}): add {@code doOnDiscard(VectorSchemaRoot.class,
     * VectorSchemaRoot::close)} after them, as for any resource-carrying Reactor stream.
     */
    public Flux<VectorSchemaRoot> scan(BufferAllocator allocator) {
        // A tree table lists its fragments from the leaves here, once per version (flat: no I/O).
        Mono<Void> prepare = dataset.snapshot().loadFragments()
                .then(withRowId || filter != null && filter.contains("_rowid") ? dataset.rowIds().preload() : Mono.<Void>empty());
        Flux<VectorSchemaRoot> regular = Flux.defer(() -> Scan.run(this, plan(), allocator));
        // filter planner hook: a BTree/Bitmap index answers sargable predicates (pushdown off = never)
        Flux<VectorSchemaRoot> run = filter == null || !pushdown || fragmentIds != null ? regular
                : Flux.defer(() -> io.javelin.engine.index.ScalarIndexScan.scan(dataset, columns, filter, withRowId, withRowAddress,
                        limit, offset, batchSize, ids -> fragments(ids).limit(-1).offset(0).scan(allocator), allocator, regular));
        // batches leave the engine labelled with the table's names (Arrow Java's vectors say $data$)
        return ConcurrentFailures.routed(prepare.thenMany(run).map(b -> BatchSchemas.conform(b, dataset.schema()))
                .onErrorMap(e -> Dataset.translate(dataset.uri(), dataset.version(), io.javelin.objectstore.internal.FirstError.of(e))));
    }

    /**
     * As {@link #scan(BufferAllocator)}, with blob v2 columns returned as {@code blobs} says: stored
     * descriptors (the default), whole payloads as {@code large_binary}, or the logical write shape.
     */
    public Flux<VectorSchemaRoot> scan(BufferAllocator allocator, BlobHandling blobs) {
        return blobs == BlobHandling.DESCRIPTORS ? scan(allocator) : scan(allocator).contextWrite(ctx -> ctx.put(BlobHandling.class, blobs));
    }

    /**
     * This scan in ORDER BY order, e.g. {@code orderBy("score desc nulls last", "id")}; with a limit it runs as
     * a streaming top-k in bounded memory (see {@link OrderedScan}).
     */
    public OrderedScan orderBy(String... clauses) {
        return new OrderedScan(this, List.of(clauses));
    }

    /**
     * A k-nearest-neighbour query on vector column {@code column} with this scanner's columns, filter
     * (prefilter) and row-id option: {@code scanner().nearest("vec", q, 10).nprobes(16).refineFactor(5).scan(alloc)}.
     */
    public io.javelin.engine.index.NearestQuery nearest(String column, float[] query, int k) {
        return new io.javelin.engine.index.NearestQuery(dataset, columns, filter, withRowId, column, query, k);
    }

    /** Rows the scan would return, ignoring limit and offset; without a filter only metadata is read. */
    public Mono<Long> count() {
        return ConcurrentFailures.routed(dataset.snapshot().loadFragments()
                .then(filter != null && filter.contains("_rowid") ? dataset.rowIds().preload() : Mono.<Void>empty())
                .then(Mono.defer(() -> Scan.count(this, plan())))
                .onErrorMap(e -> Dataset.translate(dataset.uri(), dataset.version(), io.javelin.objectstore.internal.FirstError.of(e))));
    }

    /** What to read: resolved once per run. */
    record Plan(Projection projection, Predicate predicate, List<String> filterColumns, List<String> readColumns,
                List<String> restColumns, List<FragmentInfo> fragments) {
    }

    Plan plan() {
        Projection projection = Projection.of(columns, dataset.schema(), dataset.uri(), dataset.version());
        Predicate predicate = filter == null ? null : dataset.compile(filter);
        List<String> filterCols = new ArrayList<>();
        if (predicate != null) {
            for (var f : dataset.schema().getFields()) {
                if (predicate.referencedColumns().contains(f.getName())) {
                    filterCols.add(f.getName());
                }
            }
        }
        if (predicate != null && filterCols.isEmpty() && !predicate.rowColumns().isEmpty()) {
            filterCols.add(dataset.schema().getFields().getFirst().getName()); // batches need a column to carry row counts
        }
        Set<String> read = new LinkedHashSet<>(projection.topLevel());
        read.addAll(filterCols);
        List<String> rest = new ArrayList<>(projection.topLevel());
        rest.removeAll(filterCols);
        List<FragmentInfo> frags;
        if (fragmentIds == null) {
            frags = dataset.fragments();
        } else {
            frags = new ArrayList<>();
            for (long id : fragmentIds) {
                FragmentInfo found = dataset.fragments().stream().filter(f -> f.id() == id).findFirst()
                        .orElseThrow(() -> invalid("No fragment " + id + " in this version"));
                frags.add(found);
            }
        }
        if (predicate != null && pushdown) {
            frags = frags.stream().filter(f -> pruner.mayMatch(f, predicate)).toList();
        }
        return new Plan(projection, predicate, List.copyOf(filterCols), List.copyOf(read), List.copyOf(rest), frags);
    }
}
