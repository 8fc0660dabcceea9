package io.javelin.engine;

import java.nio.file.Path;
import org.apache.arrow.memory.BufferAllocator;

/**
 * Memory settings of a merge-insert (a value; {@code with*} return copies).
 *
 * @param memoryBudgetBytes Arrow memory the merge may hold: a source up to a quarter of it is joined in
 *                          memory; a larger one is hash-partitioned by key into spill files and joined one partition
 *                          at a time (a partition still too large is split again)
 * @param spillDirectory    where spill files go (a fresh directory is created below it and removed after);
 *                          null: the platform temp directory
 * @param fanOut            partitions per split (2..1024)
 * @param allocator         parent of the merge's allocator (so a caller can meter it); null: a private root
 */
public record MergeInsertOptions(long memoryBudgetBytes, Path spillDirectory, int fanOut, BufferAllocator allocator) {

    public static final long DEFAULT_BUDGET = 512L << 20;
    public static final MergeInsertOptions DEFAULTS = new MergeInsertOptions(DEFAULT_BUDGET, null, 32, null);

    public MergeInsertOptions {
        if (memoryBudgetBytes < (1 << 20)) {
            throw new IllegalArgumentException("memoryBudgetBytes must be at least 1 MiB, got " + memoryBudgetBytes);
        }
        if (fanOut < 2 || fanOut > 1024) {
            throw new IllegalArgumentException("fanOut must be in 2..1024, got " + fanOut);
        }
    }

    public static MergeInsertOptions budget(long bytes) {
        return new MergeInsertOptions(bytes, null, DEFAULTS.fanOut, null);
    }

    public MergeInsertOptions withSpillDirectory(Path dir) {
        return new MergeInsertOptions(memoryBudgetBytes, dir, fanOut, allocator);
    }

    public MergeInsertOptions withFanOut(int n) {
        return new MergeInsertOptions(memoryBudgetBytes, spillDirectory, n, allocator);
    }

    public MergeInsertOptions withAllocator(BufferAllocator a) {
        return new MergeInsertOptions(memoryBudgetBytes, spillDirectory, fanOut, a);
    }
}
