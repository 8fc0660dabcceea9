package io.javelin.tx.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.objectstore.ObjectStore;
import io.javelin.objectstore.ObjectStores;
import io.javelin.objectstore.ResilientObjectStore;
import io.javelin.objectstore.servers.AzuriteServer;
import io.javelin.objectstore.servers.GcsServer;
import io.javelin.objectstore.servers.S3ProxyServer;
import io.javelin.testing.ChaosObjectStore;
import io.javelin.tx.FragmentInfo;
import io.javelin.tx.Snapshot;
import io.javelin.tx.store.ObjectStoreManifestStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.HashSet;
import java.util.UUID;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.roaringbitmap.RoaringBitmap;

/**
 * Commit torture: concurrent writers append and delete through the production retry stack over a
 * store that fails ~10% of requests (503 SlowDown, 500, timeouts, and writes applied whose
 * acknowledgement is lost). Afterwards, with faults off: every acknowledged commit is in the history
 * exactly once, nothing unacknowledged is visible unless it was reported unknown and resolved as
 * in, every version opens, the deletion vectors and the row count are exactly the ledger's.
 *
 * <p>CI size: 16 writers × 10 commits on memory and local, 8 × 2 on S3, Azure and GCS. Full size
 * ({@code -Djavelin.torture.writers=16 -Djavelin.torture.commits=50}):
 * {@code -Djavelin.torture.commits=50}; writers: {@code -Djavelin.torture.writers=N}; stores:
 * {@code -Djavelin.torture.stores=memory,local}; fault rate:
 * {@code -Djavelin.torture.faultRate=0.1}.
 */
class CommitTortureTest {

    /** Writers; CI default 16 on memory/local, 8 on the HTTP test servers. */
    static int writers(String kind) {
        Integer all = Integer.getInteger("javelin.torture.writers");
        return all != null ? all : kind.equals("memory") || kind.equals("local") ? 16 : 8;
    }
    /** Commits per writer; CI default 10 on memory/local, 2 on the HTTP test servers (~1 s per commit there under 16-way contention and AIMD). */
    static int commits(String kind) {
        Integer all = Integer.getInteger("javelin.torture.commits");
        return all != null ? all : kind.equals("memory") || kind.equals("local") ? 10 : 2;
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
            case "memory" -> "memory://" + prefix;
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
        if (!kind.equals("local") && !kind.equals("memory")) {
            o.put("lance_aimd_min_backoff_ms", "2");
            o.put("lance_aimd_max_backoff_ms", "50");
        }
        ResilientObjectStore resilient = (ResilientObjectStore) ObjectStores.open(uri, o, Map.of());
        ChaosObjectStore chaos = new ChaosObjectStore(resilient.inner(), FAULT_RATE, kind.hashCode());
        ObjectStore stack = new ResilientObjectStore(chaos, resilient.policy());
        return new Object[] {stack, chaos};
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"memory", "local", "s3", "azure", "gcs"})
    void everyAcknowledgedCommitExactlyOnce(String kind) {
        String only = System.getProperty("javelin.torture.stores");
        Assumptions.assumeTrue(only == null || List.of(only.split(",")).contains(kind), "store not selected");
        Object[] opened = open(kind);
        ObjectStore store = (ObjectStore) opened[0];
        ChaosObjectStore chaos = (ChaosObjectStore) opened[1];
        try {
            long t0 = System.nanoTime();
            CommitTorture t = new CommitTorture(new ObjectStoreManifestStore(store, ""),
                    List.of(CommitTorture.APPEND, CommitTorture.APPEND, CommitTorture.DELETE, CommitTorture.UPDATE,
                            CommitTorture.COMPACT));
            t.create().block(Duration.ofMinutes(1));
            t.run(writers(kind), commits(kind), 42).block(Duration.ofMinutes(20));
            long ms = (System.nanoTime() - t0) / 1_000_000;
            chaos.disable();
            verify(t);
            long verifyMs = (System.nanoTime() - t0) / 1_000_000 - ms;
            Snapshot last = t.table.open().block();
            System.out.printf("[torture] %s: %d writers x %d commits in %d ms (verify %d ms); acked %d %s, retryable conflicts %d, "
                            + "failed %d, unknown->in %d, unknown->out %d; final version %d, %d fragments, %d rows; "
                            + "%d requests, faults injected: throttle %d, 500 %d, timeout %d, lost-ack %d%n",
                    kind, writers(kind), commits(kind), ms, verifyMs, t.count(CommitTorture.Outcome.Kind.ACKED),
                    new java.util.TreeMap<>(t.ackedByOp()), t.count(CommitTorture.Outcome.Kind.CONFLICT),
                    t.count(CommitTorture.Outcome.Kind.FAILED), t.count(CommitTorture.Outcome.Kind.UNKNOWN_RESOLVED_IN),
                    t.count(CommitTorture.Outcome.Kind.UNKNOWN_RESOLVED_OUT), last.version(), last.fragments().size(),
                    last.countRows(), chaos.requests.get(),
                    chaos.injected[0].get(), chaos.injected[1].get(), chaos.injected[2].get(), chaos.injected[3].get());
            assertThat(chaos.injectedTotal()).as("faults were injected").isPositive();
        } finally {
            store.close();
        }
    }

    static void verify(CommitTorture t) {
        List<String> history = t.history().block(Duration.ofMinutes(5));
        assertThat(CommitTorture.duplicates(history)).as("transactions committed twice").isEmpty();
        for (CommitTorture.Outcome o : t.ledger.values()) {
            boolean in = history.contains(o.txnUuid());
            switch (o.kind()) {
                case ACKED, UNKNOWN_RESOLVED_IN -> assertThat(in).as("acknowledged %s %s is in the history", o.txnUuid(),
                        o.effect()).isTrue();
                case FAILED, CONFLICT, UNKNOWN_RESOLVED_OUT -> assertThat(in).as("failed %s %s is not visible", o.txnUuid(),
                        o.effect()).isFalse();
            }
        }
        assertThat(history).as("every visible transaction was issued by a writer").allMatch(t.ledger::containsKey);
        assertThat(t.count(CommitTorture.Outcome.Kind.ACKED)).isPositive();

        // Every version holds exactly the logical rows its prefix of the history predicts, each once.
        Snapshot latest = t.table.open().block();
        assertThat(latest.version()).isEqualTo(history.size() + 1L);
        Map<String, RoaringBitmap> deletionCache = new HashMap<>();
        Set<Long> live = new HashSet<>();
        for (long v = 1; v <= latest.version(); v++) {
            if (v >= 2) {
                CommitTorture.Effect e = t.ledger.get(history.get((int) v - 2)).effect();
                for (long r : e.added()) {
                    assertThat(live.add(r)).as("v%d: %s adds row %d once", v, e, r).isTrue();
                }
                for (long r : e.removed()) {
                    assertThat(live.remove(r)).as("v%d: %s removes live row %d", v, e, r).isTrue();
                }
            }
            Snapshot s = v == latest.version() ? latest : t.table.checkout(v).block();
            List<Long> actual = t.actualRows(s, deletionCache).block();
            assertThat(CommitTorture.duplicates(actual)).as("v%d: rows listed twice", v).isEmpty();
            assertThat(actual).as("v%d: live rows", v).hasSameSizeAs(live);
            assertThat(new HashSet<>(actual)).as("v%d: live rows", v).isEqualTo(live);
            assertThat(s.countRows()).as("v%d: row count", v).isEqualTo(live.size());
        }
        // the same by the order-free formula, over everything acknowledged or resolved as in
        Set<String> in = new HashSet<>();
        t.ledger.values().stream().filter(o -> o.kind() == CommitTorture.Outcome.Kind.ACKED
                || o.kind() == CommitTorture.Outcome.Kind.UNKNOWN_RESOLVED_IN).forEach(o -> in.add(o.txnUuid()));
        assertThat(in).isEqualTo(new HashSet<>(history));
        assertThat(live).isEqualTo(t.expectedRows(in));
        // the deletion files of the latest version decode to their manifest counts
        Map<Long, Long> counts = latest.verifyDeletions().block();
        for (FragmentInfo f : latest.fragments()) {
            assertThat(counts.get(f.id())).isEqualTo(f.deletedRows());
        }
    }
}
