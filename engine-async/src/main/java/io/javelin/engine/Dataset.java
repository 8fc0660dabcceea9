package io.javelin.engine;

import io.javelin.encoding.file.DecodeOptions;
import io.javelin.encoding.file.LanceFileReader;
import io.javelin.encoding.io.ObjectStoreSource;
import io.javelin.encoding.v1.V1Schema;
import io.javelin.engine.filter.FilterParseException;
import io.javelin.engine.filter.Predicate;
import io.javelin.objectstore.ObjectStore;
import io.javelin.objectstore.ObjectStoreException;
import io.javelin.objectstore.ObjectStores;
import io.javelin.encoding.file.ReadAhead;
import io.javelin.objectstore.io.PageIoScheduler;
import io.javelin.tx.CommitConflictException;
import io.javelin.tx.FragmentInfo;
import io.javelin.tx.InvalidNameException;
import io.javelin.tx.RefAlreadyExistsException;
import io.javelin.tx.RefNotFoundException;
import io.javelin.tx.Snapshot;
import io.javelin.tx.Table;
import io.javelin.tx.TxException;
import io.javelin.tx.VersionNotFoundException;
import io.javelin.tx.commit.CommitEngine;
import io.javelin.tx.commit.CommitOptions;
import io.javelin.tx.deletion.DeletionFiles;
import io.javelin.tx.pb.DataFragment;
import io.javelin.tx.pb.Transaction;
import io.javelin.tx.schema.ArrowSchemas;
import io.javelin.tx.schema.LanceSchema;
import io.javelin.tx.store.ManifestStore;
import io.javelin.tx.store.ObjectStoreManifestStore;
import io.javelin.tx.tag.Tag;
import io.javelin.tx.transaction.OperationKind;
import io.javelin.tx.transaction.Transactions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.roaringbitmap.RoaringBitmap;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * One version of a Lance dataset: an immutable view whose operations return {@link Mono}/{@link Flux} and
 * never block. Writes ({@link #append}, {@link #overwrite}, {@link #delete}) commit a new version and
 * return it as a new {@code Dataset}; this one keeps showing its own version (time travel is
 * {@link #checkout(long)} / {@link #checkout(String)}).
 *
 * <pre>{@code
 * Dataset ds = Dataset.open("/data/events.lance").block();
 * Flux<VectorSchemaRoot> rows = ds.scanner().columns("id", "name").filter("score > 0.5").limit(100).scan(allocator);
 * }</pre>
 *
 * <p>Every {@code Dataset} holds the store open: close each one (datasets derived from another share its
 * store, which closes with the last of them). Errors are {@link DatasetException}s naming the URI and version.
 *
 * <p>Extension points for the operations still to come (update, merge-insert, schema evolution, compaction,
 * cleanup, restore): each is a transaction built by {@link io.javelin.tx.transaction.Transactions} and
 * committed through {@link #commit(Transaction)}, which maps errors and opens the new version.
 */
public final class Dataset implements AutoCloseable {

    /** Shared by all versions opened from one {@link #open}: the store, its page-I/O scheduler, the table. */
    static final class Handle {
        final String uri;
        final ObjectStore store;
        final ManifestStore manifests;
        final Table table;
        final MeteredCommits commits;
        /** One page-I/O scheduler per opened store: its concurrency and byte budget are shared by all scans. */
        final PageIoScheduler io;
        /** Page read-ahead of this store's file scans, chosen by store kind. */
        final ReadAhead readAhead;
        final Map<String, String> options;
        /** Stores of {@code base_paths} other than this root, opened on first use, closed with this handle. */
        final java.util.concurrent.ConcurrentHashMap<String, ObjectStore> bases = new java.util.concurrent.ConcurrentHashMap<>();
        private final AtomicInteger refs = new AtomicInteger(1);
        /** Opened data files of the root, for scans and takes (see {@link OpenFiles}); closed with this handle. */
        final OpenFiles files = new OpenFiles(OpenFiles.MAX_FILES);
        /** Page-I/O schedulers of the other stores blob reads use (external URIs, base paths). */
        final java.util.concurrent.ConcurrentHashMap<ObjectStore, PageIoScheduler> blobIo = new java.util.concurrent.ConcurrentHashMap<>();

        Handle(String uri, ObjectStore store) {
            this(uri, store, Map.of());
        }

        Handle(String uri, ObjectStore store, Map<String, String> options) {
            this.uri = uri;
            this.options = options;
            this.store = store;
            this.manifests = new ObjectStoreManifestStore(store, "");
            this.table = new Table(manifests);
            this.commits = new MeteredCommits(new CommitEngine(manifests, CommitOptions.defaults()), uri,
                    r -> AutoCleanup.afterCommit(this, r));
            this.io = new PageIoScheduler(store);
            this.readAhead = ReadAhead.forStore(store.traits());
        }

        Handle retain() {
            refs.incrementAndGet();
            return this;
        }

        void release() {
            if (refs.decrementAndGet() == 0) {
                files.close();
                bases.values().forEach(ObjectStore::close);
                store.close();
            }
        }

        static Handle open(String uri, Map<String, String> options) {
            try {
                return new Handle(uri, ObjectStores.open(uri, options), options);
            } catch (ObjectStoreException e) {
                throw new DatasetException(uri, -1, "Cannot open store: " + e.getMessage(), e);
            }
        }
    }

    private final Handle handle;
    private final Snapshot snapshot;
    private final Schema arrowSchema;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final StableRowIds rowIds;

    private Dataset(Handle handle, Snapshot snapshot) {
        this.handle = handle;
        this.snapshot = snapshot;
        this.arrowSchema = ArrowSchemas.toArrow(snapshot.schema());
        this.rowIds = new StableRowIds(this);
    }

    // ------------------------------------------------------------------ open

    public static Mono<Dataset> open(String uri) {
        return open(uri, Map.of());
    }

    /** The latest version; {@code storageOptions} are Lance's ({@code aws_region}, {@code timeout}, ...). */
    public static Mono<Dataset> open(String uri, Map<String, String> storageOptions) {
        return open(uri, storageOptions, h -> h.table.open(), -1);
    }

    public static Mono<Dataset> open(String uri, Map<String, String> storageOptions, long version) {
        return open(uri, storageOptions, h -> h.table.checkout(version), version);
    }

    /** The version tag {@code tag} names (a tag on a branch version opens that branch version). */
    public static Mono<Dataset> open(String uri, Map<String, String> storageOptions, String tag) {
        return Mono.usingWhen(Mono.fromCallable(() -> Handle.open(uri, storageOptions)), h -> h.table.tags().read(tag),
                        h -> Mono.fromRunnable(h::release))
                .onErrorMap(e -> translate(uri, -1, e))
                .flatMap(t -> open(t.branch() == null ? uri : BasePaths.child(uri, io.javelin.tx.branch.BranchNames.root(t.branch())),
                        storageOptions, t.version()));
    }

    private static Mono<Dataset> open(String uri, Map<String, String> options,
                                      java.util.function.Function<Handle, Mono<Snapshot>> which, long version) {
        return open(uri, () -> Handle.open(uri, options), which, version);
    }

    /** The latest version on a store opened by the caller (tests wrap stores, e.g. to inject faults); closes it. */
    static Mono<Dataset> open(String uri, ObjectStore store) {
        return open(uri, () -> new Handle(uri, store), h -> h.table.open(), -1);
    }

    private static Mono<Dataset> open(String uri, java.util.function.Supplier<Handle> handle,
                                      java.util.function.Function<Handle, Mono<Snapshot>> which, long version) {
        return Mono.defer(() -> {
            Handle h = handle.get();
            return which.apply(h).map(s -> new Dataset(h, s))
                    .doOnError(e -> h.release())
                    .doOnCancel(h::release)
                    .flatMap(MissingStats::fill)
                    .onErrorMap(e -> translate(uri, version, e));
        });
    }

    // ------------------------------------------------------------------ metadata

    public String uri() {
        return handle.uri;
    }

    public long version() {
        return snapshot.version();
    }

    /** The schema as Arrow (field ids in the {@code PARQUET:field_id}-free Lance form). */
    public Schema schema() {
        return arrowSchema;
    }

    public LanceSchema lanceSchema() {
        return snapshot.schema();
    }

    public Snapshot snapshot() {
        return snapshot;
    }

    public List<FragmentInfo> fragments() {
        return snapshot.fragments();
    }

    /** Lance file version of the data files ("2.0", "2.1", "2.2"). */
    public String dataStorageVersion() {
        return snapshot.dataStorageVersion();
    }

    /** Commit time of this version. */
    public Instant timestamp() {
        var ts = snapshot.manifestFile().manifest().getTimestamp();
        return Instant.ofEpochSecond(ts.getSeconds(), ts.getNanos());
    }

    /** Every committed version, oldest first. */
    public Mono<List<VersionInfo>> versions() {
        return handle.table.versions().list()
                .flatMapMany(Flux::fromIterable)
                .concatMap(loc -> handle.table.versions().read(loc).flatMap(f -> f.manifest().hasFragmentTree()
                        ? io.javelin.tx.tree.TreeTables.open(handle.manifests, f.manifest())
                                .map(t -> new long[] {t.visibleRows(), t.fragmentCount()}).map(c -> Map.entry(f, c))
                        : Mono.just(Map.entry(f, new long[] {-1, f.manifest().getFragmentsCount()}))).map(e -> {
                    var f = e.getKey();
                    var m = f.manifest();
                    long rows = e.getValue()[0] >= 0 ? e.getValue()[0] : 0;
                    for (DataFragment fr : m.getFragmentsList()) {
                        rows += fr.getPhysicalRows() - (fr.hasDeletionFile() ? fr.getDeletionFile().getNumDeletedRows() : 0);
                    }
                    String op = f.transaction() != null && f.transaction().getOperationCase() != Transaction.OperationCase.OPERATION_NOT_SET
                            ? OperationKind.of(f.transaction()).toString() : "?";
                    return new VersionInfo(f.version(), Instant.ofEpochSecond(m.getTimestamp().getSeconds(), m.getTimestamp().getNanos()),
                            op, rows, (int) e.getValue()[1]);
                }), 1)
                .collectList()
                .onErrorMap(e -> translate(uri(), version(), e));
    }

    /** Live rows, from the manifest alone. */
    public Mono<Long> count() {
        return Mono.just(snapshot.countRows());
    }

    /** Live rows matching {@code filter} (reads only the filter's columns, or only exact indexes when they answer it all). */
    public Mono<Long> count(String filter) {
        if (filter == null || filter.isBlank()) {
            return count();
        }
        // exact indexes covering every fragment answer without reading data (io.javelin.engine.index.IndexCount)
        return withFragments(() -> io.javelin.engine.index.IndexCount.count(this, filter)).switchIfEmpty(Mono.defer(() -> scanner().filter(filter).count()));
    }

    /** A scan of this version with default options; configure with the returned immutable builder. */
    public Scanner scanner() {
        return new Scanner(this);
    }

    /**
     * A full-text (BM25) query on a string column, answered by its INVERTED index where there is one:
     * {@code ds.fullTextSearch(FtsQuery.match("text", "quick fox")).filter("year > 2000").limit(10).scan(alloc)}
     * (rows with {@code _score} and {@code _rowid}, best first) or {@code .hits()} for row addresses and scores only.
     */
    public io.javelin.engine.index.FullTextSearch fullTextSearch(io.javelin.engine.index.FtsQuery query) {
        return new io.javelin.engine.index.FullTextSearch(this, query);
    }

    // ------------------------------------------------------------------ take

    /** Rows at logical positions (0-based over live rows, in fragment order), in the order given. */
    public Mono<VectorSchemaRoot> take(long[] indices, List<String> columns, BufferAllocator allocator) {
        return snapshot.loadFragments().flatMap(all -> Flux.fromIterable(all).concatMap(f -> deletions(f).map(d -> Map.entry(f, d)), 4)
                .collectList()
                .map(frags -> {
                    long[] addrs = new long[indices.length];
                    for (int i = 0; i < indices.length; i++) {
                        addrs[i] = addressOf(indices[i], frags);
                    }
                    return addrs;
                })
                .flatMap(addrs -> Take.take(this, addrs, columns, allocator, false)))
                .map(b -> BatchSchemas.conform(b, schema()))
                .onErrorMap(e -> translate(uri(), version(), e)).transform(ConcurrentFailures::routed);
    }

    // ------------------------------------------------------------------ blobs

    /**
     * Lazy handles on the blobs of {@code column} (blob v2 or legacy) at logical row positions, one per
     * row in request order (null blobs included, see {@link BlobHandle#isNull}); nothing is read until a
     * handle's read or stream is subscribed.
     */
    public Flux<BlobHandle> takeBlobs(String column, long[] indices) {
        return BlobReads.takeBlobs(this, column, indices).transform(ConcurrentFailures::routed);
    }

    /**
     * Whole payloads of the blobs of {@code column} at logical row positions, one {@link Blob} per row
     * (its {@code index} says which); the reads of one object are planned together and coalesced.
     */
    public Flux<Blob> readBlobs(String column, long[] indices) {
        return BlobReads.readBlobs(this, column, indices)
                .onErrorMap(e -> translate(uri(), version(), e)).transform(ConcurrentFailures::routed);
    }

    /**
     * Byte ranges of blobs of {@code column} at logical row positions, one result per request (its
     * {@code requestIndex} says which); ranges on one object are read with one planned request.
     */
    public Flux<BlobRange.Result> readBlobRanges(String column, List<BlobRange> requests) {
        return BlobReads.readRanges(this, column, requests)
                .onErrorMap(e -> translate(uri(), version(), e)).transform(ConcurrentFailures::routed);
    }

    /** Row addresses of logical row positions. */
    Mono<long[]> addressesOf(long[] indices) {
        return snapshot.loadFragments().flatMap(all -> Flux.fromIterable(all).concatMap(f -> deletions(f).map(d -> Map.entry(f, d)), 4)
                .collectList()
                .map(frags -> {
                    long[] addrs = new long[indices.length];
                    for (int i = 0; i < indices.length; i++) {
                        addrs[i] = addressOf(indices[i], frags);
                    }
                    return addrs;
                }));
    }

    /** The store of an external blob's directory, opened on first use with this dataset's options. */
    ObjectStore externalStore(String directoryUri) {
        return handle.bases.computeIfAbsent("blob-external:" + directoryUri,
                k -> io.javelin.objectstore.ObjectStores.open(directoryUri, handle.options));
    }

    /** The page-I/O scheduler for blob reads on {@code store}. */
    PageIoScheduler blobIo(ObjectStore store) {
        return store == handle.store ? handle.io : handle.blobIo.computeIfAbsent(store, PageIoScheduler::new);
    }

    /** Rows by {@code _rowid}: the row address, or with stable row ids the id that survives compaction and updates. */
    public Mono<VectorSchemaRoot> takeRowIds(long[] rowIds, List<String> columns, BufferAllocator allocator) {
        return this.rowIds.addresses(rowIds).flatMap(a -> takeRowAddresses(a, columns, allocator))
                .onErrorMap(e -> translate(uri(), version(), e));
    }

    /**
     * Row addresses of the rows whose {@code _rowid} is in {@code sortedRowIds} (ascending, unsigned), for index
     * lookups: unknown ids are dropped, deleted rows are not masked; identity without stable row ids.
     */
    public Mono<long[]> rowAddressesOfIds(long[] sortedRowIds) {
        return RowIdInverse.addresses(this, sortedRowIds).onErrorMap(e -> translate(uri(), version(), e));
    }

    /**
     * Maps a {@code _rowid} to the address of its live row, or -1 when no live row has it (indexes of a
     * stable-row-id dataset hold row ids); the identity without stable row ids.
     */
    public Mono<java.util.function.LongUnaryOperator> rowAddressResolver() {
        return this.rowIds.resolver();
    }

    /** The {@code _rowid} of the rows at {@code addresses} (the addresses themselves without stable row ids). */
    public Mono<long[]> rowIdsAt(long[] addresses) {
        return this.rowIds.idsAt(addresses);
    }

    /** Whether this dataset has stable row ids (Lance feature flag 2, set at creation). */
    public boolean hasStableRowIds() {
        return rowIds.enabled();
    }

    /** Rows by address {@code (fragment_id << 32) | offset}; deleted or missing rows are an error. */
    public Mono<VectorSchemaRoot> takeRowAddresses(long[] addresses, List<String> columns, BufferAllocator allocator) {
        return snapshot.loadFragments().then(Take.take(this, addresses, columns, allocator, true))
                .map(b -> BatchSchemas.conform(b, schema()))
                .onErrorMap(e -> translate(uri(), version(), e)).transform(ConcurrentFailures::routed);
    }

    private long addressOf(long index, List<Map.Entry<FragmentInfo, RoaringBitmap>> frags) {
        if (index < 0) {
            throw new InvalidScanException(uri(), version(), "Row index " + index + " is negative");
        }
        long remaining = index;
        for (var e : frags) {
            FragmentInfo f = e.getKey();
            long live = f.physicalRows() - e.getValue().getLongCardinality();
            if (remaining < live) {
                RoaringBitmap del = e.getValue();
                // the remaining-th offset not in del
                long lo = remaining;
                long hi = f.physicalRows() - 1;
                while (lo < hi) {
                    long mid = (lo + hi) >>> 1;
                    long liveUpTo = mid + 1 - del.rankLong((int) mid);
                    if (liveUpTo > remaining) {
                        hi = mid;
                    } else {
                        lo = mid + 1;
                    }
                }
                return (f.id() << 32) | lo;
            }
            remaining -= live;
        }
        throw new InvalidScanException(uri(), version(), "Row index " + index + " is out of range (" + snapshot.countRows() + " rows)");
    }

    // ------------------------------------------------------------------ writes

    /** Writes {@code data} (batches are closed once encoded) as a new dataset or version, per {@code params.mode()}. */
    public static Mono<Dataset> write(String uri, Flux<VectorSchemaRoot> data, Schema schema, WriteParams params) {
        return write(uri, Map.of(), data, schema, params);
    }

    public static Mono<Dataset> write(String uri, Map<String, String> storageOptions, Flux<VectorSchemaRoot> data, Schema schema,
                                      WriteParams params) {
        return Mono.defer(() -> {
            Handle h = Handle.open(uri, storageOptions);
            return Writes.write(h, data, schema, params)
                    .map(s -> new Dataset(h, s))
                    .doOnError(e -> h.release())
                    .doOnCancel(h::release)
                    .onErrorMap(e -> translate(uri, -1, e));
        });
    }

    public Mono<Dataset> append(Flux<VectorSchemaRoot> data, Schema schema) {
        return Writes.write(handle, data, schema, WriteParams.of(WriteMode.APPEND)).map(this::derived)
                .onErrorMap(e -> translate(uri(), version(), e));
    }

    public Mono<Dataset> overwrite(Flux<VectorSchemaRoot> data, Schema schema, WriteParams params) {
        return Writes.write(handle, data, schema, params.withMode(WriteMode.OVERWRITE)).map(this::derived)
                .onErrorMap(e -> translate(uri(), version(), e));
    }

    /**
     * Distributed writes, step 1: writes data files and returns their fragments without committing.
     * Ship {@link FragmentMetadata#toJson()} to the committer.
     */
    public static Mono<List<FragmentMetadata>> writeFragments(String uri, Map<String, String> storageOptions,
                                                              Flux<VectorSchemaRoot> data, Schema schema, WriteParams params) {
        return Mono.usingWhen(Mono.fromCallable(() -> Handle.open(uri, storageOptions)),
                h -> Writes.writeFragments(h, data, schema, params),
                h -> Mono.fromRunnable(h::release))
                .onErrorMap(e -> translate(uri, -1, e));
    }

    /**
     * Distributed writes, step 2: commits fragments written by many workers as one Append (to the latest
     * version) or one Overwrite (creating the dataset if needed, with {@code schema}).
     */
    public static Mono<Dataset> commit(String uri, Map<String, String> storageOptions, WriteMode mode,
                                       List<FragmentMetadata> fragments, Schema schema) {
        return Mono.defer(() -> {
            Handle h = Handle.open(uri, storageOptions);
            return Writes.commitFragments(h, mode, fragments, schema)
                    .map(s -> new Dataset(h, s))
                    .doOnError(e -> h.release())
                    .onErrorMap(e -> translate(uri, -1, e));
        });
    }

    /** Soft-deletes the rows matching {@code filter} in a new version (deletion files; data files untouched). */
    public Mono<Dataset> delete(String filter) {
        return snapshot.loadFragments().then(Writes.delete(this, filter)).map(this::derived)
                .onErrorMap(e -> translate(uri(), version(), e));
    }

    /** Commits a transaction read at this version; the hook for operations built elsewhere. */
    public Mono<Dataset> commit(Transaction txn) {
        return handle.commits.commit(txn).flatMap(r -> handle.table.checkout(r.version())).map(this::derived)
                .onErrorMap(e -> translate(uri(), version(), e));
    }

    // ------------------------------------------------------------------ versions and tags

    public Mono<Dataset> checkout(long version) {
        return handle.table.checkout(version).map(this::derived).flatMap(MissingStats::fill).onErrorMap(e -> translate(uri(), version, e));
    }

    /** The version a tag names; a tag on a branch version opens that version of the branch. */
    public Mono<Dataset> checkout(String tag) {
        return handle.table.tags().read(tag).flatMap(t -> t.branch() == null
                        ? handle.table.checkout(t.version()).map(this::derived).flatMap(MissingStats::fill)
                        : open(BasePaths.child(uri(), io.javelin.tx.branch.BranchNames.root(t.branch())), handle.options, t.version()))
                .onErrorMap(e -> translate(uri(), -1, e));
    }

    public Mono<Dataset> checkoutLatest() {
        return handle.table.open().map(this::derived).flatMap(MissingStats::fill).onErrorMap(e -> translate(uri(), -1, e));
    }

    public Mono<Map<String, Tag>> tags() {
        return handle.table.tags().list().onErrorMap(e -> translate(uri(), -1, e));
    }

    public Mono<Tag> createTag(String name, long version) {
        return createTag(name, version, Map.of());
    }

    /** A tag with Lance's free-form {@code metadata} (kept when the tag is moved). */
    public Mono<Tag> createTag(String name, long version, Map<String, String> metadata) {
        return handle.table.tags().create(name, version, metadata).onErrorMap(e -> translate(uri(), version, e));
    }

    /**
     * A tag (stored at this main root, as Lance does) on version {@code version} of branch {@code branch};
     * {@link #checkout(String)} of it opens that branch version.
     */
    public Mono<Tag> createTag(String name, String branch, long version, Map<String, String> metadata) {
        return new io.javelin.tx.branch.BranchStore(handle.manifests).read(branch)
                .then(Mono.defer(() -> handle.table.tags().create(name, branch,
                        new ObjectStoreManifestStore(handle.store, io.javelin.tx.branch.BranchNames.root(branch)), version, metadata)))
                .onErrorMap(e -> translate(uri(), version, e));
    }

    public Mono<Tag> updateTag(String name, long version) {
        return handle.table.tags().update(name, version).onErrorMap(e -> translate(uri(), version, e));
    }

    public Mono<Void> deleteTag(String name) {
        return handle.table.tags().delete(name).onErrorMap(e -> translate(uri(), -1, e));
    }

    // ------------------------------------------------------------------ indexes

    /**
     * Builds an index on {@code columns} (one column) over every live row and commits it (a CreateIndex
     * version): BTREE / BITMAP / LABEL_LIST scalar indexes, IVF_FLAT / IVF_PQ / IVF_SQ / IVF_HNSW_* vector
     * indexes, in Lance 7.0.0's on-disk layout. See {@link io.javelin.engine.index.IndexCreator}.
     */
    public Mono<Dataset> createIndex(List<String> columns, io.javelin.engine.index.IndexKind type,
                                     io.javelin.engine.index.IndexParams params) {
        return withFragments(() -> io.javelin.engine.index.IndexCreator.create(this, columns, type, params)).onErrorMap(e -> translate(uri(), version(), e));
    }

    /** Drops the index {@code name} (all its segments) in a new version; its files stay until cleanup. */
    public Mono<Dataset> dropIndex(String name) {
        return io.javelin.engine.index.IndexCreator.drop(this, name).onErrorMap(e -> translate(uri(), version(), e));
    }

    /**
     * Folds fragments the named scalar indexes (all when {@code names} is null or empty) do not cover into one
     * merged segment each, as Lance's {@code optimize_indices}; a CreateIndex version, or this version again when
     * every index is complete. See {@link io.javelin.engine.index.IndexOptimizer}.
     */
    public Mono<Dataset> optimizeIndexes(List<String> names) {
        return withFragments(() -> io.javelin.engine.index.IndexOptimizer.optimize(this, names))
                .switchIfEmpty(Mono.fromSupplier(this::sameVersion))
                .onErrorMap(e -> translate(uri(), version(), e));
    }

    /** The index segments of this version (name, type, columns, coverage), as in the manifest. */
    public List<io.javelin.engine.index.IndexInfo> listIndexes() {
        return io.javelin.engine.index.IndexCatalog.list(this);
    }

    /** The store this dataset reads from (index files, extensions); owned by the dataset: do not close. */
    public ObjectStore objectStore() {
        return handle.store;
    }

    // ------------------------------------------------------------------ maintenance

    /**
     * Compacts small and deletion-heavy adjacent fragments into fragments of about the target size, committed
     * as one {@code Rewrite}; see {@link io.javelin.engine.maintenance.CompactionOptions}.
     */
    public Mono<io.javelin.engine.maintenance.CompactionResult> compact(io.javelin.engine.maintenance.CompactionOptions options) {
        return withFragments(() -> Compaction.run(this, options)).onErrorMap(e -> translate(uri(), version(), e));
    }

    /**
     * Distributed compaction, step 1: the fragments to rewrite as serializable tasks read at this version
     * (Lance {@code plan_compaction}); hand each task to a worker.
     */
    public Mono<io.javelin.engine.maintenance.CompactionPlan> planCompaction(io.javelin.engine.maintenance.CompactionOptions options) {
        return withFragments(() -> Mono.fromCallable(() -> Compaction.plan(this, options))).onErrorMap(e -> translate(uri(), version(), e));
    }

    /**
     * Distributed compaction, step 2 (any worker with this dataset open, at any version): writes the task's
     * new fragments and returns what to commit; nothing is committed.
     */
    public Mono<io.javelin.engine.maintenance.RewriteResult> executeCompactionTask(io.javelin.engine.maintenance.CompactionTask task) {
        return Compaction.execute(this, task).onErrorMap(e -> translate(uri(), task.readVersion(), e));
    }

    /**
     * Distributed compaction, step 3 (once): commits every task's result as one {@code Rewrite} read at
     * the plan's version; concurrent appends rebase, a concurrent rewrite of the same rows conflicts.
     */
    public Mono<io.javelin.engine.maintenance.CompactionResult> commitCompaction(List<io.javelin.engine.maintenance.RewriteResult> results) {
        return Compaction.commit(this, results).onErrorMap(e -> translate(uri(), version(), e));
    }

    /**
     * The change data feed from version {@code fromVersion} to {@code toVersion} (0: from before the first
     * version): one row per net insert, update or delete, shaped as {@link #changesSchema()}: change
     * type and version, {@code _rowid}, the row version columns, then the dataset's columns. Needs stable row ids.
     */
    public Flux<VectorSchemaRoot> changes(long fromVersion, long toVersion, BufferAllocator allocator) {
        return ChangeFeed.changes(this, fromVersion, toVersion, allocator).onErrorMap(e -> translate(uri(), toVersion, e))
                .transform(ConcurrentFailures::routed);
    }

    /** The schema of {@link #changes}' batches. */
    public Schema changesSchema() {
        return ChangeFeed.schema(schema());
    }

    /** Commits this (older) version's content as the newest version (Lance {@code restore}). */
    public Mono<Dataset> restore() {
        return handle.table.open()
                .flatMap(latest -> handle.commits.commit(Transactions.restore(latest.version(), version())))
                .flatMap(r -> handle.table.checkout(r.version())).map(this::derived)
                .onErrorMap(e -> translate(uri(), version(), e));
    }

    /**
     * Removes versions committed before {@code olderThan} (except the latest and tagged ones) and the files
     * only they used; files younger than the oldest retained version are never touched (a write may be in
     * progress). {@code deleteUnverified}: also delete unreferenced files younger than 7 days.
     */
    public Mono<io.javelin.engine.maintenance.CleanupStats> cleanupOldVersions(Instant olderThan, boolean deleteUnverified) {
        return cleanupOldVersions(io.javelin.tx.maintenance.CleanupPolicy.olderThan(olderThan).withDeleteUnverified(deleteUnverified));
    }

    public Mono<io.javelin.engine.maintenance.CleanupStats> cleanupOldVersions(io.javelin.tx.maintenance.CleanupPolicy policy) {
        return Cleanup.run(this, policy, Instant.now()).onErrorMap(e -> translate(uri(), version(), e));
    }

    /** What {@link #cleanupOldVersions(io.javelin.tx.maintenance.CleanupPolicy)} would delete, each object with why; deletes nothing. */
    public Mono<io.javelin.tx.maintenance.CleanupPlan> cleanupDryRun(io.javelin.tx.maintenance.CleanupPolicy policy) {
        return Cleanup.plan(handle, policy, Instant.now()).onErrorMap(e -> translate(uri(), version(), e));
    }

    /**
     * Enables Lance's auto-cleanup: after every {@code interval}-th version a commit removes versions older
     * than {@code olderThan} (table config {@code lance.auto_cleanup.interval} / {@code .older_than}).
     */
    public Mono<Dataset> enableAutoCleanup(int interval, java.time.Duration olderThan) {
        if (interval <= 0) {
            return Mono.error(new InvalidScanException(uri(), version(), "Auto-cleanup interval must be positive, got " + interval));
        }
        return commit(Transactions.updateConfig(version(), Map.of(AutoCleanup.INTERVAL, String.valueOf(interval),
                AutoCleanup.OLDER_THAN, olderThan.toSeconds() + "s")));
    }

    /** Empties the table: a new version with the same schema and config and no rows (older versions stay). */
    public Mono<Dataset> truncate() {
        return commit(Transactions.overwrite(version(), List.of(), lanceSchema().toProto(),
                snapshot.manifestFile().manifest().getConfigMap()));
    }

    /** Deletes the whole dataset at {@code uri}: every object under its root, all versions, tags and branches. */
    public static Mono<Void> drop(String uri, Map<String, String> storageOptions) {
        return Mono.usingWhen(Mono.fromCallable(() -> Handle.open(uri, storageOptions)),
                h -> h.table.open().onErrorMap(e -> translate(uri, -1, e))
                        .then(h.store.list("").map(m -> m.path()).collectList())
                        .flatMap(paths -> Flux.fromIterable(paths).flatMap(h.store::delete, 8).then()),
                h -> Mono.fromRunnable(h::release));
    }

    // ------------------------------------------------------------------ fragment metadata tree

    /** The fragments of this version; a tree table reads them from its leaves once (flat: no I/O). */
    public Mono<List<FragmentInfo>> loadFragments() {
        return snapshot.loadFragments().onErrorMap(e -> translate(uri(), version(), e));
    }

    /** Whether this version stores its fragments in a fragment metadata tree (spec 000). */
    public boolean isTreeLayout() {
        return snapshot.manifestFile().manifest().hasFragmentTree();
    }

    /**
     * Converts a flat table in place: the next version stores the same fragments in a fragment
     * metadata tree (every older version stays readable as it was). A tree table is returned as is.
     */
    public Mono<Dataset> convertToTree() {
        if (isTreeLayout()) {
            return Mono.just(derived(snapshot));
        }
        return commit(Transactions.updateConfig(version(),
                Map.of(io.javelin.tx.tree.TreeTables.LAYOUT_KEY, io.javelin.tx.tree.TreeTables.LAYOUT_TREE)));
    }

    // ------------------------------------------------------------------ branches and clones

    /** Creates branch {@code name} from this (main) version at {@code tree/{name}/} and opens it. */
    public Mono<Dataset> createBranch(String name) {
        return Branches.create(this, name).onErrorMap(e -> translate(uri(), version(), e));
    }

    /** The latest version of branch {@code name} (a dataset of its own; commits on it stay on the branch). */
    public Mono<Dataset> checkoutBranch(String name) {
        return Branches.checkout(this, name).onErrorMap(e -> translate(uri(), -1, e));
    }

    public Mono<Map<String, io.javelin.tx.branch.Branch>> branches() {
        return new io.javelin.tx.branch.BranchStore(handle.manifests).list().onErrorMap(e -> translate(uri(), -1, e));
    }

    /** Deletes the branch reference and the branch dataset's own files. */
    public Mono<Void> deleteBranch(String name) {
        return new io.javelin.tx.branch.BranchStore(handle.manifests).delete(name).onErrorMap(e -> translate(uri(), -1, e));
    }

    /** A new dataset at {@code target} whose first version is this one, reading this root's files through a base path. */
    public Mono<Dataset> shallowClone(String target, Map<String, String> targetStorageOptions) {
        return Branches.shallowClone(this, target, targetStorageOptions).onErrorMap(e -> translate(target, version(), e));
    }

    /** A new dataset at {@code target} with copies of this version's files. */
    public Mono<Dataset> deepClone(String target, Map<String, String> targetStorageOptions) {
        return Branches.deepClone(this, target, targetStorageOptions).onErrorMap(e -> translate(target, version(), e));
    }

    // ------------------------------------------------------------------ internals

    Dataset sameVersion() {
        return derived(snapshot);
    }

    Handle handle() {
        return handle;
    }

    StableRowIds rowIds() {
        return rowIds;
    }

    private Dataset derived(Snapshot s) {
        return new Dataset(handle.retain(), s);
    }

    Mono<RoaringBitmap> deletions(FragmentInfo f) {
        if (f.fragment().hasDeletionFile() && f.fragment().getDeletionFile().hasBaseId()) {
            return Mono.fromCallable(() -> BasePaths.resolve(this, f.fragment().getDeletionFile().getBaseId()))
                    .flatMap(b -> DeletionFiles.read(b.manifests(), f.fragment().toBuilder()
                            .setDeletionFile(f.fragment().getDeletionFile().toBuilder().clearBaseId()).build()));
        }
        return DeletionFiles.read(handle.manifests, f.fragment());
    }

    /** The page-I/O scheduler shared by every operation on this store (scans, takes, deletes). */
    ReadAhead readAhead() {
        return handle.readAhead;
    }

    PageIoScheduler io() {
        return handle.io;
    }

    /** A data file, resolved through {@code base_id} when it lives under another root (clones, branches). */
    Mono<LanceFileReader> openFile(io.javelin.tx.pb.DataFile file, PageIoScheduler io) {
        // the manifest's file_size_bytes (0 when a writer did not record it) saves the HEAD of each open; lance-core
        // records a wrong one for legacy files (its reader ignores it there), so those are sized by a HEAD
        boolean legacyFile = file.getFileMajorVersion() == 0 && file.getFileMinorVersion() < 3;
        long size = legacyFile ? 0 : file.getFileSizeBytes();
        V1Schema legacy = legacySchema(file);
        if (!file.hasBaseId()) {
            return openFile(file.getPath(), size, io, legacy);
        }
        return Mono.fromCallable(() -> BasePaths.resolve(this, file.getBaseId()))
                .flatMap(b -> LanceFileReader.open(new ObjectStoreSource(b.store(), b.dir("data/") + file.getPath(),
                        new PageIoScheduler(b.store()), size), DecodeOptions.DEFAULT, legacy));
    }

    /** The schema a legacy (0.1 / 0.2) data file is read with: the dataset's, cut to the file's field ids. */
    private V1Schema legacySchema(io.javelin.tx.pb.DataFile file) {
        var manifest = snapshot.manifestFile().manifest();
        Map<String, String> md = new java.util.LinkedHashMap<>();
        manifest.getSchemaMetadataMap().forEach((k, v) -> md.put(k, v.toString(java.nio.charset.StandardCharsets.UTF_8)));
        return new V1Schema(manifest.getFieldsList(), md, file.getFieldsList());
    }

    private Mono<LanceFileReader> openFile(String path, long size, PageIoScheduler io, V1Schema legacy) {
        var decode = DecodeOptions.DEFAULT;
        if (io == handle.io) {
            return handle.files.get(path, () -> LanceFileReader.open(new ObjectStoreSource(handle.store, "data/" + path, io, size),
                    decode, legacy));
        }
        return LanceFileReader.open(new ObjectStoreSource(handle.store, "data/" + path, io, size), decode, legacy);
    }

    Predicate compile(String filter) {
        try {
            return Predicate.compile(filter, arrowSchema);
        } catch (FilterParseException e) {
            throw new InvalidScanException(uri(), version(), "Invalid filter: " + e.getMessage(), e);
        }
    }

    /** Maps lower-layer failures to the typed errors of this API. */
    static Throwable translate(String uri, long version, Throwable e) {
        return switch (e) {
            case DatasetException d -> d;
            case Error err -> err;
            case VersionNotFoundException v -> new DatasetNotFoundException(uri, version, v.getMessage(), v);
            case io.javelin.tx.DatasetAlreadyExistsException a -> new DatasetAlreadyExistsException(uri, version, a.getMessage(), a);
            case CommitConflictException c -> new DatasetCommitConflictException(uri, version, c.getMessage(), c);
            case RefNotFoundException r -> new TagException(uri, version, r.getMessage(), r);
            case RefAlreadyExistsException r -> new TagException(uri, version, r.getMessage(), r);
            case InvalidNameException r -> new TagException(uri, version, r.getMessage(), r);
            case FilterParseException f -> new InvalidScanException(uri, version, "Invalid filter: " + f.getMessage(), f);
            case TxException t -> new DatasetException(uri, version, t.getMessage(), t);
            case ObjectStoreException o -> new DatasetException(uri, version, o.getMessage(), o);
            case IllegalArgumentException i -> new InvalidScanException(uri, version, i.getMessage(), i);
            default -> new DatasetException(uri, version, String.valueOf(e.getMessage()), e);
        };
    }

    // ------------------------------------------------------------------ schema evolution, update, merge-insert

    /**
     * Adds columns computed by SQL expressions over existing ones ({@code name → expression}, e.g.
     * {@code "total" → "price * qty"}): one new data file per fragment, committed as a Merge.
     */
    public Mono<Dataset> addColumns(Map<String, String> expressions) {
        return withFragments(() -> SchemaEvolution.addColumns(this, expressions)).map(this::derived).onErrorMap(e -> translate(uri(), version(), e));
    }

    /** Adds nullable columns that read as NULL everywhere (schema only, no data written). */
    public Mono<Dataset> addColumns(List<org.apache.arrow.vector.types.pojo.Field> allNullColumns) {
        return withFragments(() -> SchemaEvolution.addNullColumns(this, allNullColumns)).map(this::derived).onErrorMap(e -> translate(uri(), version(), e));
    }

    /**
     * Adds columns from a stream holding one row per live row of this version, in fragment order
     * (aligned by row offset, as Lance's add_columns from a reader).
     */
    public Mono<Dataset> addColumns(Flux<VectorSchemaRoot> data, Schema columns) {
        return withFragments(() -> SchemaEvolution.addColumns(this, data, columns)).map(this::derived).onErrorMap(e -> translate(uri(), version(), e));
    }

    /**
     * Distributed new columns, step 1 (a worker): writes data files of {@code columns} for the fragments
     * {@code fragmentIds} of this version, fed one row per live row in that order; nothing is committed.
     * Ship each {@link FragmentMetadata#toJson()} to the committer.
     */
    public Mono<List<FragmentMetadata>> writeColumns(List<Long> fragmentIds, Flux<VectorSchemaRoot> data, Schema columns) {
        return withFragments(() -> SchemaEvolution.writeColumns(this, fragmentIds, data, columns))
                .onErrorMap(e -> translate(uri(), version(), e));
    }

    /** Distributed new columns, step 2 (the committer): commits every worker's files as one Merge. */
    public Mono<Dataset> commitColumns(List<FragmentMetadata> written, Schema columns) {
        return withFragments(() -> SchemaEvolution.commitColumns(this, written, columns)).map(this::derived)
                .onErrorMap(e -> translate(uri(), version(), e));
    }

    /**
     * Column backfill, step 1 (a worker): data files for existing top-level {@code columns} (typically
     * added as all-NULL) of the fragments {@code fragmentIds} only, fed one row per live row in that
     * order; nothing is committed and only the named fragments are read (no full listing on a tree table).
     */
    public Mono<List<FragmentMetadata>> writeColumnData(List<Long> fragmentIds, List<String> columns,
            Flux<VectorSchemaRoot> data) {
        return ColumnFill.write(this, fragmentIds, columns, data).onErrorMap(e -> translate(uri(), version(), e));
    }

    /** Column backfill, step 2: one DataReplacement naming only the written fragments (O(batch), not O(table)). */
    public Mono<Dataset> commitColumnData(List<FragmentMetadata> written) {
        return ColumnFill.commit(this, written).map(this::derived).onErrorMap(e -> translate(uri(), version(), e));
    }

    /** Drops columns or struct children ({@code "s.a"}): metadata only (a Project), data files stay. */
    public Mono<Dataset> dropColumns(List<String> columns) {
        return withFragments(() -> SchemaEvolution.dropColumns(this, columns)).map(this::derived).onErrorMap(e -> translate(uri(), version(), e));
    }

    /** Renames, relaxes nullability or casts columns (casts rewrite the column; the rest is metadata only). */
    public Mono<Dataset> alterColumns(List<ColumnAlteration> alterations) {
        return withFragments(() -> SchemaEvolution.alterColumns(this, alterations)).map(this::derived).onErrorMap(e -> translate(uri(), version(), e));
    }

    public Mono<Dataset> renameColumn(String path, String newName) {
        return alterColumns(List.of(ColumnAlteration.rename(path, newName)));
    }

    /**
     * {@code UPDATE ... SET col = expr, ... WHERE filter} (null filter: every row): matching rows are
     * deleted and written again with the new values, committed as one Update.
     */
    public Mono<UpdateResult> update(String filter, Map<String, String> set) {
        return withFragments(() -> RowRewrites.update(this, filter, set)).onErrorMap(e -> translate(uri(), version(), e));
    }

    /**
     * {@code UPDATE ... SET ... WHERE _rowid IN (rowIds)} without a scan: the ids are located through the
     * row id sequences (stable row ids) or are addresses; ids of no live row are skipped.
     */
    public Mono<UpdateResult> updateRows(long[] rowIds, Map<String, String> set) {
        return withFragments(() -> RowRewrites.update(this, null, set, RowIdTargets.of(this, rowIds)))
                .onErrorMap(e -> translate(uri(), version(), e));
    }

    /** Deletes the rows with these {@code _rowid}s (no scan), committed as one Delete; ids of no live row are skipped. */
    public Mono<Dataset> deleteRows(long[] rowIds) {
        return withFragments(() -> RowIdTargets.of(this, rowIds).flatMap(hits -> Writes.deleteOffsets(this, hits,
                        "_rowid IN (" + rowIds.length + " ids)")))
                .map(this::derived).onErrorMap(e -> translate(uri(), version(), e));
    }

    /** Starts a merge-insert keyed by {@code on}; configure the returned builder, then {@code execute}. */
    public MergeInsert mergeInsert(List<String> on) {
        return new MergeInsert(this, on);
    }

    /**
     * Runs {@code op} once this version's fragment records are in memory: a tree table reads them from its
     * leaves (once per version); a flat table has them already.
     */
    <T> Mono<T> withFragments(java.util.function.Supplier<Mono<T>> op) {
        return snapshot.loadFragments().then(Mono.defer(op));
    }

    /** This version again, as a new handle the caller closes. */
    Dataset retained() {
        return new Dataset(handle.retain(), snapshot);
    }

    Dataset derive(Snapshot s) {
        return derived(s);
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            handle.release();
        }
    }

    @Override
    public String toString() {
        return "Dataset[" + uri() + " v" + version() + "]";
    }
}
