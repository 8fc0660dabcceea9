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
