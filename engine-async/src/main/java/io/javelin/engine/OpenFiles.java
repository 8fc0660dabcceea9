package io.javelin.engine;

import io.javelin.encoding.file.LanceFileReader;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;
import reactor.core.publisher.Mono;

/**
 * Data files opened by scans and takes, kept per store handle (data files are immutable: a path always names
 * the same bytes). A repeated scan or take then skips the footer and metadata reads and finds its pages' first-round
 * buffers (chunk tables, dictionaries, repetition indexes) in the reader's cache. Bounded by count (least
 * recently used out); an evicted or released reader is closed, which frees its cache.
 */
final class OpenFiles {

    static final int MAX_FILES = Integer.getInteger("javelin.openFiles", 128);

    private final int max;
    private final Map<String, Mono<LanceFileReader>> open;
    private boolean closed;

    OpenFiles(int max) {
        this.max = max;
        this.open = new LinkedHashMap<>(16, 0.75f, true);
    }

    /** The open reader of {@code path}, opening it with {@code opener} once (a failed open is not kept). */
    Mono<LanceFileReader> get(String path, Supplier<Mono<LanceFileReader>> opener) {
        return Mono.defer(() -> {
            Mono<LanceFileReader> m;
            Mono<LanceFileReader> evicted = null;
            synchronized (this) {
                if (closed || max <= 0) {
                    return opener.get();
                }
                m = open.get(path);
                if (m == null) {
                    Mono<LanceFileReader>[] self = new Mono[1];
                    m = opener.get().doOnError(e -> forget(path, self[0])).cache();
                    self[0] = m;
                    open.put(path, m);
                    if (open.size() > max) {
                        var eldest = open.entrySet().iterator().next();
                        evicted = eldest.getValue();
                        open.remove(eldest.getKey());
                    }
                }
            }
            closeLater(evicted);
            return m;
        });
    }

    private synchronized void forget(String path, Mono<LanceFileReader> m) {
        open.remove(path, m);
    }

    /** Number of readers kept (tests). */
    synchronized int size() {
        return open.size();
    }

    void close() {
        java.util.List<Mono<LanceFileReader>> all;
        synchronized (this) {
            closed = true;
            all = java.util.List.copyOf(open.values());
            open.clear();
        }
        all.forEach(OpenFiles::closeLater);
    }

    private static void closeLater(Mono<LanceFileReader> m) {
        if (m != null) {
            m.subscribe(LanceFileReader::close, e -> { });
        }
    }
}
