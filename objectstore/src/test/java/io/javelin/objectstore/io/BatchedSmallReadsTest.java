package io.javelin.objectstore.io;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.objectstore.ByteRange;
import io.javelin.objectstore.ObjectStore;
import io.javelin.objectstore.ObjectStores;
import io.javelin.objectstore.memory.Buffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.scheduler.Schedulers;

/**
 * A request of many small scattered ranges on a local store (a take's rows) is read as one batched store
 * call: the bytes, their order (also for unsorted requests), the scheduler's accounting after success and
 * after cancellations, and the store's own multi-range read.
 */
class BatchedSmallReadsTest {

    private static final int SIZE = 2 * 1024 * 1024;
    private ObjectStore store;
    private byte[] data;

    @BeforeEach
    void setUp() throws Exception {
        Path work = Path.of(System.getProperty("javelin.test.workdir", "target/test-work"));
        Files.createDirectories(work);
        store = ObjectStores.open(Files.createTempDirectory(work, "batched").toString());
        data = new byte[SIZE];
        new Random(3).nextBytes(data);
        store.put("f", data).block();
    }

    @AfterEach
    void tearDown() {
        store.close();
    }

    private static List<ByteRange> scattered(Random rnd, int n) {
        List<ByteRange> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(ByteRange.of((long) rnd.nextInt(SIZE / 20_000) * 20_000 + rnd.nextInt(100), 512));
        }
        return out;
    }

    @Test
    void manySmallRangesComeBackInRequestOrderAndReturnTheBudget() {
        var sched = new PageIoScheduler(store, PageIoOptions.forStore(store.traits(), java.util.Map.of()));
        Random rnd = new Random(5);
        for (int round = 0; round < 20; round++) {
            List<ByteRange> ranges = scattered(rnd, 1 + rnd.nextInt(100)); // unsorted, repeats allowed
            try (PageResult r = sched.submit("f", ranges, round).subscribeOn(Schedulers.parallel()).block(Duration.ofSeconds(10))) {
                for (int i = 0; i < ranges.size(); i++) {
                    ByteRange want = ranges.get(i);
                    assertThat(r.buffer(i).toByteArray()).as("range %d of %d", i, ranges.size())
                            .isEqualTo(Arrays.copyOfRange(data, (int) want.offset(), (int) want.end()));
                }
            }
        }
        assertThat(sched.bytesHeld()).isZero();
        assertThat(sched.iopsInFlight()).isZero();
    }

    @Test
    void cancelledBatchesLeakNothing() throws Exception {
        var sched = new PageIoScheduler(store, PageIoOptions.forStore(store.traits(), java.util.Map.of()));
        Random rnd = new Random(9);
        for (int i = 0; i < 40; i++) {
            io.javelin.testing.CancelAfter.run(sched.submit("f", scattered(rnd, 60), i).subscribeOn(Schedulers.parallel()),
                    Duration.ofMillis(i % 4), PageResult::release);
        }
        long deadline = System.nanoTime() + 5_000_000_000L;
        while ((sched.bytesHeld() != 0 || sched.iopsInFlight() != 0) && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(sched.bytesHeld()).isZero();
        assertThat(sched.iopsInFlight()).isZero();
        // LeakCheckExtension then checks that no read buffer survived
    }

    @Test
    void localStoreReadsSeveralRangesInOneCall() {
        assertThat(store.batchesReads()).as("the opened local store (behind its retry wrapper) batches").isTrue();
        List<ByteRange> ranges = List.of(ByteRange.of(10, 5), ByteRange.of(1_000_000, 700), ByteRange.of(3, 1));
        List<Buffer> got = store.readBatch("f", ranges).block(Duration.ofSeconds(10));
        try {
            assertThat(got).hasSize(3);
            for (int i = 0; i < 3; i++) {
                ByteRange r = ranges.get(i);
                assertThat(got.get(i).toByteArray()).isEqualTo(Arrays.copyOfRange(data, (int) r.offset(), (int) r.end()));
            }
        } finally {
            got.forEach(Buffer::release);
        }
    }

    @Test
    void smallBufferSlabIsReusedAndComesBackZeroed() {
        Buffer a = Buffer.allocate(1000, "t");
        a.segment().fill((byte) 7);
        long addr = a.segment().address();
        a.release();
        Buffer b = Buffer.allocate(1000, "t"); // the idle slab is carved again from its start
        try {
            assertThat(b.segment().address()).isEqualTo(addr);
            for (long i = 0; i < b.size(); i++) {
                assertThat(b.segment().get(java.lang.foreign.ValueLayout.JAVA_BYTE, i)).isZero();
            }
        } finally {
            b.release();
        }
        assertThat(Buffer.closeIdleSlab()).isTrue();
    }
}
