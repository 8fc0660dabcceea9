package io.javelin.objectstore.memory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A handle on off-heap bytes. Handles are reference counted: {@link #slice} and {@link #share}
 * return new handles on the same memory, and the memory (one {@link OffHeap} arena) is freed when
 * the last handle is released.
 *
 * <p>{@link #release()} is idempotent per handle, so it is safe in Reactor discard hooks that may
 * fire more than once. Reading a released handle throws {@link IllegalStateException}.
 */
public final class Buffer implements AutoCloseable {

    private static final MemorySegment EMPTY_SEGMENT = MemorySegment.ofArray(new byte[0]);

    private final Owner owner;
    private final MemorySegment segment;
    private final AtomicBoolean released = new AtomicBoolean();

    private Buffer(Owner owner, MemorySegment segment) {
        this.owner = owner;
        this.segment = segment;
        if (TRACE) {
            TRACES.put(this, new Throwable("allocated " + segment.byteSize() + " B on " + Thread.currentThread().getName()));
        }
    }

    /**
     * Debugging aid ({@link OffHeapOptions#traceHandles()}): remembers where every live handle was made, so a
     * leak report can name the code that did not release it ({@link #liveTraces()}).
     */
    private static final boolean TRACE = OffHeapOptions.current().traceHandles();
    private static final java.util.Map<Buffer, Throwable> TRACES = new java.util.concurrent.ConcurrentHashMap<>();

    /** Allocation traces of live handles, when tracing is on (else empty). */
    public static java.util.List<Throwable> liveTraces() {
        return java.util.List.copyOf(TRACES.values());
    }

    /** Buffers up to this size are carved from shared slabs; larger ones get their own arena. */
    public static final long SLAB_THRESHOLD = 64 * 1024;
    private static final long SLAB_SIZE = 1024 * 1024;
    private static final Slabs SLABS = new Slabs();

    /**
     * Allocates {@code size} bytes (64-byte aligned). Large buffers get their own arena labelled
     * {@code label}; small ones are slices of a shared 1 MiB slab arena, because closing a shared
     * arena costs a thread handshake that would dominate a 4 KiB read. A slab closes when its last
     * buffer is released, except the slab being carved: that one is rewound and reused (a burst of
     * small reads that are all released again, e.g. a take, would otherwise open, zero and close a
     * 1 MiB arena, with its handshake, every time); {@link #closeIdleSlab()} closes it.
     */
    public static Buffer allocate(long size, String label) {
        if (size < 0) {
            throw new IllegalArgumentException("Invalid buffer size: " + size + " (must be >= 0)");
        }
        if (size == 0) {
            return new Buffer(null, EMPTY_SEGMENT);
        }
        if (size <= SLAB_THRESHOLD) {
            return SLABS.allocate(size, true);
        }
        Arena arena = OffHeap.newArena(label);
        try {
            return new Buffer(new Owner(arena), arena.allocate(size, 64));
        } catch (RuntimeException | Error e) {
            arena.close();
            throw e;
        }
    }

    /**
     * As {@link #allocate}, but large buffers are not zeroed: only for buffers the caller overwrites
     * completely before reading (I/O destinations). Small ones still come from the (zeroed) slabs.
     */
    public static Buffer allocateUninitialized(long size, String label) {
        if (size <= SLAB_THRESHOLD) {
            return size <= 0 ? allocate(size, label) : SLABS.allocate(size, false);
        }
        Arena arena = OffHeap.newArena(label);
        try {
            return new Buffer(new Owner(arena), OffHeap.allocateUninitialized(arena, size));
        } catch (RuntimeException | Error e) {
            arena.close();
            throw e;
        }
    }

    /** Copies {@code bytes} into a new off-heap buffer. */
    public static Buffer copyOf(byte[] bytes, String label) {
        return copyOf(MemorySegment.ofArray(bytes), label);
    }

    /** Copies {@code source} (heap or off-heap) into a new off-heap buffer. */
    public static Buffer copyOf(MemorySegment source, String label) {
        Buffer b = allocateUninitialized(source.byteSize(), label);
        if (source.byteSize() > 0) {
            MemorySegment.copy(source, 0, b.segment, 0, source.byteSize());
        }
        return b;
    }

    /**
     * Closes the slab small buffers are carved from if no buffer of it is live (it is otherwise kept
     * for reuse). Leak checks call this first; returns whether a slab was closed.
     */
    public static boolean closeIdleSlab() {
        return SLABS.closeIdle();
    }

    /** The bytes. Valid until this handle is released. */
    public MemorySegment segment() {
        checkLive();
        return segment;
    }

    public long size() {
        return segment.byteSize();
    }

    /** A new handle on {@code [offset, offset+length)} of this one; release it separately. */
    public Buffer slice(long offset, long length) {
        checkLive();
        Objects.checkFromIndexSize(offset, length, segment.byteSize());
        if (owner != null) {
            owner.retain();
        }
        return new Buffer(owner, segment.asSlice(offset, length));
    }

    /** A new handle on the same bytes; release it separately. */
    public Buffer share() {
        return slice(0, segment.byteSize());
    }

    /**
     * Releases this handle. Returns true the first time; later calls do nothing and return false.
     * The memory is freed when every handle of it has been released.
     */
    public boolean release() {
        if (!released.compareAndSet(false, true)) {
            return false;
        }
        if (TRACE) {
            TRACES.remove(this);
        }
        if (owner != null) {
            owner.release();
        }
        return true;
    }

    @Override
    public void close() {
        release();
    }

    public boolean isReleased() {
        return released.get();
    }

    /** Live handles on this buffer's memory (0 once freed); for tests and leak reports. */
    public int refCount() {
        return owner == null ? (released.get() ? 0 : 1) : owner.refs.get();
    }

    /** A read-only {@link ByteBuffer} view, valid until this handle is released. */
    public ByteBuffer asByteBuffer() {
        return segment().asByteBuffer().asReadOnlyBuffer();
    }

    /** Copies the bytes to the heap (small objects and tests only). */
    public byte[] toByteArray() {
        return segment().toArray(ValueLayout.JAVA_BYTE);
    }

    private void checkLive() {
        if (released.get()) {
            throw new IllegalStateException("Buffer already released: " + this);
        }
    }

    @Override
    public String toString() {
        return "Buffer[" + segment.byteSize() + " B" + (released.get() ? ", released" : "") + "]";
    }

    /** The arena and the count of live handles on it. */
    private static class Owner {
        final Arena arena;
        final AtomicInteger refs;

        Owner(Arena arena) {
            this(arena, 1);
        }

        Owner(Arena arena, int initialRefs) {
            this.arena = arena;
            this.refs = new AtomicInteger(initialRefs);
        }

        void retain() {
            while (true) {
                int r = refs.get();
                if (r <= 0) {
                    throw new IllegalStateException("Buffer memory already freed");
                }
                if (refs.compareAndSet(r, r + 1)) {
                    return;
                }
            }
        }

        void release() {
            if (refs.decrementAndGet() == 0) {
                arena.close();
            }
        }
    }

    /** A slab arena: its refs count every live handle on any buffer carved from it. */
    private static final class Slab extends Owner {
        final MemorySegment memory;
        long used;
        boolean dirty;

        Slab(Arena arena, MemorySegment memory) {
            super(arena, 0);
            this.memory = memory;
        }

        @Override
        void retain() {
            synchronized (SLABS) {
                if (refs.get() <= 0) {
                    throw new IllegalStateException("Buffer memory already freed");
                }
                refs.incrementAndGet();
            }
        }

        @Override
        void release() {
            boolean close;
            synchronized (SLABS) {
                close = refs.decrementAndGet() == 0;
                if (close && SLABS.current == this) {
                    used = 0; // idle: carve it again from the start (the memory is now dirty)
                    dirty = true;
                    close = false;
                }
            }
            if (close) {
                arena.close();
            }
        }
    }

    /** The slab being carved; replaced when full, forgotten when all its buffers are released. */
    private static final class Slabs {
        Slab current;

        Buffer allocate(long size, boolean zero) {
            long aligned = (size + 63) & ~63L;
            MemorySegment seg;
            Slab s;
            synchronized (this) {
                s = current;
                if (s == null || s.used + aligned > SLAB_SIZE) {
                    Arena arena = OffHeap.newArena("slab");
                    s = new Slab(arena, arena.allocate(SLAB_SIZE, 64));
                    current = s;
                }
                seg = s.memory.asSlice(s.used, size);
                s.used += aligned;
                s.refs.incrementAndGet();
                zero &= s.dirty;
            }
            if (zero) {
                seg.fill((byte) 0);
            }
            return new Buffer(s, seg);
        }

        boolean closeIdle() {
            Slab idle;
            synchronized (this) {
                idle = current;
                if (idle == null || idle.refs.get() != 0) {
                    return false;
                }
                current = null;
            }
            idle.arena.close();
            return true;
        }
    }
}
