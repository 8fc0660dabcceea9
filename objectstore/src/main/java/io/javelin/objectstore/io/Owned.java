package io.javelin.objectstore.io;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Resources a pipeline owns until it hands them over. Discard hooks miss elements that race with
 * a cancel (a value produced just after it, or sitting between two operators), so the scheduler
 * also registers every buffer it receives here: on cancel or error everything not yet handed over
 * is released, and anything arriving after that is released on arrival. Hand-over and release
 * both remove the element first, so exactly one of them gets it.
 */
final class Owned<T> {

    private final Consumer<T> release;
    private final Map<T, Boolean> items = new IdentityHashMap<>();
    private boolean closed;

    Owned(Consumer<T> release) {
        this.release = release;
    }

    /** Takes ownership; releases at once if already closed. */
    void add(T item) {
        synchronized (this) {
            if (!closed) {
                items.put(item, Boolean.TRUE);
                return;
            }
        }
        release.accept(item);
    }

    /** Hands an item over to the caller; false if it was already released. */
    synchronized boolean take(T item) {
        return items.remove(item) != null;
    }

    /** Releases everything still owned, and everything added later. */
    void close() {
        List<T> toRelease;
        synchronized (this) {
            closed = true;
            toRelease = new ArrayList<>(items.keySet());
            items.clear();
        }
        toRelease.forEach(release);
    }
}
