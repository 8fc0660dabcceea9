package io.javelin.tx.tree;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The narrow object storage the fragment tree needs. Tree objects are immutable and small
 * (at most a few MiB), so whole objects travel as heap byte arrays.
 */
public interface TreeStore {

    /** Stores a new immutable object; completes once it is durable. */
    Mono<Void> put(ObjectLocation location, byte[] bytes);

    /** Reads a whole object; errors with {@link java.util.NoSuchElementException} if absent. */
    Mono<byte[]> get(ObjectLocation location);

    /** Reads {@code length} bytes starting at {@code offset}. */
    Mono<byte[]> getRange(ObjectLocation location, long offset, int length);

    /** What identifies the underlying storage (objects cached per identity). */
    default Object identity() {
        return this;
    }

    /** Lists the object paths of {@code dataset} under {@code prefix} (e.g. {@code "_bt/"}). */
    Flux<ObjectLocation> list(String dataset, String prefix);
}
