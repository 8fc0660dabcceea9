package io.javelin.tx.tree;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import reactor.core.publisher.Mono;

/**
 * Stores one leaf batch (the exact {@link LeafSchema} with its mapping dictionaries) as the bytes
 * of one object: {@link LanceLeafCodec}, a Lance file written and read by the encoding module.
 */
public interface LeafCodec {

    /** Encodes one batch; the caller keeps ownership of {@code leaf} and {@code dictionaries}. */
    byte[] encode(VectorSchemaRoot leaf, DictionaryProvider dictionaries);

    /**
     * Decodes an object; the emitted batch owns its memory and must be closed. Undecodable bytes
     * fail with a {@link CorruptSnapshotException}.
     */
    Mono<Decoded> decode(byte[] bytes, BufferAllocator allocator);

    /** A decoded leaf batch and the dictionaries its index vectors point into. */
    interface Decoded extends AutoCloseable {
        VectorSchemaRoot root();

        DictionaryProvider dictionaries();

        @Override
        void close();
    }
}
