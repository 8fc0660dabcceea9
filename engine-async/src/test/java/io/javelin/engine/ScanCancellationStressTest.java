package io.javelin.engine;

import static io.javelin.engine.DatasetTestSupport.rows;
import static io.javelin.engine.DatasetTestSupport.schema;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.javelin.objectstore.ObjectStores;
import io.javelin.objectstore.OpClass;
import io.javelin.objectstore.fault.FaultInjectingObjectStore;
import io.javelin.objectstore.io.PageIoScheduler;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Many scans and takes cancelled at random points (take(n), timeout, dispose after a delay, limit), 32 at
 * once, with store faults injected now and then and page read-ahead on (the default), all on one dataset and
 * therefore one shared page-I/O scheduler: none may hang, none may leak Arrow or off-heap memory
 * (LeakCheckExtension), failures must be typed, and the scheduler must end with nothing queued, running or held.
 * A store failure in the middle of a scan must release everything too and surface as a typed error.
 *
 * <p>{@code -Djavelin.stress.scans=N} (default 600) and {@code -Djavelin.stress.concurrency=C} (default 32)
 * change the load.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(240)
class ScanCancellationStressTest {

    static final int FRAGMENTS = 8;
    static final int ROWS_PER_FRAGMENT = 3000;
    static final int SCANS = Integer.getInteger("javelin.stress.scans", 600);
    static final int CONCURRENCY = Integer.getInteger("javelin.stress.concurrency", 32);

    Path dir;
    String uri;
    long liveRows;

    @BeforeAll
    void createLocalDataset() throws Exception {
        Path work = Path.of(System.getProperty("javelin.test.workdir", "target/test-work"));
        Files.createDirectories(work);
        dir = Files.createTempDirectory(work, "scan-stress");
        uri = dir.resolve("ds.lance").toUri().toString();
        try (BufferAllocator a = new RootAllocator();
             Dataset v1 = Dataset.write(uri, rows(a, 0, FRAGMENTS * ROWS_PER_FRAGMENT, 500), schema(),
                     WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(ROWS_PER_FRAGMENT)).block();
             Dataset v2 = v1.delete("id % 5 = 2").block()) {
            liveRows = v2.count().block();
        }
    }

    @AfterAll
    void cleanUp() throws Exception {
        try (var files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    @Test
    void cancelledScansAndTakesOnOneSharedSchedulerNeitherHangNorLeak() throws Exception {
        var faults = new FaultInjectingObjectStore(ObjectStores.open(uri, Map.of()));
        try (BufferAllocator alloc = new RootAllocator(); Dataset ds = Dataset.open(uri, faults).block()) {
            PageIoScheduler io = ds.io();
            AtomicLong fullScans = new AtomicLong();
            AtomicLong failed = new AtomicLong();
            long started = System.nanoTime();
            Flux.range(0, SCANS)
                    .flatMap(i -> {
                        Random rnd = new Random(31L * i + 7);
                        if (rnd.nextInt(25) == 0) {
                            // a store fault hits whichever read comes next, in any concurrent scan or take
                            faults.failNext(OpClass.READ, 1, FaultInjectingObjectStore.Fault.SERVER_ERROR);
                        }
                        Mono<Void> op = rnd.nextInt(5) == 0 ? oneTake(ds, alloc, rnd) : oneScan(ds, alloc, rnd, fullScans);
                        // an injected fault may end any operation: it must surface typed
                        return op.onErrorResume(DatasetException.class, e -> {
                            assertThat(e).hasMessageContaining("injected");
                            failed.incrementAndGet();
                            return Mono.empty();
                        });
                    }, CONCURRENCY)
                    .then()
                    .block(Duration.ofSeconds(170));
            faults.clear();
            long millis = (System.nanoTime() - started) / 1_000_000;
            awaitQuiet(alloc, io);
            assertThat(alloc.getAllocatedMemory()).as("Arrow bytes after %d scans and takes:%n%s", SCANS,
                    alloc.getAllocatedMemory() == 0 ? "" : alloc.toVerboseString()).isZero();
            assertThat(io.idle()).as("scheduler: queued %d, running %d, held %d", io.queued(), io.iopsInFlight(),
                    io.bytesHeld()).isTrue();
            assertThat(fullScans.get()).as("some scans ran to the end with exact results").isPositive();
            assertThat(millis).as("wall time of %d scans and takes (%d failed by injected faults)", SCANS, failed.get())
                    .isLessThan(170_000);
            // the shared scheduler still serves a full scan
            assertThat(countRows(ds.scanner().batchSize(1000).scan(alloc))).isEqualTo(liveRows);
        }
    }

    /** A take of random rows (all or some columns), cancelled in a random way. */
    private Mono<Void> oneTake(Dataset ds, BufferAllocator alloc, Random rnd) {
        long[] rows = new long[1 + rnd.nextInt(300)];
        for (int k = 0; k < rows.length; k++) {
            rows[k] = rnd.nextInt((int) liveRows);
        }
        java.util.List<String> cols = rnd.nextBoolean() ? null : java.util.List.of("id", "s");
        Mono<VectorSchemaRoot> take = ds.take(rows, cols, alloc);
        Mono<VectorSchemaRoot> ended = switch (rnd.nextInt(3)) {
            case 0 -> take.timeout(Duration.ofMillis(1 + rnd.nextInt(20))).onErrorResume(TimeoutException.class, e -> Mono.empty());
            case 1 -> take.takeUntilOther(Mono.delay(Duration.ofMillis(rnd.nextInt(15))));
            default -> take;
        };
        boolean whole = rnd.nextBoolean();
        return ended.doOnNext(b -> {
                    try (b) {
                        if (whole) {
                            assertThat(b.getRowCount()).isEqualTo(rows.length);
                        }
                    }
                })
                .doOnDiscard(VectorSchemaRoot.class, VectorSchemaRoot::close)
                .then();
    }

    /** One scan with a random shape, ended in a random way; completes when the scan has terminated. */
    private Mono<Void> oneScan(Dataset ds, BufferAllocator alloc, Random rnd, AtomicLong fullScans) {
        Scanner s = ds.scanner()
                .batchSize(50 + rnd.nextInt(400))
                .fragmentReadahead(1 + rnd.nextInt(4))
                .batchReadahead(1 + rnd.nextInt(3))
                .ordered(rnd.nextBoolean());
        String filter = switch (rnd.nextInt(4)) {
            case 0 -> "score > 0.5";
            case 1 -> "id % 3 = 1 AND name LIKE 'n1%'";
            default -> null;
        };
        s = s.filter(filter);
        if (rnd.nextBoolean()) {
            s = s.columns("id", "s.b");
        }
        Flux<VectorSchemaRoot> scan = s.scan(alloc);
        int mode = rnd.nextInt(5);
        Flux<VectorSchemaRoot> ended = switch (mode) {
            case 0 -> scan.take(1 + rnd.nextInt(6));
            case 1 -> scan.timeout(Duration.ofMillis(1 + rnd.nextInt(30))).onErrorResume(TimeoutException.class, e -> Flux.empty());
            case 2 -> scan.takeUntilOther(Mono.delay(Duration.ofMillis(rnd.nextInt(25))));
            case 3 -> s.limit(1 + rnd.nextInt(5000)).scan(alloc);
            default -> scan;
        };
        boolean full = mode == 4 && filter == null;
        AtomicLong rows = new AtomicLong();
        Consumer<Object> close = o -> {
            if (o instanceof VectorSchemaRoot r) {
                r.close();
            }
        };
        return ended
                .doOnNext(b -> {
                    rows.addAndGet(b.getRowCount());
                    b.close();
                })
                .doOnDiscard(VectorSchemaRoot.class, VectorSchemaRoot::close)
                .contextWrite(ctx -> ctx.put("reactor.onNextDropped.local", close))
                .then(Mono.fromRunnable(() -> {
                    if (full) {
                        assertThat(rows.get()).isEqualTo(liveRows);
                        fullScans.incrementAndGet();
                    }
                }));
    }

    @Test
    void aStoreFailureMidScanReleasesEverythingAndIsTyped() throws Exception {
        var faults = new FaultInjectingObjectStore(ObjectStores.open(uri, Map.of()));
        try (BufferAllocator alloc = new RootAllocator(); Dataset ds = Dataset.open(uri, faults).block()) {
            for (int round = 0; round < 10; round++) {
                Scanner s = ds.scanner().batchSize(200).fragmentReadahead(1 + round % 4).filter(round % 2 == 0 ? null : "score > 0.2");
                long[] seen = {0};
                int failAt = round % 3;
                Flux<VectorSchemaRoot> failing = s.scan(alloc).doOnNext(b -> {
                    if (seen[0]++ == failAt) {
                        faults.failNext(OpClass.READ, Integer.MAX_VALUE, FaultInjectingObjectStore.Fault.SERVER_ERROR);
                    }
                    b.close();
                });
                assertThatThrownBy(() -> failing.publishOn(Schedulers.boundedElastic()).blockLast(Duration.ofSeconds(30)))
                        .isInstanceOf(DatasetException.class)
                        .hasMessageContaining("injected")
                        .hasRootCauseInstanceOf(io.javelin.objectstore.TransientObjectStoreException.class)
                        .satisfies(e -> assertThat(((DatasetException) e).uri()).isEqualTo(uri));
                faults.clear();
                awaitQuiet(alloc, ds.io());
                assertThat(alloc.getAllocatedMemory()).as("Arrow bytes after a failed scan").isZero();
                assertThat(ds.io().idle()).isTrue();
            }
            assertThat(countRows(ds.scanner().scan(alloc))).isEqualTo(liveRows);
        }
    }

    @Test
    void parallelFailuresSurfaceAsTheFirstTypedErrorWithTheOthersSuppressed() {
        var a = new io.javelin.objectstore.TransientObjectStoreException("injected: a", 500, "InternalError", null);
        var b = new io.javelin.objectstore.TransientObjectStoreException("injected: b", 500, "InternalError", null);
        Throwable first = io.javelin.objectstore.internal.FirstError.of(reactor.core.Exceptions.multiple(a, b));
        assertThat(first).isSameAs(a);
        assertThat(first.getSuppressed()).containsExactly(b);
        assertThat(Dataset.translate(uri, 2, first)).isInstanceOf(DatasetException.class).hasMessageContaining("injected: a");
    }

    private static long countRows(Flux<VectorSchemaRoot> scan) {
        return scan.publishOn(Schedulers.boundedElastic())
                .map(b -> {
                    try (b) {
                        return (long) b.getRowCount();
                    }
                })
                .reduce(0L, Long::sum)
                .block(Duration.ofSeconds(60));
    }

    private static void awaitQuiet(BufferAllocator alloc, PageIoScheduler io) throws InterruptedException {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while ((alloc.getAllocatedMemory() != 0 || !io.idle()) && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
    }
}
