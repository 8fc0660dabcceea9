package io.javelin.tx.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.objectstore.ObjectStore;
import io.javelin.objectstore.ObjectStores;
import io.javelin.objectstore.ResilientObjectStore;
import io.javelin.objectstore.servers.AzuriteServer;
import io.javelin.objectstore.servers.GcsServer;
import io.javelin.objectstore.servers.S3ProxyServer;
import io.javelin.testing.ChaosObjectStore;
import io.javelin.tx.store.ObjectStoreManifestStore;
import io.javelin.tx.tree.TreeTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Commit torture: concurrent writers append, delete, update and compact (see {@link CommitTorture})
 * through the production retry stack over a store that fails ~10% of requests (503 SlowDown, 500,
 * timeouts, writes applied whose acknowledgement is lost, and lost creates that then read as 404 for a
 * moment). Afterwards, with faults off, {@link CommitTorture#verify()}: every acknowledged commit is in
 * the history exactly once, nothing unacknowledged is visible unless it was reported unknown and
 * resolved as in, and every version holds exactly the logical rows the ledger predicts.
 *
 * <p>Stores: memory, local FS, S3 (s3proxy), Azure (Azurite), GCS (our test server), and memory-tree (a
 * table whose fragments live in a fragment metadata tree). CI size: 16 writers × 10 commits on memory
 * and local, 16 × 6 on memory-tree, 8 × 2 on S3, Azure and GCS. Full size: {@code -Djavelin.torture.writers=16
 * -Djavelin.torture.commits=50}; stores: {@code -Djavelin.torture.stores=memory,local}; fault rate:
 * {@code -Djavelin.torture.faultRate=0.1} (all inside {@code -Djavelin.test.extra="..."}).
 */
class CommitTortureTest {

    /** Writers; CI default 16 on memory, local and memory-tree, 8 on the HTTP test servers. */
    static int writers(String kind) {
        Integer all = Integer.getInteger("javelin.torture.writers");
        return all != null ? all : kind.equals("memory") || kind.equals("local") || kind.equals("memory-tree") ? 16 : 8;
    }
    /** Commits per writer; CI default 10 on memory/local, 6 on memory-tree, 2 on the HTTP test servers (~1 s per commit there under contention and AIMD). */
    static int commits(String kind) {
        Integer all = Integer.getInteger("javelin.torture.commits");
        return all != null ? all : kind.equals("memory") || kind.equals("local") ? 10 : kind.equals("memory-tree") ? 6 : 2;
    }
    static final double FAULT_RATE = Double.parseDouble(System.getProperty("javelin.torture.faultRate", "0.1"));

    @TempDir
    Path tmp;

    /** Opens the raw store of {@code kind} and puts ChaosObjectStore between it and the production retry policy. */
    private Object[] open(String kind) {
        String prefix = "torture-" + UUID.randomUUID();
        Map<String, String> o = new HashMap<>();
        String uri = switch (kind) {
            case "local" -> tmp.resolve(prefix).toUri().toString();
            case "memory", "memory-tree" -> "memory://" + prefix;
            case "s3" -> {
                if (System.getProperty("javelin.s3proxy.jar") == null) {
                    Path jar = Path.of("..", "objectstore", "target", "test-servers", "s3proxy.jar");
                    Assumptions.assumeTrue(Files.isRegularFile(jar), "s3proxy jar not built: " + jar);
                    System.setProperty("javelin.s3proxy.jar", jar.toString());
                }
                S3ProxyServer s = S3ProxyServer.get();
                s.createBucket("torture");
                o.putAll(s.options());
                yield "s3://torture/" + prefix;
            }
            case "azure" -> {
                AzuriteServer s = AzuriteServer.get();
                s.createContainer("torture");
                o.putAll(s.options());
                yield "az://torture/" + prefix;
            }
            case "gcs" -> {
                var s = GcsServer.get();
                s.createBucket("torture");
                o.putAll(GcsServer.options(s));
                yield "gs://torture/" + prefix;
            }
            default -> throw new IllegalArgumentException(kind);
        };
        if (!kind.equals("local") && !kind.startsWith("memory")) {
            o.put("lance_aimd_min_backoff_ms", "2");
            o.put("lance_aimd_max_backoff_ms", "50");
        }
        ResilientObjectStore resilient = (ResilientObjectStore) ObjectStores.open(uri, o, Map.of());
        ChaosObjectStore chaos = new ChaosObjectStore(resilient.inner(), FAULT_RATE, kind.hashCode())
                .withDarkAfterLostCreate(CommitTorture.DARK, 0.5);
        ObjectStore stack = new ResilientObjectStore(chaos, resilient.policy());
        return new Object[] {stack, chaos};
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"memory", "local", "s3", "azure", "gcs", "memory-tree"})
    void everyAcknowledgedCommitExactlyOnce(String kind) {
        String only = System.getProperty("javelin.torture.stores");
        Assumptions.assumeTrue(only == null || List.of(only.split(",")).contains(kind), "store not selected");
        Object[] opened = open(kind);
        ObjectStore store = (ObjectStore) opened[0];
        ChaosObjectStore chaos = (ChaosObjectStore) opened[1];
        try {
            long t0 = System.nanoTime();
            CommitTorture t = new CommitTorture(new ObjectStoreManifestStore(store, ""), CommitTorture.MIX);
            // memory-tree: the table keeps its fragments in a fragment metadata tree (spec 000), so every
            // commit, rebase and conflict check goes through the tree's leaves
            t.create(kind.endsWith("-tree") ? Map.of(TreeTables.LAYOUT_KEY, "tree") : Map.of()).block(Duration.ofMinutes(1));
            t.run(writers(kind), commits(kind), 42).block(Duration.ofMinutes(20));
            long ms = (System.nanoTime() - t0) / 1_000_000;
            chaos.disable();
            t.verify();
            long verifyMs = (System.nanoTime() - t0) / 1_000_000 - ms;
            System.out.printf("[torture] %s: %d writers x %d commits in %d ms (verify %d ms); %s%n", kind, writers(kind),
                    commits(kind), ms, verifyMs, t.summary(chaos));
            assertThat(chaos.injectedTotal()).as("faults were injected").isPositive();
        } finally {
            store.close();
        }
    }
}
