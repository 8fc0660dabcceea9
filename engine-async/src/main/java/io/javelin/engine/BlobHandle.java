package io.javelin.engine;

import io.javelin.objectstore.ByteRange;
import io.javelin.objectstore.io.PageIoScheduler;
import io.javelin.objectstore.io.PageResult;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ReadableByteChannel;
import java.util.List;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A lazily read blob of {@link Dataset#takeBlobs}: nothing is fetched until {@link #read} or
 * {@link #stream} is subscribed. Reads go through the page-I/O scheduler of the store holding the bytes
 * (data file, packed or dedicated sidecar, or external object) and arrive as heap buffers the caller
 * owns. A null blob ({@link #isNull}) has size 0 and reads complete empty.
 */
public final class BlobHandle {

    /** Chunk size of {@link #stream()} and of the {@link #inputStream()} reads. */
    public static final int DEFAULT_CHUNK = 4 << 20;

    private final int index;
    private final long rowAddress;
    private final Source source;

    /** Where the bytes are: {@code path} on the store of {@code io}, starting at {@code offset}; null source bytes for a null blob. */
    record Source(PageIoScheduler io, String path, long offset, long size, byte[] inMemory, String describe) {
    }

    BlobHandle(int index, long rowAddress, Source source) {
        this.index = index;
        this.rowAddress = rowAddress;
        this.source = source;
    }

    Source source() {
        return source;
    }

    /** Position of this blob's row in the request. */
    public int index() {
        return index;
    }

    public long rowAddress() {
        return rowAddress;
    }

    public boolean isNull() {
        return source == null;
    }

    /** Logical size in bytes (0 for null and empty blobs). */
    public long size() {
        return source == null ? 0 : source.size();
    }

    /** Where the payload lives (for diagnostics): object path and byte range. */
    public String location() {
        return source == null ? "null" : source.describe();
    }

    /**
     * Bytes {@code [position, position + length)} of the blob; a range past {@link #size()} is an
     * {@link InvalidScanException}, an empty range completes with an empty buffer without I/O.
     */
    public Mono<ByteBuffer> read(long position, long length) {
        return Mono.defer(() -> {
            if (source == null) {
                return Mono.empty();
            }
            if (position < 0 || length < 0 || length > Integer.MAX_VALUE || position > source.size() - length) {
                return Mono.error(new InvalidScanException(source.describe(), -1, "Range [" + position + ", +" + length
                        + ") outside the blob of " + source.size() + " bytes"));
            }
            if (length == 0) {
                return Mono.just(ByteBuffer.allocate(0));
            }
            if (source.inMemory() != null) {
                return Mono.just(ByteBuffer.wrap(source.inMemory(), (int) position, (int) length).slice());
            }
            return source.io().submit(source.path(), List.of(new ByteRange(source.offset() + position, length)), 0)
                    .map(BlobHandle::toHeap);
        });
    }

    /** The whole blob. */
    public Mono<ByteBuffer> readAll() {
        return read(0, size());
    }

    /** The blob in chunks of {@link #DEFAULT_CHUNK} bytes. */
    public Flux<ByteBuffer> stream() {
        return stream(DEFAULT_CHUNK);
    }

    /**
     * The blob in order, {@code chunk} bytes at a time: a chunk is read only on demand, at most two are
     * read ahead, so memory stays bounded by the chunk size whatever the blob's size; cancelling stops
     * the reads and frees what was in flight.
     */
    public Flux<ByteBuffer> stream(int chunk) {
        if (chunk <= 0) {
            return Flux.error(new IllegalArgumentException("Chunk size must be positive: " + chunk));
        }
        long n = (size() + chunk - 1) / chunk;
        return Flux.defer(() -> Flux.range(0, (int) n))
                .flatMapSequential(i -> read((long) i * chunk, Math.min(chunk, size() - (long) i * chunk)), 2, 1);
    }

    /**
     * A blocking {@link InputStream} over the blob for consumers that need one (decoders, media
     * libraries). Its reads wait for the reactive reads, so it must be used from a thread that may
     * block (never a Reactor non-blocking thread; Reactor refuses with an {@link IllegalStateException}).
     */
    public InputStream inputStream() {
        return new InputStream() {
            private long pos;
            private ByteBuffer current = ByteBuffer.allocate(0);

            @Override
            public int read() throws IOException {
                byte[] one = new byte[1];
                return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                if (len == 0) {
                    return 0;
                }
                if (!current.hasRemaining()) {
                    if (pos >= size()) {
                        return -1;
                    }
                    long n = Math.min(DEFAULT_CHUNK, size() - pos);
                    try {
                        current = BlobHandle.this.read(pos, n).block();
                    } catch (RuntimeException e) {
                        throw new IOException("Blob read failed: " + e.getMessage(), e);
                    }
                    pos += n;
                }
                int k = Math.min(len, current.remaining());
                current.get(b, off, k);
                return k;
            }

            @Override
            public long skip(long n) {
                long inBuf = Math.min(n, current.remaining());
                current.position(current.position() + (int) inBuf);
                long rest = Math.min(n - inBuf, size() - pos);
                pos += Math.max(0, rest);
                return inBuf + Math.max(0, rest);
            }

            @Override
            public int available() {
                return current.remaining();
            }
        };
    }

    /** A blocking channel over {@link #inputStream()} (same threading rule). */
    public ReadableByteChannel channel() {
        return Channels.newChannel(inputStream());
    }

    static ByteBuffer toHeap(PageResult r) {
        try {
            return ByteBuffer.wrap(r.buffer(0).toByteArray());
        } finally {
            r.release();
        }
    }

    @Override
    public String toString() {
        return "BlobHandle[" + index + " @" + rowAddress + ", " + size() + " bytes, " + location() + "]";
    }
}
