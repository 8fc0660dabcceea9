package io.javelin.tx.tree;

import io.javelin.objectstore.memory.OffHeap;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.apache.arrow.memory.AllocationManager;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.ReferenceManager;
import org.apache.arrow.memory.RootAllocator;

/**
 * Arrow allocators whose memory comes from {@link OffHeap} arenas, so leaf batches obey the
 * engine's rule that {@code OffHeap.newArena} is the only source of off-heap memory (and its leak
 * checks see them). Each Arrow allocation owns one arena, closed when Arrow releases it.
 */
public final class OffHeapArrow {

    private OffHeapArrow() {
    }

    /** A root allocator limited to {@code limit} bytes whose buffers are tracked under {@code owner}. */
    public static BufferAllocator newRootAllocator(String owner, long limit) {
        return new RootAllocator(RootAllocator.configBuilder().allocationManagerFactory(new Factory(owner))
                .maxAllocation(limit).build());
    }

    private static final class Factory implements AllocationManager.Factory {
        private static final ArrowBuf EMPTY = new ArrowBuf(ReferenceManager.NO_OP, null, 0, 0);
        private final String owner;

        Factory(String owner) {
            this.owner = owner;
        }

        @Override
        public AllocationManager create(BufferAllocator accountingAllocator, long size) {
            return new Manager(accountingAllocator, size, owner);
        }

        @Override
        public ArrowBuf empty() {
            return EMPTY;
        }
    }

    private static final class Manager extends AllocationManager {
        private final Arena arena;
        private final MemorySegment segment;

        Manager(BufferAllocator accountingAllocator, long size, String owner) {
            super(accountingAllocator);
            this.arena = OffHeap.newArena(owner);
            this.segment = arena.allocate(size, 64);
        }

        @Override
        public long getSize() {
            return segment.byteSize();
        }

        @Override
        protected long memoryAddress() {
            return segment.address();
        }

        @Override
        protected void release0() {
            arena.close();
        }
    }
}
