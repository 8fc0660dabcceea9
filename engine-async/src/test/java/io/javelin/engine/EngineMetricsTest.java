package io.javelin.engine;

import static io.javelin.engine.DatasetTestSupport.rows;
import static io.javelin.engine.DatasetTestSupport.schema;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.scheduler.Schedulers;

/** Scans and commits report Micrometer meters (rows, batches, pages, bytes, latency; attempts, conflicts). */
class EngineMetricsTest {

    SimpleMeterRegistry registry;
    BufferAllocator alloc;

    @BeforeEach
    void setUp() {
        registry = new SimpleMeterRegistry();
        EngineMetrics.use(registry);
        alloc = new RootAllocator();
    }

    @AfterEach
    void tearDown() {
        EngineMetrics.use(null);
        alloc.close();
    }

    private double counter(String name) {
        var c = registry.find(name).counter();
        return c == null ? 0 : c.count();
    }

    private long timerCount(String name, String tag, String value) {
        var t = registry.find(name).tag(tag, value).timer();
        return t == null ? 0 : t.count();
    }

    @Test
    void scansAndCommitsMoveTheirMeters() {
        String uri = "memory://EngineMetricsTest-" + System.nanoTime() + "/ds.lance";
        try (Dataset v1 = Dataset.write(uri, rows(alloc, 0, 6000, 1000), schema(),
                WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(2000)).block()) {
            assertThat(timerCount("javelin.commit.duration", "outcome", "committed")).isEqualTo(1);
            assertThat(counter("javelin.commit.attempts")).isEqualTo(1);
            assertThat(counter("javelin.commit.conflicts")).isZero();

            long rows = v1.scanner().filter("id >= 1000").batchSize(500).scan(alloc)
                    .publishOn(Schedulers.boundedElastic())
                    .map(b -> {
                        try (b) {
                            return (long) b.getRowCount();
                        }
                    })
                    .reduce(0L, Long::sum).block(Duration.ofSeconds(30));
            assertThat(rows).isEqualTo(5000);
            assertThat(counter("javelin.scan.rows")).isEqualTo(5000);
            assertThat(counter("javelin.scan.batches")).isEqualTo(10);
            assertThat(counter("javelin.scan.pages")).isPositive();
            // one scheduler request per page of the scanned column, but one for all the pages of a take's round
            // (the late-materialized columns), which may need several physical reads
            assertThat(counter("javelin.scan.iops")).isPositive();
            assertThat(counter("javelin.scan.bytes.read")).isGreaterThan(5000 * 8); // at least the id column
            assertThat(timerCount("javelin.scan.duration", "outcome", "complete")).isEqualTo(1);

            v1.scanner().batchSize(100).scan(alloc).take(1).doOnNext(VectorSchemaRoot::close).blockLast(Duration.ofSeconds(30));
            assertThat(timerCount("javelin.scan.duration", "outcome", "cancel")).isEqualTo(1);

            // two writers append on top of version 1: the second loses the race for version 2, rebases, retries
            try (Dataset a = v1.append(rows(alloc, 6000, 100, 100), schema()).block();
                 Dataset b = v1.commit(io.javelin.tx.transaction.Transactions.append(1, java.util.List.of())).block()) {
                assertThat(a.version()).isEqualTo(2);
                assertThat(b.version()).isEqualTo(3);
            }
            assertThat(counter("javelin.commit.attempts")).isEqualTo(4);
            assertThat(counter("javelin.commit.conflicts")).isEqualTo(1);
            assertThat(counter("javelin.commit.retries")).isEqualTo(1);
            assertThat(timerCount("javelin.commit.duration", "operation", "APPEND")).isEqualTo(2);
        }
    }
}
