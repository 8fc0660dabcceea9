package io.javelin.objectstore;

import io.javelin.objectstore.memory.Buffer;
import java.lang.foreign.MemorySegment;
import reactor.core.publisher.Mono;

/**
 * Create-if-absent with the lost-acknowledgement problem solved for the commit layer.
 *
 * <p>A conditional create can be applied by the server while its response is lost (5xx, reset,
 * timeout). The retry then finds the object and reports "already exists" although we won. Commit
 * payloads (manifests) are unique per attempt (they carry a UUID), so reading the object back and
 * comparing bytes tells "we won" from "someone else won".
 */
public final class CreateIfAbsent {

    private CreateIfAbsent() {
    }

    /** The outcome of a create that has been checked against the store. */
    public sealed interface Outcome permits Won, Lost {
    }

    /**
     * We created the object.
     *
     * @param meta           what the store reported (or what the read-back found)
     * @param recoveredByReadBack true when the store said "already exists" and the read-back proved
     *                       the object is ours (a lost acknowledgement)
     */
    public record Won(ObjectMeta meta, boolean recoveredByReadBack) implements Outcome {
    }

    /** Someone else created the object first. */
    public record Lost(ObjectMeta existing, ObjectAlreadyExistsException cause) implements Outcome {
    }

    /**
     * Creates {@code path} with {@code data}; on "already exists" reads the object back and compares
     * it with {@code data}. Fails only for errors other than a lost race.
     */
    public static Mono<Outcome> create(ObjectStore store, String path, byte[] data) {
        MemorySegment bytes = MemorySegment.ofArray(data);
        return store.putIfAbsent(path, bytes)
                .<Outcome>map(meta -> new Won(meta, false))
                .onErrorResume(ObjectAlreadyExistsException.class, e -> resolve(store, path, bytes, e));
    }

    /** Decides a lost race by reading {@code path} back: same bytes means the create was ours. */
    public static Mono<Outcome> resolve(ObjectStore store, String path, MemorySegment expected,
            ObjectAlreadyExistsException conflict) {
        return store.head(path).flatMap(meta -> {
            if (meta.size() != expected.byteSize()) {
                return Mono.<Outcome>just(new Lost(meta, conflict));
            }
            return Mono.usingWhen(store.readAll(path),
                    buf -> Mono.just(sameBytes(buf, expected) ? new Won(meta, true) : new Lost(meta, conflict)),
                    buf -> Mono.fromRunnable(buf::release));
        });
    }

    private static boolean sameBytes(Buffer buf, MemorySegment expected) {
        return buf.size() == expected.byteSize()
                && MemorySegment.mismatch(buf.segment(), 0, buf.size(), expected, 0, expected.byteSize()) == -1;
    }
}
