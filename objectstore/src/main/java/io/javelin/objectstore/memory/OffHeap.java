package io.javelin.objectstore.memory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The one place off-heap memory is born. Every arena the engine opens (one per scan, batch or
 * request) comes from here, so the set of live arenas is always known: tests prove "no leaks"
 * by checking it, and operators can read {@link #liveBytes()} as a gauge.
 *
 * <p>Arenas are shared (not confined) because reactive stages and Arrow consumers release
 * memory on threads other than the one that allocated it.
 */
public final class OffHeap {

    private static final Map<TrackedArena, TrackedArena> LIVE = new ConcurrentHashMap<>();
    private static final LongAdder LIVE_BYTES = new LongAdder();
    private static final AtomicLong SEQUENCE = new AtomicLong();

    private OffHeap() {
    }

    /** Opens a shared arena tracked under {@code owner} (a short label such as "scan" or "page-io"). */
    public static Arena newArena(String owner) {
        TrackedArena arena = new TrackedArena(owner, SEQUENCE.incrementAndGet(), Arena.ofShared());
        LIVE.put(arena, arena);
        return arena;
    }

    /**
     * Allocates {@code size} bytes (64-byte aligned) in {@code arena} (one from {@link #newArena})
     * <em>without zeroing them</em>: for read buffers that are overwritten completely, where zeroing
     * cost 17–30 % of a vector scan's CPU. The memory is freed when the arena closes. Falls back to a
     * zeroing allocation when native {@code malloc} is not reachable (native access disabled).
     */
    public static MemorySegment allocateUninitialized(Arena arena, long size) {
        if (arena instanceof TrackedArena t && Malloc.AVAILABLE && size > 0) {
            MemorySegment seg = Malloc.allocate(size, t.delegate);
            t.allocated.addAndGet(size);
            LIVE_BYTES.add(size);
            return seg;
        }
        return arena.allocate(size, 64);
    }

    /** libc {@code malloc}/{@code free} through the FFM linker (restricted methods: native access). */
    private static final class Malloc {
        static final java.lang.invoke.MethodHandle MALLOC;
        static final java.lang.invoke.MethodHandle FREE;
        static final boolean AVAILABLE;

        static {
            java.lang.invoke.MethodHandle m = null;
            java.lang.invoke.MethodHandle f = null;
            boolean ok = OffHeapOptions.current().uninitialized();
            if (ok) {
                try {
                    java.lang.foreign.Linker linker = java.lang.foreign.Linker.nativeLinker();
                    java.lang.foreign.SymbolLookup libc = linker.defaultLookup();
                    m = linker.downcallHandle(libc.find("malloc").orElseThrow(),
                            java.lang.foreign.FunctionDescriptor.of(java.lang.foreign.ValueLayout.ADDRESS,
                                    java.lang.foreign.ValueLayout.JAVA_LONG));
                    f = linker.downcallHandle(libc.find("free").orElseThrow(),
                            java.lang.foreign.FunctionDescriptor.ofVoid(java.lang.foreign.ValueLayout.ADDRESS));
                    // a restricted call that fails here (native access denied) disables the fast path
                    MemorySegment probe = (MemorySegment) m.invokeExact(64L);
                    f.invokeExact(probe);
                    probe.reinterpret(0);
                } catch (Throwable e) {
                    ok = false;
                }
            }
            MALLOC = m;
            FREE = f;
            AVAILABLE = ok;
        }

        /**
         * Freed blocks of at least {@link #POOL_MIN} bytes kept for reuse, by size rounded up to 1 MiB. Large
         * malloc blocks are fresh mmaps: every reuse saves the kernel's page faults and zeroing (a scan of a
         * 128-d vector column reads one 32 MiB page after another), and the munmap.
         */
        private static final java.util.Map<Long, java.util.ArrayDeque<MemorySegment>> POOL = new java.util.HashMap<>();
        private static long pooledBytes;
        static final long POOL_MIN = 1L << 20;
        static final long POOL_MAX = OffHeapOptions.current().poolBytes();

        static MemorySegment allocate(long size, Arena owner) {
            long block = size >= POOL_MIN ? (size + 63 + POOL_MIN - 1) & -POOL_MIN : size + 63;
            MemorySegment raw = null;
            if (block >= POOL_MIN) {
                synchronized (POOL) {
                    java.util.ArrayDeque<MemorySegment> q = POOL.get(block);
                    if (q != null && !q.isEmpty()) {
                        raw = q.pop();
                        pooledBytes -= block;
                    }
                }
            }
            if (raw == null) {
                try {
                    raw = (MemorySegment) MALLOC.invokeExact(block);
                } catch (Throwable e) {
                    throw new IllegalStateException("malloc(" + size + ") failed", e);
                }
                if (raw.address() == 0) {
                    throw new OutOfMemoryError("malloc(" + size + ") returned NULL");
                }
            }
            MemorySegment r = raw;
            long aligned = (raw.address() + 63) & ~63L;
            return MemorySegment.ofAddress(aligned).reinterpret(size, owner, s -> recycle(r, block));
        }

        private static void recycle(MemorySegment raw, long block) {
            if (block >= POOL_MIN) {
                synchronized (POOL) {
                    if (pooledBytes + block <= POOL_MAX) {
                        POOL.computeIfAbsent(block, k -> new java.util.ArrayDeque<>()).push(raw);
                        pooledBytes += block;
                        return;
                    }
                }
            }
            free(raw);
        }

        private static void free(MemorySegment raw) {
            try {
                FREE.invokeExact(raw);
            } catch (Throwable e) {
                throw new IllegalStateException("free failed", e);
            }
        }
    }

    /** Number of arenas opened through {@link #newArena} and not yet closed. */
    public static int liveArenas() {
        return LIVE.size();
    }

    /** Bytes allocated in arenas that are still open. */
    public static long liveBytes() {
        return LIVE_BYTES.sum();
    }

    /** A snapshot of the live arenas, for leak reports. */
    public static List<ArenaInfo> liveArenaInfo() {
        List<ArenaInfo> out = new ArrayList<>();
        for (TrackedArena a : LIVE.keySet()) {
            out.add(new ArenaInfo(a.owner, a.id, a.allocated.get()));
        }
        out.sort((x, y) -> Long.compare(x.id(), y.id()));
        return out;
    }

    /** Id of the newest arena opened so far; arenas with a larger id were opened later. */
    public static long lastArenaId() {
        return SEQUENCE.get();
    }

    /** What a leak report says about one live arena. */
    public record ArenaInfo(String owner, long id, long bytes) {
    }

    private static final class TrackedArena implements Arena {
        private final String owner;
        private final long id;
        private final Arena delegate;
        private final AtomicLong allocated = new AtomicLong();
        private final AtomicBoolean closed = new AtomicBoolean();

        TrackedArena(String owner, long id, Arena delegate) {
            this.owner = owner;
            this.id = id;
            this.delegate = delegate;
        }

        @Override
        public MemorySegment allocate(long byteSize, long byteAlignment) {
            MemorySegment segment = delegate.allocate(byteSize, byteAlignment);
            allocated.addAndGet(byteSize);
            LIVE_BYTES.add(byteSize);
            return segment;
        }

        @Override
        public MemorySegment.Scope scope() {
            return delegate.scope();
        }

        @Override
        public void close() {
            if (!closed.compareAndSet(false, true)) {
                throw new IllegalStateException("arena '" + owner + "' #" + id + " already closed");
            }
            try {
                delegate.close();
            } finally {
                LIVE.remove(this);
                LIVE_BYTES.add(-allocated.get());
            }
        }

        @Override
        public String toString() {
            return "Arena[" + owner + " #" + id + ", " + allocated.get() + " B]";
        }
    }
}
