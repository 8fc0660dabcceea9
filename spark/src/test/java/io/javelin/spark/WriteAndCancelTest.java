package io.javelin.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.apache.spark.api.java.function.ForeachFunction;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class WriteAndCancelTest {

    static final AtomicLong SEEN = new AtomicLong();

    private final SparkSession spark = SparkSessions.get();

    @AfterEach
    void noArrowMemoryLeft() throws InterruptedException {
        awaitNoArrowMemory();
    }

    private static void awaitNoArrowMemory() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while ((Allocators.allocatedBytes() != 0 || Allocators.openChildren() != 0) && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(Allocators.allocatedBytes()).isZero();
        assertThat(Allocators.openChildren()).isZero();
    }

    private static long count(String table) {
        return SparkSessions.get().sql("SELECT count(*) FROM " + table).first().getLong(0);
    }

    private static List<String> dataFiles(Path table) throws IOException {
        Path data = table.resolve("data");
        if (!Files.isDirectory(data)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(data)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void aFailedJobCommitsNothingAndLeavesNoDataFiles() throws Exception {
        spark.sql("CREATE TABLE javelin.failing AS SELECT id FROM range(0, 100, 1, 2)");
        Path dir = SparkSessions.warehouse().resolve("failing.lance");
        List<String> before = dataFiles(dir);
        long version = ((JavelinTable) ((JavelinCatalog) spark.sessionState().catalogManager().catalog("javelin"))
                .loadTable(org.apache.spark.sql.connector.catalog.Identifier.of(new String[0], "failing"))).version;

        // partition 0 writes and commits its task; partition 3 fails after 900 rows: the job aborts
        assertThatThrownBy(() -> spark.sql("INSERT INTO javelin.failing SELECT CASE WHEN id = 3900 THEN CAST(raise_error('boom') AS BIGINT) "
                + "ELSE id END FROM range(0, 4000, 1, 4)").collect()).hasStackTraceContaining("boom");

        assertThat(count("javelin.failing")).isEqualTo(100);
        assertThat(dataFiles(dir)).isEqualTo(before);
        long after;
        try (io.javelin.engine.Dataset ds = io.javelin.engine.Dataset.open(dir.toString()).block()) {
            after = ds.version();
        }
        assertThat(after).isEqualTo(version);
        spark.sql("DROP TABLE javelin.failing");
    }

    @Test
    void concurrentAppendsToOneTableBothCommit() throws Exception {
        spark.sql("CREATE TABLE javelin.busy (id BIGINT, who STRING)");
        CompletableFuture<?> a = CompletableFuture.runAsync(() ->
                spark.sql("INSERT INTO javelin.busy SELECT id, 'a' FROM range(0, 3000, 1, 2)").collect());
        CompletableFuture<?> b = CompletableFuture.runAsync(() ->
                spark.sql("INSERT INTO javelin.busy SELECT id, 'b' FROM range(0, 2000, 1, 2)").collect());
        CompletableFuture.allOf(a, b).get(60, TimeUnit.SECONDS);
        List<Row> rows = spark.sql("SELECT who, count(*), sum(id) FROM javelin.busy GROUP BY who ORDER BY who").collectAsList();
        assertThat(rows.stream().map(Row::toString).toList()).containsExactly("[a,3000," + 2999L * 3000 / 2 + "]",
                "[b,2000," + 1999L * 2000 / 2 + "]");
        spark.sql("DROP TABLE javelin.busy");
    }

    @Test
    void aKilledScanReleasesAllArrowMemory() throws Exception {
        spark.sql("CREATE TABLE javelin.big AS SELECT id, repeat('x', 100) AS pad FROM range(0, 400000, 1, 2)");
        SEEN.set(0);
        CompletableFuture<Void> job = CompletableFuture.runAsync(() -> {
            spark.sparkContext().setJobGroup("kill-me", "scan to cancel", true);
            spark.table("javelin.big").foreach((ForeachFunction<Row>) r -> {
                SEEN.incrementAndGet();
                Thread.sleep(1);
            });
        });
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (SEEN.get() < 10 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(SEEN.get()).isGreaterThanOrEqualTo(10);
        assertThat(Allocators.allocatedBytes()).as("batches are held while the tasks run").isPositive();
        spark.sparkContext().cancelJobGroup("kill-me");
        assertThatThrownBy(() -> job.get(30, TimeUnit.SECONDS)).hasStackTraceContaining("cancel");
        assertThat(SEEN.get()).isLessThan(400000);
        awaitNoArrowMemory();
        spark.sql("DROP TABLE javelin.big");
    }

    @Test
    void anEarlyStopReleasesAllArrowMemory() throws InterruptedException {
        spark.sql("CREATE TABLE javelin.early AS SELECT id FROM range(0, 200000, 1, 2)");
        // take(3): the reader is closed after its first batch, with the scan still producing
        List<Row> rows = spark.sql("SELECT id FROM javelin.early WHERE id % 2 = 1").takeAsList(3);
        assertThat(rows).hasSize(3).allMatch(r -> r.getLong(0) % 2 == 1);
        awaitNoArrowMemory();
        spark.sql("DROP TABLE javelin.early");
    }

    @Test
    void writesRefuseAppendsOfAnotherShape() {
        spark.sql("CREATE TABLE javelin.shape (id BIGINT)");
        assertThatThrownBy(() -> spark.sql("INSERT INTO javelin.shape SELECT 'text', 2").collect()).isInstanceOf(Exception.class);
        assertThat(count("javelin.shape")).isZero();
        spark.sql("DROP TABLE javelin.shape");
    }
}
