package io.javelin.engine;

import io.javelin.encoding.file.LanceFileReader;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import reactor.core.publisher.Mono;

/**
 * The opened data files of one dataset handle, by path. Opening a Lance file costs a tail read and the
 * parse of its footer, offset tables, schema and column metadata; takes (kNN results, refine, indexed
 * filters) touch a few rows of many fragments and paid that on every call. Lance never rewrites a data
 * file in place (new data gets a new uuid path), so a reader stays valid for the handle's lifetime. Only
 * successful opens are kept (a failed open is retried next time); the map is bounded by dropping
 * everything past {@link #MAX} entries (readers hold no resources of their own: the store is shared; each keeps
 * the first-round buffers of its partial reads, chunk tables and the like, up to its own budget).
 */
final class DataFileReaders {

    static final int MAX = 1024;

    private final ConcurrentHashMap<String, LanceFileReader> readers = new ConcurrentHashMap<>();

    Mono<LanceFileReader> open(String path, Supplier<Mono<LanceFileReader>> opener) {
        return Mono.defer(() -> {
            LanceFileReader cached = readers.get(path);
            if (cached != null) {
                return Mono.just(cached);
            }
            return opener.get().doOnNext(r -> {
                if (readers.size() >= MAX) {
                    readers.clear();
                }
                readers.putIfAbsent(path, r);
            });
        });
    }

    int size() {
        return readers.size();
    }
}
