package io.javelin.tx.store;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The few object-store operations the table layer needs, with paths relative to the dataset root
 * ({@code _versions/18446744073709551614.manifest}). Kept this small on purpose: adapting it to the
 * engine's {@code ObjectStore} is one class that prefixes the dataset URI and maps the exceptions.
 *
 * <p>Errors are signalled, never thrown: {@link StoreNotFoundException} for a missing object,
 * {@link StoreAlreadyExistsException} when {@link #putIfAbsent} loses, anything else is a transport
 * failure whose outcome may be unknown.
 */
public interface ManifestStore {

    /** The whole object. */
    Mono<byte[]> read(String path);

    /**
     * {@code length} bytes at {@code offset} (one ranged GET on object stores); fails with
     * {@link IndexOutOfBoundsException} when the object is shorter. The default reads the whole
     * object and slices it.
     */
    default Mono<byte[]> readRange(String path, long offset, int length) {
        return read(path).map(b -> {
            if (offset < 0 || length < 0 || offset + length > b.length) {
                throw new IndexOutOfBoundsException("range " + offset + "+" + length + " of " + b.length + " bytes of " + path);
            }
            return java.util.Arrays.copyOfRange(b, (int) offset, (int) offset + length);
        });
    }

    /** Unconditional write (overwrites). */
    Mono<Void> put(String path, byte[] bytes);

    /** Atomic create: fails with {@link StoreAlreadyExistsException} if the path exists (If-None-Match: *). */
    Mono<Void> putIfAbsent(String path, byte[] bytes);

    /** Objects whose path starts with {@code prefix}; in lexical order iff {@link #listsInLexicalOrder()}. */
    Flux<StoreEntry> list(String prefix);

    /** Deletes; completes normally if absent. */
    Mono<Void> delete(String path);

    /**
     * Whether {@link #list} returns paths in lexical order (S3, GCS, Azure do; local directories do not).
     * With V2 manifest names this makes the first listed manifest the latest version.
     */
    boolean listsInLexicalOrder();
}
