package io.javelin.tx.tree;

import org.apache.arrow.memory.BufferAllocator;

/**
 * What the tree needs from its surroundings: object storage, the leaf codec, an Arrow allocator
 * for leaf batches and the writer policy.
 */
public record TreeEnv(TreeStore store, LeafCodec codec, BufferAllocator allocator, TreeConfig config) {
}
