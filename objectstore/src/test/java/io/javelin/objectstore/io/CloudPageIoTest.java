package io.javelin.objectstore.io;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.objectstore.ByteRange;
import io.javelin.objectstore.OpClass;
import io.javelin.objectstore.StoreTraits;
import io.javelin.objectstore.fault.FaultInjectingObjectStore;
import io.javelin.objectstore.inmemory.InMemoryObjectStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import reactor.core.scheduler.Schedulers;

/** Per-store-kind scheduler defaults, and what they do to the requests of a scattered read on a cloud store. */
class CloudPageIoTest {

    @Test
    void defaultsFollowTheStoreKind() {
        PageIoOptions local = PageIoOptions.forStore(StoreTraits.localDefaults(), Map.of());
        PageIoOptions cloud = PageIoOptions.forStore(StoreTraits.cloudDefaults(), Map.of());
        assertThat(local.ioParallelism()).isEqualTo(8);
        assertThat(cloud.ioParallelism()).isEqualTo(64);
        assertThat(local.maxGap()).isEqualTo(4096);
        assertThat(cloud.maxGap()).isEqualTo(PageIoOptions.CLOUD_MAX_GAP).isGreaterThan(StoreTraits.CLOUD_BLOCK_SIZE);
        assertThat(local.maxSparseRequest()).isEqualTo(1 << 20);
        assertThat(cloud.maxSparseRequest()).isEqualTo(Long.MAX_VALUE);
        assertThat(cloud.ioBufferSize()).isEqualTo(PageIoOptions.DEFAULT_IO_BUFFER);
        // Lance's variables still override, for every kind
        PageIoOptions env = PageIoOptions.forStore(StoreTraits.cloudDefaults(), Map.of("LANCE_IO_THREADS", "16",
                "LANCE_MAX_IOP_SIZE", "1048576"));
        assertThat(env.ioParallelism()).isEqualTo(16);
        assertThat(env.maxIopSize()).isEqualTo(1 << 20);
    }

    /** Rows of a take: 2 KiB every 48 KiB over 6 MiB, then one far row. */
    private static List<ByteRange> scatteredRows() {
        List<ByteRange> ranges = new ArrayList<>();
        for (long off = 0; off < (6 << 20); off += 48 << 10) {
            ranges.add(ByteRange.of(off, 2048));
        }
        ranges.add(ByteRange.of(15L << 20, 2048));
        return ranges;
    }

    @Test
    void aScatteredTakeIsAFewLargeGetsOnCloudStoresAndManySmallOnesLocally() {
        List<ByteRange> rows = scatteredRows();
        assertThat(rows).hasSize(129);
        PageIoOptions cloud = PageIoOptions.forStore(StoreTraits.cloudDefaults(), Map.of());
        PageIoOptions local = PageIoOptions.forStore(StoreTraits.localDefaults(), Map.of());
        List<ByteRange> cloudPlan = RangePlanner.plan(rows, cloud.maxGap(), cloud.maxIopSize());
        List<ByteRange> localPlan = RangePlanner.plan(rows, local.maxGap(), local.maxIopSize());
        // cloud: the 128 close rows are one range (read through the 46 KiB gaps), the far row another
        assertThat(cloudPlan).containsExactly(ByteRange.of(0, rows.get(127).end()), ByteRange.of(15L << 20, 2048));
        assertThat(localPlan).hasSize(129);
    }

    @Test
    void aCloudStoreGetsOneGetPerCoalescedRangeAndEachRowBackExactly() {
        InMemoryObjectStore mem = InMemoryObjectStore.createIsolated();
        FaultInjectingObjectStore store = new FaultInjectingObjectStore(mem).withTraits(StoreTraits.cloudDefaults());
        byte[] data = new byte[16 << 20];
        new Random(5).nextBytes(data);
        store.put("f", data).block();
        var sched = new PageIoScheduler(store);
        List<ByteRange> rows = scatteredRows();
        long before = store.counters().requests(OpClass.READ);
        try (PageResult r = sched.submit("f", rows, 0).subscribeOn(Schedulers.parallel()).block(Duration.ofSeconds(30))) {
            for (int i = 0; i < rows.size(); i++) {
                ByteRange want = rows.get(i);
                assertThat(r.buffer(i).toByteArray()).isEqualTo(java.util.Arrays.copyOfRange(data, (int) want.offset(),
                        (int) want.end()));
            }
        }
        assertThat(store.counters().requests(OpClass.READ) - before).isEqualTo(2);
        assertThat(sched.idle()).isTrue();
        store.close();
    }

    @Test
    void aPageLargerThanTheIopSizeGoesOutAsSeveralRangedGets() {
        InMemoryObjectStore mem = InMemoryObjectStore.createIsolated();
        FaultInjectingObjectStore store = new FaultInjectingObjectStore(mem).withTraits(StoreTraits.cloudDefaults());
        long pageBytes = 40L << 20;
        byte[] data = new byte[(int) pageBytes];
        new Random(6).nextBytes(data);
        store.put("p", data).block();
        var sched = new PageIoScheduler(store);
        long iop = sched.options().maxIopSize();
        long before = store.counters().requests(OpClass.READ);
        try (PageResult r = sched.submit("p", List.of(ByteRange.of(0, pageBytes)), 0).block(Duration.ofSeconds(30))) {
            assertThat(r.buffer(0).toByteArray()).isEqualTo(data);
        }
        assertThat(store.counters().requests(OpClass.READ) - before).isEqualTo((pageBytes + iop - 1) / iop).isGreaterThan(1);
        assertThat(sched.idle()).isTrue();
        store.close();
    }
}
