package io.javelin.encoding.io;

import java.io.EOFException;
import java.lang.foreign.MemorySegment;
import reactor.core.publisher.Mono;

/** A source over a heap byte array (tests, fuzzing). Reads are slices; nothing to release. */
public final class MemorySource implements RandomAccessSource {

    private final String name;
    private final byte[] bytes;
    private long reads;
    private long bytesRead;

    public MemorySource(String name, byte[] bytes) {
        this.name = name;
        this.bytes = bytes;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Mono<Long> size() {
        return Mono.just((long) bytes.length);
    }

    @Override
    public Mono<ByteRange> read(long offset, long length) {
        if (offset < 0 || length < 0 || offset + length > bytes.length) {
            return Mono.error(new EOFException("read [" + offset + ", +" + length + ") past end " + bytes.length + " of " + name));
        }
        synchronized (this) {
            reads++;
            bytesRead += length;
        }
        return Mono.just(new ByteRange(offset, MemorySegment.ofArray(bytes).asSlice(offset, length), null));
    }

    /** Number of reads served (for I/O accounting tests). */
    public synchronized long reads() {
        return reads;
    }

    /** Bytes served. */
    public synchronized long bytesRead() {
        return bytesRead;
    }
}
