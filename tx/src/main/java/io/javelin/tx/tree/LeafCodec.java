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

    /**
     * Whether {@link #decodeRows} reads an object of this size in ranges instead of whole (small
     * objects are cheaper to fetch in one request than to open in three).
     */
    default boolean readsRanges(long objectSize) {
        return false;
    }

    /**
     * Decodes only the records whose ids are in {@code ids} (sorted ascending, absent ids skipped),
     * reading just the ranges of the object it needs through {@code source}. {@code [lo, hi)} is the
     * leaf's id range, {@code expectedRows} its {@code num_keys}; a different record count is
     * corrupt. Fails with a {@link CorruptSnapshotException} like {@link #decode}.
     */
    default Mono<Decoded> decodeRows(io.javelin.encoding.io.RandomAccessSource source, java.util.SortedSet<Long> ids,
            long lo, long hi, long expectedRows, BufferAllocator allocator) {
        return Mono.error(new UnsupportedOperationException("this codec reads whole leaves"));
    }

    /** A decoded leaf batch and the dictionaries its index vectors point into. */
    interface Decoded extends AutoCloseable {
        VectorSchemaRoot root();

        DictionaryProvider dictionaries();

        @Override
        void close();
    }
}
