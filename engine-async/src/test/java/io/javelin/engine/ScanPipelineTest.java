package io.javelin.engine;

import static io.javelin.engine.DatasetTestSupport.collect;
import static io.javelin.engine.DatasetTestSupport.rows;
import static io.javelin.engine.DatasetTestSupport.schema;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import reactor.test.StepVerifier;

/** Backpressure, cancellation, ordering and pushdown-equivalence of the scan pipeline. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@org.junit.jupiter.api.Timeout(120)
class ScanPipelineTest {

    static {
        if (Boolean.getBoolean("javelin.debugLeaks")) {
            System.setProperty("arrow.memory.debug.allocator", "true");
        }
    }

    static final int FRAGMENTS = 12;
    static final int ROWS_PER_FRAGMENT = 2000;

    BufferAllocator setupAlloc;
    Dataset ds;
    BufferAllocator alloc;

    @org.junit.jupiter.api.BeforeEach
    void newAllocator() {
        alloc = new RootAllocator();
    }

    @BeforeAll
    void createDatasetWithDeletions() {
        setupAlloc = new RootAllocator();
        String uri = "memory://ScanPipelineTest-" + System.nanoTime() + "/ds.lance";
        try (Dataset v1 = Dataset.write(uri, rows(setupAlloc, 0, FRAGMENTS * ROWS_PER_FRAGMENT, 1000), schema(),
                WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(ROWS_PER_FRAGMENT)).block()) {
            ds = v1.delete("id % 7 = 3 OR (id >= 4000 AND id < 6000)").block();
        }
    }

    @AfterAll
    void close() {
        ds.close();
        setupAlloc.close();
    }

    @AfterEach
    void noArrowLeaks() {
        alloc.close();
    }

    @Test
    void slowSubscriberKeepsMemoryBounded() throws Exception {
        Scanner s = ds.scanner().batchSize(250).fragmentReadahead(2).batchReadahead(1);
        long[] held = new long[2];
        long[] pageReads = new long[2];
        long before = Scan.PRODUCED.get();
        long readsBefore = ds.io().requests();
        StepVerifier.create(s.scan(alloc), 1)
                .consumeNextWith(VectorSchemaRoot::close)
                .then(() -> sleep(400))
                .then(() -> {
                    held[0] = alloc.getAllocatedMemory();
                    pageReads[0] = ds.io().requests();
                })
                .then(() -> sleep(400))
                .then(() -> {
                    held[1] = alloc.getAllocatedMemory();
                    pageReads[1] = ds.io().requests();
                    // page I/O stops too: no reads while the subscriber waits, nothing in flight or held
                    assertThat(pageReads[1]).as("page reads while waiting").isEqualTo(pageReads[0]);
                    assertThat(ds.io().iopsInFlight()).isZero();
                    assertThat(ds.io().bytesHeld()).isZero();
                    // ~80 batches remain: only fragment_readahead x (batch_readahead + operator slots) are made ahead
                    assertThat(Scan.PRODUCED.get() - before).as("batches produced for 1 requested").isLessThanOrEqualTo(8);
                    assertThat(held[1]).as("memory does not grow while the subscriber waits").isEqualTo(held[0]);
                })
                .thenRequest(Long.MAX_VALUE)
                .thenConsumeWhile(b -> {
                    b.close();
                    return true;
                })
                .verifyComplete();
        awaitFreed();
        long allReads = ds.io().requests() - readsBefore;
        // 12 fragments, fragment_readahead 2: the first batch may have started about 2 fragments' pages
        assertThat(pageReads[1] - readsBefore).as("page reads for 1 requested batch, of %d in all", allReads)
                .isLessThanOrEqualTo(allReads / 4);
    }

    @Test
    void cancellationMidScanReleasesEverything() throws Exception {
        for (int i = 0; i < 5; i++) {
            StepVerifier.create(ds.scanner().batchSize(300).scan(alloc), 3)
                    .consumeNextWith(VectorSchemaRoot::close)
                    .consumeNextWith(VectorSchemaRoot::close)
                    .consumeNextWith(VectorSchemaRoot::close)
                    .thenCancel()
                    .verify(Duration.ofSeconds(30));
            awaitFreed();
        }
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (!ds.io().idle() && System.nanoTime() < deadline) {
            sleep(10);
        }
        assertThat(ds.io().idle()).as("the dataset's shared scheduler after cancels").isTrue();
    }

    @Test
    void cancellationOfAFilteredScanReleasesEverything() throws Exception {
        for (int i = 0; i < 5; i++) {
            StepVerifier.create(ds.scanner().filter("score > 0.3").batchSize(300).scan(alloc), 3)
                    .consumeNextWith(VectorSchemaRoot::close)
                    .consumeNextWith(VectorSchemaRoot::close)
                    .consumeNextWith(VectorSchemaRoot::close)
                    .thenCancel()
                    .verify(Duration.ofSeconds(30));
            awaitFreed();
        }
    }

    private void awaitFreed() {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (alloc.getAllocatedMemory() != 0 && System.nanoTime() < deadline) {
            sleep(20);
        }
        if (alloc.getAllocatedMemory() != 0 && Boolean.getBoolean("javelin.debugLeaks")) {
            System.out.println("LEAKDUMP " + alloc.toVerboseString());
        }
        assertThat(alloc.getAllocatedMemory()).as("Arrow bytes after cancel").isZero();
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void orderedOutputIsInFragmentOrderUnorderedHasTheSameRows() {
        List<List<String>> ordered = collect(ds.scanner().columns("id").batchSize(333).scan(alloc));
        List<Long> ids = ordered.stream().map(r -> Long.parseLong(r.get(0))).toList();
        assertThat(ids).isSorted().hasSize((int) (long) ds.count().block());
        List<List<String>> unordered = collect(ds.scanner().columns("id").batchSize(333).ordered(false).fragmentReadahead(8).scan(alloc));
        assertThat(unordered).containsExactlyInAnyOrderElementsOf(ordered);
    }

    @Test
    void fragmentSubsetAndRowAddresses() {
        List<List<String>> r = collect(ds.scanner().columns("id").fragments(List.of(5L, 1L)).withRowAddress(true).limit(2).scan(alloc));
        assertThat(r.get(0)).containsExactly("10000", String.valueOf(5L << 32));
    }

    static List<String> filters() {
        Random rnd = new Random(20261129);
        String[] atoms = {"id < %d", "id >= %d", "id %% %d = 1", "score > 0.%d", "score IS NULL", "score IS NOT NULL",
                "name = 'n%d'", "name LIKE 'n1%%'", "s.a = %d", "s.a IS NULL", "s.b = 'b%d'", "id BETWEEN %d AND 9000"};
        List<String> out = new ArrayList<>();
        for (int i = 0; i < 24; i++) {
            StringBuilder f = new StringBuilder();
            int n = 1 + rnd.nextInt(3);
            for (int k = 0; k < n; k++) {
                if (k > 0) {
                    f.append(rnd.nextBoolean() ? " AND " : " OR ");
                }
                String a = String.format(atoms[rnd.nextInt(atoms.length)], rnd.nextInt(24000) % (k == 0 ? 24000 : 9));
                f.append(rnd.nextInt(5) == 0 ? "NOT (" + a + ")" : a);
            }
            out.add(f.toString());
        }
        return out;
    }

    @ParameterizedTest
    @MethodSource("filters")
    void pushdownNeverChangesResults(String filter) {
        Scanner base = ds.scanner().filter(filter).batchSize(777).columns("name", "id", "s.b").withRowId(true);
        List<List<String>> on = collect(base.pushdown(true).scan(alloc));
        List<List<String>> off = collect(base.pushdown(false).scan(alloc));
        assertThat(on).isEqualTo(off);
        assertThat(ds.count(filter).block()).isEqualTo(on.size());
        // the hook: a pruner that keeps everything changes nothing either
        List<List<String>> pruned = collect(base.pruner((f, p) -> true).scan(alloc));
        assertThat(pruned).isEqualTo(on);
        on.sort(Comparator.comparing(r -> Long.parseLong(r.get(1))));
        assertThat(on).isEqualTo(off);
    }
}
