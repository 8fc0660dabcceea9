package io.javelin.testing;

import io.javelin.objectstore.memory.OffHeap;
import java.util.List;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails any test that leaves an off-heap arena open. Registered for every test in every module
 * through JUnit's extension auto-detection (META-INF/services in the objectstore test-jar).
 *
 * <p>Reactive pipelines may release memory on another thread shortly after the test body
 * returns, so the check waits a bounded time for late releases before it fails.
 */
public final class LeakCheckExtension implements BeforeEachCallback, AfterEachCallback {

    static {
        // test runs choose with JVM properties; the library takes only OffHeapOptions
        io.javelin.objectstore.memory.OffHeapOptions d = io.javelin.objectstore.memory.OffHeapOptions.DEFAULTS;
        io.javelin.objectstore.memory.OffHeapOptions.configure(new io.javelin.objectstore.memory.OffHeapOptions(
                !Boolean.getBoolean("javelin.offheap.zeroAll"), Long.getLong("javelin.offheap.poolBytes", d.poolBytes()),
                Boolean.getBoolean("javelin.offheap.trace")));
    }

    private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(LeakCheckExtension.class);

    @Override
    public void beforeEach(ExtensionContext context) {
        context.getStore(NS).put("firstId", OffHeap.lastArenaId() + 1);
    }

    @Override
    public void afterEach(ExtensionContext context) throws InterruptedException {
        long firstId = context.getStore(NS).get("firstId", Long.class);
        long graceMillis = Long.getLong("javelin.leakcheck.graceMillis", 5_000);
        long deadline = System.nanoTime() + graceMillis * 1_000_000L;
        List<OffHeap.ArenaInfo> leaked = leakedSince(firstId);
        while (!leaked.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(10);
            leaked = leakedSince(firstId);
        }
        if (!leaked.isEmpty()) {
            for (Throwable t : io.javelin.objectstore.memory.Buffer.liveTraces()) {
                t.printStackTrace(); // only with -Djavelin.offheap.trace=true (OffHeapOptions.traceHandles)
            }
            throw new OffHeapLeakError("off-heap leak: " + leaked.size() + " arena(s) opened by "
                    + context.getDisplayName() + " still open after " + graceMillis + " ms: " + leaked);
        }
    }

    private static List<OffHeap.ArenaInfo> leakedSince(long firstId) {
        io.javelin.objectstore.memory.Buffer.closeIdleSlab(); // kept for reuse while idle, not a leak
        return OffHeap.liveArenaInfo().stream().filter(a -> a.id() >= firstId).toList();
    }

    /** Thrown when a test leaves off-heap memory behind. */
    public static final class OffHeapLeakError extends AssertionError {
        OffHeapLeakError(String message) {
            super(message);
        }
    }
}
