package io.javelin.engine.server;

import static io.javelin.engine.server.ServerFixtures.SCHEMA;
import static io.javelin.engine.server.ServerFixtures.ids;
import static io.javelin.engine.server.ServerFixtures.rows;
import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.engine.namespace.CreateMode;
import io.javelin.engine.namespace.DirectoryNamespace;
import io.javelin.engine.namespace.ObjectId;
import io.javelin.engine.namespace.RestNamespaceClient;
import io.javelin.engine.namespace.TableQuery;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * 16 concurrent REST clients (by default) mixing inserts and queries on one table for about 8 s (BlockHound on):
 * no request fails, every acknowledged insert is present exactly once, nothing else is, the server's
 * Arrow memory returns to zero; p50 / p99 latencies are printed (docs/reliability.md).
 */
class ServerLoadTest {

    /** CI: 16 clients for 8 s; a long run: {@code -Djavelin.load.clients=64 -Djavelin.load.seconds=60}. */
    static final int CLIENTS = Integer.getInteger("javelin.load.clients", 16);
    static final int ROWS = 20;
    static final Duration RUN = Duration.ofSeconds(Integer.getInteger("javelin.load.seconds", 8));

    @TempDir
    Path root;

    @Test
    void concurrentInsertsAndQueriesKeepEveryAcknowledgedRowExactlyOnce() {
        ObjectId t = ObjectId.of("load");
        try (BufferAllocator alloc = new RootAllocator(); DirectoryNamespace dir = DirectoryNamespace.open(root.toString(), Map.of())) {
            NamespaceServer server = NamespaceServer.start(dir, ServerOptions.defaults().withPort(0).withLogRequests(false)).block();
            List<RestNamespaceClient> clients = new ArrayList<>();
            try {
                for (int i = 0; i < CLIENTS; i++) {
                    clients.add(RestNamespaceClient.connect("http://127.0.0.1:" + server.port()));
                }
                clients.getFirst().createTable(t, rows(alloc, -ROWS, ROWS, ROWS, "seed"), SCHEMA, CreateMode.CREATE).block();
                ConcurrentLinkedQueue<Long> acked = new ConcurrentLinkedQueue<>();
                ConcurrentLinkedQueue<Long> insertNanos = new ConcurrentLinkedQueue<>();
                ConcurrentLinkedQueue<Long> queryNanos = new ConcurrentLinkedQueue<>();
                AtomicInteger failures = new AtomicInteger();
                long end = System.nanoTime() + RUN.toNanos();
                Flux.range(0, CLIENTS).flatMap(c -> {
                    RestNamespaceClient client = clients.get(c);
                    AtomicInteger seq = new AtomicInteger();
                    return Mono.defer(() -> {
                        int s = seq.getAndIncrement();
                        long start = System.nanoTime();
                        if (s % 2 == 0) {
                            long from = (long) c * 1_000_000 + (long) s * ROWS;
                            return client.insertIntoTable(t, rows(alloc, from, ROWS, ROWS, "c"), SCHEMA, false)
                                    .doOnNext(v -> {
                                        insertNanos.add(System.nanoTime() - start);
                                        for (int i = 0; i < ROWS; i++) {
                                            acked.add(from + i);
                                        }
                                    }).then();
                        }
                        Mono<?> q = s % 4 == 1 ? client.countTableRows(t, "id >= 0", null)
                                : client.queryTable(t, TableQuery.scan(List.of("id"), "id % 97 = 0", 50), alloc)
                                        .doOnNext(b -> b.close()).then(Mono.just(0));
                        return q.doOnNext(x -> queryNanos.add(System.nanoTime() - start)).then();
                    }).onErrorResume(e -> {
                        failures.incrementAndGet();
                        System.err.println("load request failed: " + e);
                        return Mono.empty();
                    }).repeat(() -> System.nanoTime() < end);
                }, CLIENTS).blockLast(Duration.ofMinutes(3));

                List<Long> found = ids(dir.queryTable(t, TableQuery.scan(List.of("id"), "id >= 0", 0), alloc).collectList().block());
                Map<Long, Integer> times = new HashMap<>();
                found.forEach(id -> times.merge(id, 1, Integer::sum));
                assertThat(failures.get()).as("failed requests").isZero();
                assertThat(acked).isNotEmpty();
                assertThat(found).as("every row present once, nothing unacknowledged").hasSameSizeAs(acked);
                for (long id : acked) {
                    assertThat(times.get(id)).as("copies of acknowledged row %d", id).isEqualTo(1);
                }
                assertThat(server.arrowBytesInUse()).as("server Arrow memory after the load").isZero();
                System.out.printf("ServerLoadTest: %d clients, %.0f s: %d inserts (%d rows), %d queries, 0 failed;"
                                + " insert p50 %.1f ms p99 %.1f ms; query p50 %.1f ms p99 %.1f ms; server Arrow peak %d KiB%n",
                        CLIENTS, RUN.toMillis() / 1000.0, insertNanos.size(), acked.size(), queryNanos.size(),
                        pct(insertNanos, 0.5), pct(insertNanos, 0.99), pct(queryNanos, 0.5), pct(queryNanos, 0.99),
                        server.arrowPeakBytes() / 1024);
            } finally {
                clients.forEach(RestNamespaceClient::close);
                server.shutdown().block();
                server.close();
            }
        }
    }

    static double pct(ConcurrentLinkedQueue<Long> nanos, double p) {
        List<Long> s = new ArrayList<>(nanos);
        s.sort(null);
        if (s.isEmpty()) {
            return Double.NaN;
        }
        return s.get(Math.min(s.size() - 1, (int) Math.ceil(p * s.size()) - 1)) / 1e6;
    }
}
