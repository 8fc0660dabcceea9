package io.javelin.interop.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.objectstore.ObjectStore;
import io.javelin.objectstore.ObjectStores;
import io.javelin.objectstore.ResilientObjectStore;
import io.javelin.testing.ChaosObjectStore;
import io.javelin.tx.Snapshot;
import io.javelin.tx.reliability.CommitTorture;
import io.javelin.tx.store.ObjectStoreManifestStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The commit torture of {@code tx} (append, delete, update and compaction racing through the production
 * retry stack over a local store injecting 10% faults, lost acknowledgements included), then every
 * version it produced is opened by lance-core 7.0.0 and must have the row count Javelin and the ledger
 * give it. The torture's data files are metadata only; row counts come from the manifests and the
 * (real) deletion files, which is what both engines read for them.
 *
 * <p>Size: {@code -Djavelin.torture.interop.writers} (default 6) ×
 * {@code -Djavelin.torture.interop.commits} (default 5).
 */
class CommitTortureInteropTest {

    static final int WRITERS = Integer.getInteger("javelin.torture.interop.writers", 6);
    static final int COMMITS = Integer.getInteger("javelin.torture.interop.commits", 5);

    @TempDir
    Path dir;

    @Test
    void everyTorturedVersionOpensInLanceCore() {
        Path root = dir.resolve("torture.lance");
        String uri = root.toUri().toString();
        ResilientObjectStore resilient = (ResilientObjectStore) ObjectStores.open(uri, Map.of(), Map.of());
        ChaosObjectStore chaos = new ChaosObjectStore(resilient.inner(), 0.1, 13).withDarkAfterLostCreate(CommitTorture.DARK, 0.5);
        try (ObjectStore store = new ResilientObjectStore(chaos, resilient.policy());
             BufferAllocator alloc = new RootAllocator()) {
            long t0 = System.nanoTime();
            CommitTorture t = new CommitTorture(new ObjectStoreManifestStore(store, ""), CommitTorture.MIX);
            t.create().block(Duration.ofMinutes(1));
            t.run(WRITERS, COMMITS, 7).block(Duration.ofMinutes(10));
            chaos.disable();
            t.verify();
            assertThat(chaos.injectedTotal()).as("faults were injected").isPositive();

            Snapshot latest = t.table.open().block();
            try (org.lance.Dataset head = org.lance.Dataset.open(root.toString(), alloc)) {
                assertThat(head.version()).isEqualTo(latest.version());
                for (long v = 1; v <= latest.version(); v++) {
                    long ours = t.table.checkout(v).block().countRows();
                    try (org.lance.Dataset theirs = head.checkoutVersion(v)) {
                        assertThat(theirs.countRows()).as("version %d", v).isEqualTo(ours);
                    }
                }
            }
            System.out.printf("[torture-interop] %d writers x %d commits on local FS in %d ms, every version opened by lance-core "
                    + "with Javelin's row count; %s%n", WRITERS, COMMITS, (System.nanoTime() - t0) / 1_000_000, t.summary(chaos));
        }
    }
}
