package io.javelin.objectstore.io;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.objectstore.ByteRange;
import io.javelin.objectstore.ObjectStore;
import io.javelin.objectstore.ObjectStores;
import io.javelin.objectstore.OpClass;
import io.javelin.objectstore.memory.Buffer;
import io.javelin.objectstore.memory.OffHeap;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

class PageIoSchedulerTest {

    private static final int SIZE = 4 * 1024 * 1024;
    private ObjectStore store;
    private byte[] data;

    @BeforeEach
    void setUp() throws Exception {
        Path work = Path.of(System.getProperty("javelin.test.workdir", "target/test-work"));
        Files.createDirectories(work);
        store = ObjectStores.open(Files.createTempDirectory(work, "pageio").toString());
        data = new byte[SIZE];
        new Random(1).nextBytes(data);
        store.put("f", data).block();
    }

    @AfterEach
    void tearDown() {
        store.close();
    }

    private void assertSlice(Buffer b, ByteRange r) {
        assertThat(b.toByteArray()).isEqualTo(Arrays.copyOfRange(data, (int) r.offset(), (int) r.end()));
    }

    @Test
    void coalescesSlicesZeroCopyAndCountsOneRead() {
        var sched = new PageIoScheduler(store, PageIoOptions.forStore(store.traits(), java.util.Map.of()));
        var before = store.counters().snapshot();
        List<ByteRange> ranges = List.of(ByteRange.of(50_000, 1000), ByteRange.of(52_000, 1000), ByteRange.of(54_000, 1000));
        try (PageResult r = sched.submit("f", ranges, 0).subscribeOn(Schedulers.parallel()).block(Duration.ofSeconds(10))) {
            for (int i = 0; i < 3; i++) {
                assertSlice(r.buffer(i), ranges.get(i));
            }
            // The three slices share one read buffer: 3 handles on it.
            assertThat(r.buffer(0).refCount()).isEqualTo(3);
        }
        assertThat(store.counters().snapshot().minus(before).requests(OpClass.READ)).isEqualTo(1);
        assertThat(sched.iops()).isEqualTo(1);
        assertThat(sched.bytesHeld()).isZero();
    }

    @Test
    void splitsLargeReadsAndJoinsRangesThatCrossChunks() {
        var opts = new PageIoOptions(4, 0, 4096, 1024 * 1024);
        var sched = new PageIoScheduler(store, opts);
        var before = store.counters().snapshot();
        List<ByteRange> ranges = List.of(ByteRange.of(0, 3 * 1024 * 1024 + 17), ByteRange.of(3 * 1024 * 1024 + 20, 100));
        try (PageResult r = sched.submit("f", ranges, 0).block(Duration.ofSeconds(10))) {
            assertSlice(r.buffer(0), ranges.get(0));
            assertSlice(r.buffer(1), ranges.get(1));
        }
        assertThat(store.counters().snapshot().minus(before).requests(OpClass.READ)).isEqualTo(4);
    }

    @Test
    void splitReadsLandInOneBufferSoACrossingRangeIsASliceNotACopy() {
        var sched = new PageIoScheduler(store, new PageIoOptions(4, 0, 4096, 1024 * 1024));
        List<ByteRange> ranges = List.of(ByteRange.of(1000, 2 * 1024 * 1024 + 5), ByteRange.of(2 * 1024 * 1024 + 1010, 3000));
        try (PageResult r = sched.submit("f", ranges, 0).block(Duration.ofSeconds(10))) {
            assertSlice(r.buffer(0), ranges.get(0));
            assertSlice(r.buffer(1), ranges.get(1));
            // both are views of the one buffer the three reads filled (nothing was joined into a new buffer)
            assertThat(r.buffer(1).segment().address() - r.buffer(0).segment().address())
                    .isEqualTo(ranges.get(1).offset() - ranges.get(0).offset());
        }
        assertThat(sched.iops()).isEqualTo(3);
        assertThat(sched.bytesHeld()).isZero();
    }

    @Test
    void dispatchFollowsPriorityOrder() {
        // One read slot, held: everything queues, then drains strictly by priority.
        IoQueue q = new IoQueue(1, 0);
        IoQueue.Permit holder = q.admit(100, 1).block();
        List<Long> order = Collections.synchronizedList(new ArrayList<>());
        for (long p : List.of(50L, 10L, 40L, 20L, 30L, 0L)) {
            q.admit(p, 1).subscribe(permit -> {
                order.add(permit.priority);
                permit.iopDone();
            });
        }
        assertThat(order).isEmpty();
        holder.iopDone();
        assertThat(order).containsExactly(0L, 10L, 20L, 30L, 40L, 50L);
    }

    @Test
    void cancelledWaitersGiveUpTheirPlace() {
        IoQueue q = new IoQueue(1, 0);
        IoQueue.Permit holder = q.admit(0, 1).block();
        var waiting = q.admit(1, 1).subscribe(p -> { });
        waiting.dispose();
        assertThat(q.queued()).isZero();
        holder.iopDone();
        assertThat(q.iopsInFlight()).isZero();
    }

    @Test
    void aSlowConsumerBoundsBytesInFlight() {
        long budget = 256 * 1024;
        var sched = new PageIoScheduler(store, new PageIoOptions(8, budget, 0, 16L << 20));
        AtomicInteger seen = new AtomicInteger();
        long[] maxHeld = {0};
        Flux<PageRequest> reqs = Flux.range(0, 64).map(i -> new PageRequest("f", List.of(ByteRange.of(i * 64L * 1024, 64 * 1024)), i));
        sched.stream(reqs)
                .delayElements(Duration.ofMillis(5))
                .doOnNext(r -> {
                    maxHeld[0] = Math.max(maxHeld[0], sched.bytesHeld());
                    assertSlice(r.buffer(0), r.request().ranges().get(0));
                    r.release();
                    seen.incrementAndGet();
                })
                .blockLast(Duration.ofSeconds(30));
        assertThat(seen.get()).isEqualTo(64);
        // Budget plus one request admitted past it (the head is never starved).
        assertThat(maxHeld[0]).isLessThanOrEqualTo(budget + 64 * 1024);
        assertThat(sched.bytesHeld()).isZero();
    }

    @Test
    void aRequestLargerThanTheBudgetDoesNotDeadlock() {
        var sched = new PageIoScheduler(store, new PageIoOptions(2, 1024, 0, 256 * 1024));
        try (PageResult r = sched.submit("f", List.of(ByteRange.of(0, SIZE)), 0).block(Duration.ofSeconds(10))) {
            assertThat(r.buffer(0).size()).isEqualTo(SIZE);
        }
    }

    @Test
    void cancellationReleasesBuffersAndBudget() throws Exception {
        var sched = new PageIoScheduler(store, new PageIoOptions(4, 1 << 20, 4096, 256 * 1024));
        int arenasBefore = OffHeap.liveArenas();
        for (int i = 0; i < 30; i++) {
            Flux<PageRequest> reqs = Flux.range(0, 16)
                    .map(k -> new PageRequest("f", List.of(ByteRange.of(k * 200_000L, 150_000)), k));
            io.javelin.testing.CancelAfter.run(sched.stream(reqs).subscribeOn(Schedulers.parallel()),
                    Duration.ofMillis(i % 7), PageResult::release);
            io.javelin.testing.CancelAfter.run(sched.submit("f", List.of(ByteRange.of(0, SIZE)), 1),
                    Duration.ofMillis(i % 3), PageResult::release);
        }
        long deadline = System.nanoTime() + 5_000_000_000L;
        while ((sched.bytesHeld() != 0 || sched.iopsInFlight() != 0) && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(sched.bytesHeld()).isZero();
        assertThat(sched.iopsInFlight()).isZero();
        // LeakCheckExtension then checks that no read buffer survived.
        assertThat(arenasBefore).isGreaterThanOrEqualTo(0);
    }

    @Test
    void oneSlotSchedulerSharedByManyCancelledRequestsNeverLosesTheSlot() throws Exception {
        // One read slot and a small byte budget: a single slot or byte lost to a cancel would hang the next request.
        var sched = new PageIoScheduler(store, new PageIoOptions(1, 300_000, 4096, 128 * 1024));
        Random rnd = new Random(11);
        Flux.range(0, 300)
                .flatMap(i -> {
                    long off = rnd.nextInt(SIZE - 400_000);
                    List<ByteRange> ranges = List.of(ByteRange.of(off, 1000 + rnd.nextInt(200_000)), ByteRange.of(off + 250_000, 5000));
                    Mono<PageResult> r = sched.submit("f", ranges, rnd.nextInt(4)).subscribeOn(Schedulers.parallel());
                    return switch (i % 3) {
                        case 0 -> r.doOnNext(PageResult::release).take(Duration.ofNanos(rnd.nextInt(300_000))).then();
                        case 1 -> r.doOnNext(PageResult::release).timeout(Duration.ofMillis(1)).onErrorResume(e -> Mono.empty()).then();
                        default -> r.doOnNext(res -> {
                            assertSlice(res.buffer(0), ranges.get(0));
                            res.release();
                        }).then();
                    };
                }, 8)
                .blockLast(Duration.ofSeconds(60));
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (!sched.idle() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(sched.idle()).as("queued %d running %d held %d", sched.queued(), sched.iopsInFlight(), sched.bytesHeld()).isTrue();
        try (PageResult r = sched.submit("f", List.of(ByteRange.of(0, 4096)), 0).block(Duration.ofSeconds(5))) {
            assertSlice(r.buffer(0), ByteRange.of(0, 4096));
        }
    }
}
