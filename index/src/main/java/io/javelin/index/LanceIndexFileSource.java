package io.javelin.index;

import io.javelin.encoding.file.LanceFileReader;
import io.javelin.encoding.file.LanceFileMetadata;
import io.javelin.encoding.io.ObjectStoreSource;
import io.javelin.objectstore.ObjectStore;
import io.javelin.objectstore.io.PageIoScheduler;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * {@link IndexFileSource} over the encoding module's {@link LanceFileReader}: the files of one
 * segment directory ({@code _indices/{uuid}/}, or any prefix) in an {@link ObjectStore}. Each file
 * is opened lazily on first use (one tail read for the small index files) and its metadata is kept;
 * row reads are ranged ({@code readRange} reads only the pages of those rows, {@code readRows} is a
 * take), so a lazy IVF index loads one partition at a time and a BTree one page at a time.
 *
 * <p>Batches come from {@code allocator}; the consumer closes them. Global buffers are copied to the
 * heap (they are small: IVF protobufs, codebooks), so no off-heap memory outlives a call.
 * Failures to open or decode surface as {@link CorruptIndexException} naming the file.
 */
public final class LanceIndexFileSource implements IndexFileSource, AutoCloseable {

    private final ObjectStore store;
    private final String directory;
    private final BufferAllocator allocator;
    private final PageIoScheduler io;
    private final Map<String, Mono<LanceFileReader>> readers = new ConcurrentHashMap<>();

    /**
     * @param directory path of the segment directory relative to the store root, e.g. {@code "_indices/<uuid>/"}
     *                  (a trailing slash is added when missing)
     */
    public LanceIndexFileSource(ObjectStore store, String directory, BufferAllocator allocator) {
        this.store = store;
        this.directory = directory.isEmpty() || directory.endsWith("/") ? directory : directory + "/";
        this.allocator = allocator;
        this.io = new PageIoScheduler(store);
    }

    /** The segment directory of {@code uuid} under the dataset root {@code datasetPrefix} ("" for the store root). */
    public static LanceIndexFileSource forSegment(ObjectStore store, String datasetPrefix, java.util.UUID uuid, BufferAllocator allocator) {
        String prefix = datasetPrefix == null || datasetPrefix.isEmpty() ? "" : (datasetPrefix.endsWith("/") ? datasetPrefix : datasetPrefix + "/");
        return new LanceIndexFileSource(store, prefix + IndexFiles.directory(uuid), allocator);
    }

    public String directory() {
        return directory;
    }

    /** The opened reader of {@code file} (shared; opened once). */
    public Mono<LanceFileReader> reader(String file) {
        return readers.computeIfAbsent(file, f -> LanceFileReader.open(new ObjectStoreSource(store, directory + f, io))
                .onErrorMap(e -> !(e instanceof CorruptIndexException),
                        e -> new CorruptIndexException(directory + f, "cannot open index file: " + e.getMessage(), e))
                .doOnError(e -> readers.remove(f))
                .cache());
    }

    private <T> Mono<T> mapErrors(String file, Mono<T> m) {
        return m.onErrorMap(e -> !(e instanceof CorruptIndexException) && !(e instanceof Error),
                e -> new CorruptIndexException(directory + file, e.getMessage(), e));
    }

    private <T> Flux<T> mapErrors(String file, Flux<T> m) {
        return m.onErrorMap(e -> !(e instanceof CorruptIndexException) && !(e instanceof Error),
                e -> new CorruptIndexException(directory + file, e.getMessage(), e));
    }

    @Override
    public Mono<VectorSchemaRoot> readAll(String file) {
        return mapErrors(file, reader(file).flatMap(r -> {
            long n = r.numRows();
            if (n == 0) {
                return Mono.fromCallable(() -> emptyRoot(r));
            }
            CorruptIndexException.check(n <= Integer.MAX_VALUE, directory + file, "%d rows do not fit one batch", n);
            return r.scan(LanceFileReader.ScanOptions.all((int) n), allocator).next();
        }));
    }

    private VectorSchemaRoot emptyRoot(LanceFileReader r) {
        VectorSchemaRoot root = VectorSchemaRoot.create(r.schema(), allocator);
        root.setRowCount(0);
        return root;
    }

    @Override
    public Flux<VectorSchemaRoot> readRows(String file, long[] rows) {
        if (rows.length == 0) {
            return mapErrors(file, reader(file).map(this::emptyRoot).flux());
        }
        return mapErrors(file, reader(file).flatMap(r -> r.take(rows, null, allocator)).flux());
    }

    @Override
    public Flux<VectorSchemaRoot> readRange(String file, long start, long end) {
        if (end <= start) {
            return mapErrors(file, reader(file).map(this::emptyRoot).flux());
        }
        return mapErrors(file, reader(file).flatMapMany(r -> {
            // the last BTree page / partition may be shorter than the nominal range: clamp to the file
            long to = Math.min(end, r.numRows());
            CorruptIndexException.check(start < to, directory + file, "rows [%d, %d) beyond the file's %d rows",
                    start, end, r.numRows());
            long len = to - start;
            CorruptIndexException.check(len <= Integer.MAX_VALUE, directory + file, "range of %d rows does not fit one batch", len);
            return r.scan(LanceFileReader.ScanOptions.all((int) len).withRange(start, to), allocator);
        }));
    }

    @Override
    public Mono<Map<String, String>> schemaMetadata(String file) {
        return mapErrors(file, reader(file).map(r -> {
            Map<String, String> m = r.schema().getCustomMetadata();
            return m == null ? Map.<String, String>of() : Map.copyOf(m);
        }));
    }

    /** Number of rows of {@code file}. */
    public Mono<Long> numRows(String file) {
        return mapErrors(file, reader(file).map(LanceFileReader::numRows));
    }

    @Override
    public Mono<MemorySegment> globalBuffer(String file, int index) {
        return mapErrors(file, reader(file).flatMap(r -> {
            LanceFileMetadata md = r.metadata();
            if (index < 0 || index >= md.gboPositions().length) {
                return Mono.error(new CorruptIndexException(directory + file, "no global buffer " + index + " (file has "
                        + md.gboPositions().length + ")"));
            }
            long pos = md.gboPositions()[index];
            long len = md.gboSizes()[index];
            if (len == 0) {
                return Mono.just(MemorySegment.ofArray(new byte[0]));
            }
            ObjectStoreSource src = new ObjectStoreSource(store, directory + file, io);
            return Mono.usingWhen(src.read(pos, len),
                    range -> Mono.fromCallable(() -> MemorySegment.ofArray(range.segment().toArray(ValueLayout.JAVA_BYTE))),
                    range -> Mono.fromRunnable(range::close));
        }));
    }

    /** Forgets opened readers (the store belongs to the caller). */
    @Override
    public void close() {
        readers.clear();
    }
}
