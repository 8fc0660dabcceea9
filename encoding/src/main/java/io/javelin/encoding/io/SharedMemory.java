package io.javelin.encoding.io;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Reference-counted ownership of memory several holders use: page read buffers kept by a decoded page,
 * and the Arrow buffers that batches wrap around it without copying. The memory is released (its
 * owner closed) when the last reference goes.
 */
public final class SharedMemory {

    private final AutoCloseable owner;
    private final AtomicInteger refs = new AtomicInteger(1);

    /** Holds one reference, the caller's. */
    public SharedMemory(AutoCloseable owner) {
        this.owner = owner;
    }

    /** Adds a reference; false if the memory is already released (nothing may touch it then). */
    public boolean tryRetain() {
        while (true) {
            int r = refs.get();
            if (r <= 0) {
                return false;
            }
            if (refs.compareAndSet(r, r + 1)) {
                return true;
            }
        }
    }

    public SharedMemory retain() {
        if (!tryRetain()) {
            throw new IllegalStateException("memory already released");
        }
        return this;
    }

    public void release() {
        int r = refs.decrementAndGet();
        if (r == 0) {
            try {
                owner.close();
            } catch (Exception e) {
                throw new IllegalStateException("releasing shared memory", e);
            }
        } else if (r < 0) {
            throw new IllegalStateException("shared memory released more often than retained");
        }
    }

    public int refCount() {
        return Math.max(0, refs.get());
    }
}
