package io.javelin.encoding.io;

import reactor.core.publisher.Mono;

/**
 * The narrow read interface the file reader needs: the size of one object and ranged reads into
 * released-on-close buffers. Implementations never block the subscribing thread.
 */
public interface RandomAccessSource extends AutoCloseable {

    /** A name for messages (path or URI). */
    String name();

    /** The object size in bytes. */
    Mono<Long> size();

    /** Reads exactly {@code length} bytes at {@code offset}; fails if the object is shorter. */
    Mono<ByteRange> read(long offset, long length);

    /**
     * Reads several ranges (e.g. the buffers of one page) as one request; {@code priority} orders
     * requests (lower first: the page's first row). The default reads them one by one.
     */
    default Mono<java.util.List<ByteRange>> readAll(java.util.List<long[]> ranges, long priority) {
        return reactor.core.publisher.Flux.fromIterable(ranges)
                .concatMap(r -> read(r[0], r[1]))
                .doOnDiscard(ByteRange.class, ByteRange::close)
                .collectList()
                .doOnDiscard(java.util.List.class, l -> l.forEach(x -> {
                    if (x instanceof ByteRange b) {
                        b.close();
                    }
                }));
    }

    /**
     * Bytes of ranges worth sending as one {@link #readAll} of many small ranges (a take's rows): 1 MiB here, for
     * local sources that read such a request as one batch; a cloud store's source returns its scheduler's
     * (unlimited), so a take goes out as one request that the scheduler coalesces into a few large GETs.
     */
    default long maxSparseRequest() {
        return 1L << 20;
    }

    /** Bytes between two ranges below which reading through the gap is cheaper than another request. */
    default long coalesceGap() {
        return 4096;
    }

    @Override
    default void close() {
    }
}
