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

    @Override
    default void close() {
    }
}
