package io.javelin.spark;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * The connector's Arrow memory in this JVM: one root, a child per partition reader or data writer, closed
 * with it (a child that still holds memory when closed is a leak and fails loudly).
 */
public final class Allocators {

    private static final RootAllocator ROOT = new RootAllocator(Long.MAX_VALUE);

    private Allocators() {
    }

    static BufferAllocator child(String name) {
        return ROOT.newChildAllocator(name, 0, Long.MAX_VALUE);
    }

    /**
     * Closes {@code child} once its buffers are back: a cancelled scan or write releases what it holds
     * asynchronously, on its own threads, shortly after the cancel returns. Still held after 10 s is a leak,
     * reported by Arrow's close.
     */
    static void closeWhenReleased(BufferAllocator child) {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (child.getAllocatedMemory() > 0 && System.nanoTime() < deadline) {
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        child.close();
    }

    /** Bytes currently held by all readers and writers of this JVM (0 when none is open). */
    public static long allocatedBytes() {
        return ROOT.getAllocatedMemory();
    }

    /** Readers and writers still open in this JVM. */
    public static int openChildren() {
        return ROOT.getChildAllocators().size();
    }
}
