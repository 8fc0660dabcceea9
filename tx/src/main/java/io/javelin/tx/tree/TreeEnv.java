package io.javelin.tx.tree;

import org.apache.arrow.memory.BufferAllocator;

/**
 * What the tree needs from its surroundings: object storage, the leaf codec, an Arrow allocator
 * for leaf batches, the writer policy and an optional cache of decoded leaves.
 */
public record TreeEnv(TreeStore store, LeafCodec codec, BufferAllocator allocator, TreeConfig config, LeafCache cache) {

    /** Without a leaf cache: every leaf read fetches and decodes the object. */
    public TreeEnv(TreeStore store, LeafCodec codec, BufferAllocator allocator, TreeConfig config) {
        this(store, codec, allocator, config, null);
    }
}
