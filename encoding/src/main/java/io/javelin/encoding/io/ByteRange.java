package io.javelin.encoding.io;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Bytes {@code [offset, offset + segment.byteSize())} of a file, held in a segment that is released
 * by {@link #close()}. Segments of off-heap ranges belong to an arena opened through
 * {@code OffHeap.newArena}; heap-backed ranges (tests, in-memory sources) have no arena.
 */
public final class ByteRange implements AutoCloseable {

    private final long offset;
    private final MemorySegment segment;
    private final AutoCloseable owner;
    private final AtomicBoolean closed = new AtomicBoolean();

    public ByteRange(long offset, MemorySegment segment, Arena arena) {
        this(offset, segment, (AutoCloseable) arena);
    }

    /** A range whose memory is released by closing {@code owner} (an arena, a store buffer; null = heap). */
    public ByteRange(long offset, MemorySegment segment, AutoCloseable owner) {
        this.offset = offset;
        this.segment = segment;
        this.owner = owner;
    }

    /** Absolute file offset of the first byte. */
    public long offset() {
        return offset;
    }

    public long length() {
        return segment.byteSize();
    }

    public MemorySegment segment() {
        return segment;
    }

    /** Releases the memory (idempotent). */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true) && owner != null) {
            try {
                owner.close();
            } catch (Exception e) {
                throw new IllegalStateException("releasing " + this, e);
            }
        }
    }
}
