package io.javelin.encoding.file;

import io.javelin.encoding.CorruptFileException;
import io.javelin.encoding.arrow.ArrowAssembler;
import io.javelin.encoding.arrow.Node;
import io.javelin.encoding.io.Buf;
import io.javelin.encoding.io.ByteRange;
import io.javelin.encoding.io.RandomAccessSource;
import io.javelin.encoding.v1.V1FileReader;
import io.javelin.encoding.v1.V1Footer;
import io.javelin.encoding.v1.V1Schema;
import io.javelin.encoding.v20.LegacyFieldReader;
import io.javelin.encoding.v21.StructuralFieldReader;
import java.io.EOFException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Reads a Lance data file (format 2.0, 2.1 or 2.2, and legacy 0.1 / 0.2 through {@link V1FileReader}) as Arrow batches. Opening costs one read for
 * a small file (the tail holds footer, schema and column metadata). Page I/O goes through the
 * {@link RandomAccessSource}; decoding runs on the parallel scheduler.
 */
public final class LanceFileReader implements AutoCloseable {

    /**
     * A decoded page on its way into a batch's cache. A private type on purpose: callers' discard hooks
     * (e.g. for {@code Map.Entry}) must not see it when {@code then()} drops it.
     */
    private record Loaded(PageRef ref, Object page) implements AutoCloseable {
        @Override
        public void close() {
            closePage(page);
        }
    }

    /** Releases a decoded page that holds memory (a {@link io.javelin.encoding.arrow.DirectPage}). */
    static void closePage(Object page) {
        if (page instanceof AutoCloseable c) {
            try {
                c.close();
            } catch (Exception e) {
                throw new IllegalStateException("releasing a decoded page", e);
            }
        }
    }


    /** Pages of one batch (or take) loaded and decoded at the same time. */
    static final int PAGE_CONCURRENCY = 16;

    /** Bytes read from the end on open. */
    public static final long TAIL_BYTES = 64 * 1024;

    private final RandomAccessSource source;
    private final LanceFileMetadata metadata;

    /** Takes on 2.1+ files: batched two-round partial page loads, first-round buffers cached per file. */
    private final TakeLoader takes;

    private final DecodeOptions decode;
    /** False for a {@link #withDecode} copy: the source belongs to the reader it was made from. */
    private final boolean ownsSource;

    /** Set for a legacy (0.1 / 0.2) file: scans and takes go to it. */
    private final V1FileReader legacy;

    private LanceFileReader(RandomAccessSource source, LanceFileMetadata metadata, DecodeOptions decode) {
        this(source, metadata, decode, true);
    }

    private LanceFileReader(RandomAccessSource source, LanceFileMetadata metadata, DecodeOptions decode, boolean ownsSource) {
        this(source, metadata, decode, ownsSource, null);
    }

    private LanceFileReader(RandomAccessSource source, LanceFileMetadata metadata, DecodeOptions decode, boolean ownsSource,
                            V1FileReader legacy) {
        this.source = source;
        this.decode = decode;
        this.ownsSource = ownsSource;
        this.metadata = metadata;
        this.legacy = legacy;
        this.takes = new TakeLoader(metadata, source);
    }

    public static Mono<LanceFileReader> open(RandomAccessSource source) {
        return open(source, DecodeOptions.DEFAULT);
    }

    public static Mono<LanceFileReader> open(RandomAccessSource source, DecodeOptions decode) {
        return open(source, decode, null);
    }

    /**
     * Opens any Lance data file. {@code legacySchema} is the schema a legacy (0.1 / 0.2) file is read with
     * when it belongs to a dataset (null: its embedded manifest); newer files ignore it. The footer, not the
     * manifest's file version, decides: old writers recorded wrong versions.
     */
    public static Mono<LanceFileReader> open(RandomAccessSource source, DecodeOptions decode, V1Schema legacySchema) {
        String name = source.name();
        return source.size().flatMap(size -> {
            if (size < V1Footer.LENGTH) {
                return Mono.error(new CorruptFileException(name, 0, "File too small for a Lance footer: " + size + " bytes"));
            }
            long tailLen = Math.min(size, TAIL_BYTES);
            long tailStart = size - tailLen;
            return Mono.usingWhen(mapEof(name, source.read(tailStart, tailLen)), tail -> {
                if (V1Footer.isLegacy(tail.segment())) {
                    return V1FileReader.open(source, size, tail.segment(), legacySchema)
                            .map(v1 -> new LanceFileReader(source, v1.metadata(), decode, true, v1));
                }
                return metadataFromTail(source, size, tail).map(md -> new LanceFileReader(source, md, decode));
            }, tail -> Mono.fromRunnable(tail::close));
        });
    }

    /** The legacy reader of a 0.1 / 0.2 file, null for 2.x files. */
    public V1FileReader legacy() {
        return legacy;
    }

    /**
     * The same open file decoded with other options (differential tests and benchmarks): shares this reader's
     * source and metadata; closing the copy frees only its own take cache, the source stays with this reader.
     */
    public LanceFileReader withDecode(DecodeOptions other) {
        return new LanceFileReader(source, metadata, other, false, legacy);
    }

    /** Reads and parses footer, tables, column metadata and schema. */
    public static Mono<LanceFileMetadata> readMetadata(RandomAccessSource source) {
        String name = source.name();
        return source.size().flatMap(size -> {
            if (size < Footer.LENGTH) {
                return Mono.error(new CorruptFileException(name, 0, "File too small for a Lance footer: " + size + " bytes"));
            }
            long tailLen = Math.min(size, TAIL_BYTES);
            long tailStart = size - tailLen;
            return Mono.usingWhen(mapEof(name, source.read(tailStart, tailLen)), tail -> V1Footer.isLegacy(tail.segment())
                            ? V1FileReader.open(source, size, tail.segment(), null).map(V1FileReader::metadata)
                            : metadataFromTail(source, size, tail),
                    tail -> Mono.fromRunnable(tail::close));
        });
    }

    /** Footer, tables, column metadata and schema of a 2.x file whose last bytes {@code tail} holds. */
    private static Mono<LanceFileMetadata> metadataFromTail(RandomAccessSource source, long size, ByteRange tail) {
        String name = source.name();
        long tailStart = size - tail.length();
        Footer footer = guard(name, size - Footer.LENGTH, () -> Footer.parse(name, tail.segment(), size));
        Buf tailBuf = Buf.of(name, tail);
        Mono<Long> gbo0 = footer.gboTableStart() >= tailStart
                ? Mono.just(tailBuf.u64(footer.gboTableStart() - tailStart))
                : Mono.usingWhen(mapEof(name, source.read(footer.gboTableStart(), 8)),
                        r -> Mono.just(Buf.of(name, r).u64(0)), r -> Mono.fromRunnable(r::close));
        return gbo0.flatMap(g0 -> {
            if (g0 < 0 || g0 > size - Footer.LENGTH) {
                return Mono.error(new CorruptFileException(name, footer.gboTableStart(), "Schema buffer position " + g0
                        + " outside the file"));
            }
            long start = LanceFileMetadata.metadataStart(footer, g0);
            if (start >= tailStart) {
                return Mono.fromCallable(() -> guard(name, start, () -> LanceFileMetadata.parse(name, size, footer,
                        tail.segment().asSlice(start - tailStart), start)));
            }
            return Mono.usingWhen(mapEof(name, source.read(start, size - start)),
                    r -> Mono.fromCallable(() -> guard(name, start,
                            () -> LanceFileMetadata.parse(name, size, footer, r.segment(), start))),
                    r -> Mono.fromRunnable(r::close));
        });
    }

    /**
     * Runs decoding code and turns any runtime failure that is not already a {@link CorruptFileException}
     * (an impossible index, size or cast caused by malformed input) into one naming the file and offset.
     */
    static <T> T guard(String resource, long offset, java.util.function.Supplier<T> body) {
        try {
            return body.get();
        } catch (CorruptFileException e) {
            throw e;
        } catch (RuntimeException | OutOfMemoryError | StackOverflowError e) {
            throw new CorruptFileException(resource, offset, "Malformed data: " + e, e);
        }
    }

    private static <T> Mono<T> mapEof(String name, Mono<T> m) {
        return m.onErrorMap(EOFException.class, e -> new CorruptFileException(name, -1, "Unexpected end of file: " + e.getMessage(), e));
    }

    public LanceFileMetadata metadata() {
        return metadata;
    }

    public long numRows() {
        return metadata.numRows();
    }

    public Schema schema() {
        return metadata.arrowSchema();
    }

    /**
     * Options of a scan: projected top-level columns (null = all), row range and batch size.
     *
     * @param readAhead page read-ahead of the scan ({@link ReadAhead#OFF}: none); {@link #all} uses
     *                  {@link ReadAhead#localDefaults()}, callers on a store choose {@link ReadAhead#forStore}
     * @param shared    the read-ahead budget this file scan shares with the other file scans of one dataset scan
     *                  (null: its own, of {@link ReadAhead#scanBudgetBytes()})
     */
    public record ScanOptions(List<String> columns, long start, long end, int batchSize, ReadAhead readAhead,
                              ReadAheadBudget shared) {
        public ScanOptions {
            java.util.Objects.requireNonNull(readAhead, "readAhead");
        }

        public ScanOptions(List<String> columns, long start, long end, int batchSize) {
            this(columns, start, end, batchSize, ReadAhead.localDefaults(), null);
        }

        public static ScanOptions all(int batchSize) {
            return new ScanOptions(null, 0, Long.MAX_VALUE, batchSize);
        }

        public ScanOptions withColumns(List<String> cols) {
            return new ScanOptions(cols, start, end, batchSize, readAhead, shared);
        }

        public ScanOptions withRange(long s, long e) {
            return new ScanOptions(columns, s, e, batchSize, readAhead, shared);
        }

        public ScanOptions withReadAhead(ReadAhead r) {
            return new ScanOptions(columns, start, end, batchSize, r, shared);
        }

        public ScanOptions withSharedBudget(ReadAheadBudget b) {
            return new ScanOptions(columns, start, end, batchSize, readAhead, b);
        }
    }

    private List<LanceField> project(List<String> columns) {
        if (columns == null) {
            return metadata.fields();
        }
        List<LanceField> out = new ArrayList<>();
        for (String c : columns) {
            LanceField found = null;
            for (LanceField f : metadata.fields()) {
                if (f.name().equals(c)) {
                    found = f;
                }
            }
            if (found == null) {
                throw new IllegalArgumentException("No column '" + c + "' in " + metadata.resource());
            }
            out.add(found);
        }
        return out;
    }

    /** Field readers are stateless apart from parsed-layout caches: shared by every scan and take of this file. */
    private final Map<LanceField, FieldReader> fieldReaders = java.util.Collections.synchronizedMap(new java.util.IdentityHashMap<>());

    private FieldReader fieldReader(LanceField f) {
        return fieldReaders.computeIfAbsent(f, this::newFieldReader);
    }

    private FieldReader newFieldReader(LanceField f) {
        long at = f.column() >= 0 ? metadata.cmoPositions()[f.column()] : -1;
        return guard(metadata.resource(), at, () -> metadata.version().structural()
                ? new StructuralFieldReader(metadata, f, decode) : new LegacyFieldReader(metadata, f, decode));
    }

    /**
     * Scans rows {@code [start, min(end, numRows))} as batches of at most {@code batchSize} rows. Each
     * batch owns its memory: close it when done. Cancelling releases pages held by the scan.
     */
    public Flux<VectorSchemaRoot> scan(ScanOptions options, BufferAllocator allocator) {
        if (options.batchSize() <= 0) {
            return Flux.error(new IllegalArgumentException("batch size must be positive"));
        }
        List<LanceField> fields = project(options.columns());
        long start = Math.max(0, options.start());
        long end = Math.min(options.end(), numRows());
        if (end <= start) {
            return Flux.empty();
        }
        if (legacy != null) {
            return legacy.scan(fields, start, end, options.batchSize(), allocator);
        }
        return Flux.defer(() -> scan(fields, start, end, options.batchSize(), options.readAhead(), options.shared(), allocator));
    }

    private Flux<VectorSchemaRoot> scan(List<LanceField> fields, long start, long end, int batchSize, ReadAhead readAhead,
                                        ReadAheadBudget shared, BufferAllocator allocator) {
        List<FieldReader> readers = fields.stream().map(this::fieldReader).toList();
        long batches = (end - start + batchSize - 1) / batchSize;
        if (readAhead.enabled() && batches <= MAX_PLANNED_BATCHES) {
            return scanAhead(fields, readers, start, end, batchSize, (int) batches, readAhead,
                    shared != null ? shared : new ReadAheadBudget(readAhead.scanBudgetBytes()), allocator);
        }
        PageCache cache = new PageCache();
        return Flux.fromStream(() -> java.util.stream.LongStream.range(0, batches).boxed())
                .concatMap(b -> {
                    long s = start + b * batchSize;
                    long e = Math.min(end, s + batchSize);
                    List<long[]> ranges = List.<long[]>of(new long[] {s, e});
                    return batch(fields, readers, ranges, cache, allocator, e - s, false);
                }, 1)
                .doFinally(sig -> cache.close())
                .contextWrite(ctx -> ctx.put(PageCache.CONTEXT_KEY, cache));
    }

    /** Batches of a scan planned up front for read-ahead; longer scans (tiny batches) load page by page. */
    static final int MAX_PLANNED_BATCHES = 1 << 20;

    /**
     * A scan with page read-ahead ({@link ScanReadAhead}): the pages of later batches load and decode while
     * earlier batches are consumed; a batch whose pages are ready is built on the requesting thread.
     */
    private Flux<VectorSchemaRoot> scanAhead(List<LanceField> fields, List<FieldReader> readers, long start, long end, int batchSize,
                                             int batches, ReadAhead readAhead, ReadAheadBudget budget, BufferAllocator allocator) {
        List<long[]> ranges = new ArrayList<>(batches);
        for (long b = 0; b < batches; b++) {
            long s = start + b * batchSize;
            ranges.add(new long[] {s, Math.min(end, s + batchSize)});
        }
        return Flux.deferContextual(ctx -> {
            // pages on their way to the read-ahead belong to this until it takes them (see PageCache)
            PageCache inFlight = new PageCache();
            ScanReadAhead ahead = new ScanReadAhead(metadata.resource(), readers, ranges, this::pageBytes,
                    this::loadPage, reactor.util.context.Context.of(ctx).put(PageCache.CONTEXT_KEY, inFlight), readAhead, budget);
            // The batch built but not yet passed downstream: concatMap may build the next batch before it is
            // requested and then drop it silently on a cancel. Exactly one of delivery and cancel takes it.
            java.util.concurrent.atomic.AtomicReference<VectorSchemaRoot> pending = new java.util.concurrent.atomic.AtomicReference<>();
            return Flux.range(0, batches)
                    .concatMap(b -> ahead.ensure(b).then(io.javelin.encoding.io.CancelSafe.produceOn(Schedulers.immediate(), () -> {
                        long[] r = ranges.get(b);
                        VectorSchemaRoot root = ScanReadAhead.assemble(metadata.resource(), fields, readers, List.<long[]>of(r),
                                ahead::page, allocator, r[1] - r[0]);
                        pending.set(root);
                        return root;
                    })), 1)
                    .<VectorSchemaRoot>handle((root, sink) -> {
                        if (pending.compareAndSet(root, null)) {
                            sink.next(root);
                        } // else: closed by a cancel that came first
                    })
                    .doFinally(sig -> {
                        VectorSchemaRoot left = pending.getAndSet(null);
                        if (left != null) {
                            left.close();
                        }
                        ahead.close();
                        inFlight.close();
                    });
        });
    }

    private long pageBytes(PageRef ref) {
        var page = metadata.columns().get(ref.column()).getPages(ref.page());
        long n = 0;
        for (int b = 0; b < page.getBufferSizesCount(); b++) {
            n += page.getBufferSizes(b);
        }
        return n;
    }

    /** Reads the rows at {@code indices} (any order, repeats allowed) as one batch, fetching only their pages. */
    public Mono<VectorSchemaRoot> take(long[] indices, List<String> columns, BufferAllocator allocator) {
        List<LanceField> fields = project(columns);
        List<long[]> ranges = new ArrayList<>();
        for (long i : indices) {
            if (i < 0 || i >= numRows()) {
                return Mono.error(new IndexOutOfBoundsException("row " + i + " of " + numRows()));
            }
            if (!ranges.isEmpty() && ranges.get(ranges.size() - 1)[1] == i) {
                ranges.get(ranges.size() - 1)[1] = i + 1;
            } else {
                ranges.add(new long[] {i, i + 1});
            }
        }
        if (legacy != null) {
            return legacy.take(fields, indices, allocator);
        }
        return Mono.defer(() -> {
            PageCache cache = new PageCache();
            return batch(fields, fields.stream().map(this::fieldReader).toList(), ranges, cache, allocator, indices.length, true)
                    .doFinally(sig -> cache.close())
                    .contextWrite(ctx -> ctx.put(PageCache.CONTEXT_KEY, cache));
        });
    }

    /**
     * Loads the pages {@code ranges} need into {@code cache}, in rounds while field readers name more pages
     * once others are decoded (2.0 list items after their offsets). The first round evicts pages no longer needed.
     */
    private Mono<Void> loadRound(List<FieldReader> readers, List<long[]> ranges, PageCache cache, boolean partial,
                                 boolean first) {
        Set<PageRef> needed = new HashSet<>();
        List<PageRef> toLoad = new ArrayList<>();
        List<FieldReader> owners = new ArrayList<>();
        for (FieldReader r : readers) {
            for (PageRef p : guard(metadata.resource(), -1, () -> r.pagesFor(ranges, cache))) {
                needed.add(p);
                if (!cache.contains(p) && !toLoad.contains(p)) {
                    toLoad.add(p);
                    owners.add(r);
                }
            }
        }
        if (first) {
            for (PageRef k : cache.refs()) {
                if (!needed.contains(k)) {
                    cache.evict(k); // batches built from it keep their own references
                }
            }
        }
        if (toLoad.isEmpty()) {
            return Mono.empty();
        }
        // Pages load concurrently (the source's scheduler orders and bounds the I/O; decoding runs on the
        // parallel scheduler); results land in the cache from the serialized onNext signals.
        Flux<Loaded> loads = partial && metadata.version().structural()
                ? takes.load(toLoad, owners, ranges, this::loadPage, Loaded::new, PAGE_CONCURRENCY)
                : Flux.range(0, toLoad.size()).flatMap(i -> loadPage(toLoad.get(i), owners.get(i))
                        .map(o -> new Loaded(toLoad.get(i), o)), PAGE_CONCURRENCY);
        return loads
                // pages failing together (one corrupt region, several pages) surface as the first typed error
                .onErrorMap(reactor.core.Exceptions::isMultiple, io.javelin.objectstore.internal.FirstError::of)
                // pages dropped by a cancel or error release their memory (then() below discards, too: not covered)
                .doOnDiscard(Loaded.class, Loaded::close)
                .doOnNext(l -> cache.put(l.ref(), l.page()))
                .then(Mono.defer(() -> loadRound(readers, ranges, cache, partial, false)));
    }

    private Mono<VectorSchemaRoot> batch(List<LanceField> fields, List<FieldReader> readers, List<long[]> ranges,
                                         PageCache cache, BufferAllocator allocator, long rows, boolean partial) {
        return loadRound(readers, ranges, cache, partial, true)
                // CancelSafe: a batch finished just as the scan is cancelled is closed, not dropped
                .then(io.javelin.encoding.io.CancelSafe.produceOn(Schedulers.parallel(), () -> {
                    List<FieldVector> vectors = new ArrayList<>();
                    try {
                        for (int f = 0; f < fields.size(); f++) {
                            FieldReader fr = readers.get(f);
                            FieldVector direct = partial ? guard(metadata.resource(), -1, () -> fr.assembleTake(ranges, cache, allocator))
                                    : null;
                            if (direct == null) {
                                direct = guard(metadata.resource(), -1, () -> fr.assembleDirect(ranges, cache, allocator));
                            }
                            if (direct != null) {
                                vectors.add(direct);
                                continue;
                            }
                            Node n = guard(metadata.resource(), -1, () -> fr.assemble(ranges, cache));
                            if (n.length() != rows) {
                                throw new CorruptFileException(metadata.resource(), -1, "Field " + fields.get(f).name()
                                        + " decoded " + n.length() + " rows vs " + rows);
                            }
                            Field arrow = fields.get(f).arrow();
                            vectors.add(guard(metadata.resource(), -1, () -> ArrowAssembler.toVector(arrow, n, allocator)));
                        }
                    } catch (RuntimeException e) {
                        vectors.forEach(FieldVector::close);
                        throw e;
                    }
                    List<Field> fs = vectors.stream().map(FieldVector::getField).toList();
                    return new VectorSchemaRoot(fs, vectors, (int) rows);
                }));
    }

    private Mono<Object> loadPage(PageRef ref, FieldReader reader) {
        var page = metadata.columns().get(ref.column()).getPages(ref.page());
        List<long[]> want = new ArrayList<>();
        for (int b = 0; b < page.getBufferOffsetsCount(); b++) {
            want.add(new long[] {page.getBufferOffsets(b), page.getBufferSizes(b)});
        }
        // CancelSafe.mapOn, not publishOn(...).map(...): Mono.publishOn drops (leaks) the pages on a cancel
        return Mono.deferContextual(ctx -> loadPage(ref, reader, page, want, ctx.getOrDefault(PageCache.CONTEXT_KEY, null)));
    }

    /** {@code owner} (may be null) adopts a decoded page that holds memory as soon as it exists. */
    private Mono<Object> loadPage(PageRef ref, FieldReader reader, io.javelin.encoding.pb.ColumnMetadata.Page page, List<long[]> want,
                                  io.javelin.encoding.io.ResourceOwner owner) {
        return mapEof(metadata.resource(), source.readAll(want, page.getPriority()))
                .flatMap(read -> io.javelin.encoding.io.CancelSafe.transformOn(Schedulers.parallel(), read,
                        ranges -> ranges.forEach(ByteRange::close), ranges -> {
                            // the decoded page may keep the read buffers (zero-copy): they go with the last reference
                            io.javelin.encoding.io.SharedMemory mem = new io.javelin.encoding.io.SharedMemory(
                                    () -> ranges.forEach(ByteRange::close));
                            try {
                                List<Buf> bufs = new ArrayList<>();
                                for (ByteRange r : ranges) {
                                    bufs.add(Buf.of(metadata.resource(), r));
                                }
                                Object decoded = guard(metadata.resource(), page.getBufferOffsetsCount() > 0 ? page.getBufferOffsets(0)
                                        : metadata.cmoPositions()[ref.column()], () -> reader.decodePage(ref, bufs, mem));
                                if (owner != null && decoded instanceof AutoCloseable c) {
                                    owner.adopt(c);
                                }
                                return decoded;
                            } finally {
                                mem.release();
                            }
                        }))
                .flatMap(this::resolveExternal)
                // last, so that it covers every operator above: Mono.flatMap drops a page that arrives after a
                // cancel through the discard hook of *its downstream* context (a hook above it never sees it)
                .doOnDiscard(io.javelin.encoding.arrow.DirectPage.class, io.javelin.encoding.arrow.DirectPage::close);
    }

    private Mono<Object> resolveExternal(Object decoded) {
        if (!(decoded instanceof ExternalBytes ext)) {
            return Mono.just(decoded);
        }
        return mapEof(metadata.resource(), source.readAll(ext.ranges(), 0))
                .flatMap(read -> io.javelin.encoding.io.CancelSafe.mapOn(Schedulers.parallel(), read,
                        ranges -> ranges.forEach(ByteRange::close), ranges -> {
                            List<Buf> bufs = new ArrayList<>();
                            for (ByteRange r : ranges) {
                                bufs.add(Buf.of(metadata.resource(), r));
                            }
                            return guard(metadata.resource(), ext.ranges().isEmpty() ? -1 : ext.ranges().get(0)[0],
                                    () -> ext.resolve(bufs));
                        }));
    }

    /** Bytes of take metadata (first-round buffers) this open file keeps; freed by {@link #close()}. */
    public long takeCacheBytes() {
        return takes.cachedBytes();
    }

    @Override
    public void close() {
        takes.clear();
        if (ownsSource) {
            source.close();
        }
    }

}
