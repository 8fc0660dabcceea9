package io.javelin.encoding.io;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The decoded pages of one scan or take (those holding memory), closed when the scan or take ends. Reactor
 * drops a value that races a termination in some operators without any hook (e.g. a page decoded while
 * its load round fails, queued into a flatMap that has just cleared its queues); pages adopted here are
 * closed anyway. A page adopted after {@link #close()} is closed at once. Closing a page twice is harmless
 * (pages close idempotently), so pages the scan closes itself stay listed until they are pruned.
 */
public final class PageOwner implements AutoCloseable {

    /** Reactor context key of the owner of a scan's or take's pages. */
    public static final String CONTEXT_KEY = "javelin.pageOwner";

    private final Set<AutoCloseable> live = ConcurrentHashMap.newKeySet();
    private final java.util.function.Predicate<AutoCloseable> released;
    private volatile boolean closed;
    private volatile int pruneAt = 1024;

    /** {@code released}: whether a page already gave its memory back (it is then forgotten). */
    public PageOwner(java.util.function.Predicate<AutoCloseable> released) {
        this.released = released;
    }

    public void adopt(Object page) {
        if (!(page instanceof AutoCloseable c)) {
            return;
        }
        if (live.size() >= pruneAt) {
            synchronized (this) {
                if (live.size() >= pruneAt) {
                    live.removeIf(released);
                    pruneAt = Math.max(1024, 2 * live.size()); // pages still open: amortized, not once per page
                }
            }
        }
        live.add(c);
        if (closed && live.remove(c)) {
            CancelSafe.closeQuietly(c);
        }
    }

    @Override
    public void close() {
        closed = true;
        for (AutoCloseable c : live) {
            if (live.remove(c)) {
                CancelSafe.closeQuietly(c);
            }
        }
    }
}
