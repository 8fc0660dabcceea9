package io.javelin.objectstore;

import io.javelin.objectstore.memory.Buffer;
import io.javelin.objectstore.metrics.StoreCounters;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A non-blocking object store. Paths are keys relative to the store's root ({@code a/b/c}, no
 * leading slash, no {@code .} or {@code ..} segments).
 *
 * <p>Reads land in off-heap {@link Buffer}s that the subscriber owns and must release. If a read
 * is cancelled, or its buffer is discarded by an operator, the store releases it.
 *
 * <p>Nothing here blocks the subscribing thread; stores whose client blocks run it on a bounded,
 * named scheduler of their own.
 */
public interface ObjectStore extends AutoCloseable {

    /** The root this store was opened on, e.g. {@code s3://bucket/prefix}; for messages and metrics. */
    String uri();

    StoreTraits traits();

    /** Requests and bytes per operation class, counted per request sent (retries included). */
    StoreCounters counters();

    /** Reads {@code [offset, offset+length)}; fails if the object is shorter. */
    Mono<Buffer> read(String path, long offset, long length);

    default Mono<Buffer> read(String path, ByteRange range) {
        return read(path, range.offset(), range.length());
    }

    /**
     * Removes the staging objects of writes that died before publishing (a killed process), last modified
     * before {@code olderThan}, under {@code prefix}; emits how many. Only stores that stage writes in
     * objects of their own (the local store's hidden temporary files, which listings never show) have any;
     * the default has nothing to do.
     */
    default Mono<Integer> removeStaleTemporaries(String prefix, java.time.Instant olderThan) {
        return Mono.just(0);
    }

    /**
     * Reads {@code [offset, offset + dst.size())} into {@code dst} and emits it. Takes ownership of the
     * {@code dst} handle: it is emitted when filled, and released on error or cancel. Lets the page-I/O
     * scheduler read one page that is split into several requests straight into one buffer. Default:
     * {@link #read} and a copy; stores that can read in place override it.
     */
    default Mono<Buffer> readInto(String path, long offset, Buffer dst) {
        // the copy's result leaves through flatMap, whose discard releases it when a cancel races the emission
        return io.javelin.objectstore.internal.Bodies.intoClaimed(dst, claim -> read(path, offset, dst.size())
                .flatMap(b -> Mono.defer(() -> {
                    try {
                        Buffer target = claim.get();
                        if (target == null) {
                            return Mono.<Buffer>empty();
                        }
                        try {
                            MemorySegment.copy(b.segment(), 0, target.segment(), 0, target.size());
                        } catch (RuntimeException e) {
                            target.release();
                            throw e;
                        }
                        return Mono.just(target);
                    } finally {
                        b.release();
                    }
                }))).doOnDiscard(Buffer.class, Buffer::release);
    }

    /**
     * Reads several ranges, emitted in the order given. At most {@code traits().ioParallelism()} are
     * in flight. Use the page-I/O scheduler to coalesce and prioritise; this does neither.
     */
    default Flux<Buffer> readRanges(String path, List<ByteRange> ranges) {
        return Flux.fromIterable(ranges)
                .flatMapSequential(r -> read(path, r), traits().ioParallelism())
                .doOnDiscard(Buffer.class, Buffer::release);
    }

    /** Whether {@link #readBatch} serves several ranges in one call (the page-I/O scheduler then batches small reads). */
    default boolean batchesReads() {
        return false;
    }

    /**
     * Reads several ranges and emits them together, in the order given; stores that serve them in one call
     * (the local store) override it and {@link #batchesReads}.
     */
    default Mono<List<Buffer>> readBatch(String path, List<ByteRange> ranges) {
        return readRanges(path, ranges).collectList();
    }

    /** Reads the last {@code min(length, size)} bytes (footers). */
    Mono<Buffer> readTail(String path, long length);

    /** Reads the whole object. */
    Mono<Buffer> readAll(String path);

    /** Size, etag and version; {@link ObjectNotFoundException} if missing. */
    Mono<ObjectMeta> head(String path);

    /** Writes (or overwrites) the object in one request. */
    Mono<ObjectMeta> put(String path, MemorySegment data);

    default Mono<ObjectMeta> put(String path, byte[] data) {
        return put(path, MemorySegment.ofArray(data));
    }

    /**
     * Writes (or overwrites) the object from a stream of chunks. Above the store's part size this
     * becomes a multipart / block / resumable upload whose parts are retried one by one. The chunks
     * are copied before the next is requested, so callers may reuse them.
     */
    Mono<ObjectMeta> put(String path, Flux<ByteBuffer> data);

    /**
     * Creates the object only if no object exists at {@code path}: the commit primitive. Exactly one
     * of many racing callers succeeds; every other gets {@link ObjectAlreadyExistsException}.
     */
    Mono<ObjectMeta> putIfAbsent(String path, MemorySegment data);

    default Mono<ObjectMeta> putIfAbsent(String path, byte[] data) {
        return putIfAbsent(path, MemorySegment.ofArray(data));
    }

    /**
     * Create-if-absent from a stream. Stores with multipart uploads make the final step conditional
     * (S3 complete with {@code If-None-Match: *}, Azure commit-block-list, GCS resumable with
     * generation 0); the default collects the stream in memory and calls the single-request form.
     */
    default Mono<ObjectMeta> putIfAbsent(String path, Flux<ByteBuffer> data) {
        return data.reduce(new java.io.ByteArrayOutputStream(), (out, bb) -> {
            byte[] b = new byte[bb.remaining()];
            bb.get(b);
            out.write(b, 0, b.length);
            return out;
        }).flatMap(out -> putIfAbsent(path, out.toByteArray()));
    }

    /**
     * One page of a listing under {@code prefix} (a plain string prefix, not only a directory).
     *
     * @param delimiter null to list everything under the prefix, or "/" to roll up sub-directories
     * @param pageToken null for the first page, else {@link ListPage#nextPageToken()}
     * @param maxKeys   page size (1..1000)
     */
    Mono<ListPage> listPage(String prefix, String delimiter, String pageToken, int maxKeys);

    /** Every object under {@code prefix}, all pages. */
    default Flux<ObjectMeta> list(String prefix) {
        return listPages(prefix, null, 1000).concatMapIterable(ListPage::objects);
    }

    /** All pages of a listing. */
    default Flux<ListPage> listPages(String prefix, String delimiter, int maxKeys) {
        return listPage(prefix, delimiter, null, maxKeys)
                .expand(p -> p.isLast() ? Mono.empty() : listPage(prefix, delimiter, p.nextPageToken(), maxKeys));
    }

    /** The objects and common prefixes directly under {@code prefix} with delimiter "/", all pages merged. */
    default Mono<ListPage> listWithDelimiter(String prefix) {
        return listPages(prefix, "/", 1000).collectList().map(pages -> {
            List<ObjectMeta> objects = new ArrayList<>();
            List<String> prefixes = new ArrayList<>();
            for (ListPage p : pages) {
                objects.addAll(p.objects());
                prefixes.addAll(p.commonPrefixes());
            }
            return new ListPage(objects, prefixes, null);
        });
    }

    /** Deletes the object; deleting a missing object succeeds. */
    Mono<Void> delete(String path);

    /** Deletes many objects (batched where the store supports it). */
    default Mono<Void> deleteAll(Collection<String> paths) {
        return Flux.fromIterable(paths).flatMap(this::delete, traits().ioParallelism()).then();
    }

    /** Server-side copy, overwriting {@code to}. */
    Mono<ObjectMeta> copy(String from, String to);

    /** Releases clients and schedulers owned by this store. */
    @Override
    void close();
}
