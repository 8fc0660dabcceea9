package io.javelin.encoding.file;

import io.javelin.encoding.io.ResourceOwner;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * The decoded pages one scan or take owns: those in its cache and those still on their way there.
 *
 * <p>A page that holds native memory is adopted the moment it is decoded (the loader finds this cache in
 * the Reactor context under {@link #CONTEXT_KEY}), so ownership never depends on Reactor's discard hooks:
 * operators drop values after a cancel in several ways, and a hook sees only some of them. Whatever is
 * still in flight or cached when the scan ends is closed by {@link #close()}; a page adopted or put after
 * that is closed at once. One lock decides each case.
 */
final class PageCache implements ResourceOwner, Function<PageRef, Object>, AutoCloseable {

    /** Reactor context key under which page loaders find the cache that owns what they decode. */
    static final String CONTEXT_KEY = "javelin.pageCache";

    private final Map<PageRef, Object> pages = new HashMap<>();
    private final Set<Object> inFlight = Collections.newSetFromMap(new IdentityHashMap<>());
    private boolean closed;

    /** A page decoded for this cache: tracked until {@link #put}; closed at once if the cache is closed. */
    @Override
    public void adopt(AutoCloseable page) {
        synchronized (this) {
            if (!closed) {
                inFlight.add(page);
                return;
            }
        }
        LanceFileReader.closePage(page);
    }

    /** Caches {@code page} under {@code ref} (closing a page it replaces); closes it if the cache is closed. */
    void put(PageRef ref, Object page) {
        Object old;
        synchronized (this) {
            inFlight.remove(page);
            if (closed) {
                old = page;
            } else {
                old = pages.put(ref, page);
                if (old == page) {
                    old = null;
                }
            }
        }
        LanceFileReader.closePage(old);
    }

    /** Another owner (the read-ahead) has taken {@code page} over: it is no longer this cache's to close. */
    synchronized void claim(Object page) {
        inFlight.remove(page);
    }

    @Override
    public synchronized Object apply(PageRef ref) {
        return pages.get(ref);
    }

    synchronized boolean contains(PageRef ref) {
        return pages.containsKey(ref);
    }

    synchronized List<PageRef> refs() {
        return List.copyOf(pages.keySet());
    }

    /** Drops and closes the page under {@code ref} (batches built from it keep their own references). */
    void evict(PageRef ref) {
        Object page;
        synchronized (this) {
            page = pages.remove(ref);
        }
        LanceFileReader.closePage(page);
    }

    /** Closes every cached and in-flight page; later pages are closed as they arrive. Idempotent. */
    @Override
    public void close() {
        List<Object> all;
        synchronized (this) {
            closed = true;
            all = new ArrayList<>(pages.values());
            all.addAll(inFlight);
            pages.clear();
            inFlight.clear();
        }
        all.forEach(LanceFileReader::closePage);
    }
}
