package io.javelin.encoding.file;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.encoding.io.ByteRange;
import io.javelin.encoding.io.ObjectStoreSource;
import io.javelin.encoding.io.RandomAccessSource;
import io.javelin.encoding.writer.LanceFileVersion;
import io.javelin.encoding.writer.LanceFileWriter;
import io.javelin.encoding.writer.WriteOptions;
import io.javelin.objectstore.local.LocalObjectStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Page read-ahead of sequential scans ({@link ScanReadAhead}): a subscriber that asks for one batch makes
 * the scan read only that batch's pages plus a bounded number ahead; scans cancelled at any point (pages
 * loading, pages decoded ahead, batches in flight) release every page; rows stay exact.
 */
class ScanReadAheadTest {

    /** The same bounds on every machine (the defaults depend on CPUs). */
    static final ReadAhead AHEAD = new ReadAhead(64L << 20, 4);

    static LanceFileReader.ScanOptions all(int batchSize) {
        return LanceFileReader.ScanOptions.all(batchSize).withReadAhead(AHEAD);
    }

    @TempDir
    Path dir;

    static final int TOTAL = 6000;

    /** Counts page reads (every request of a scan after open). */
    static final class Counting implements RandomAccessSource {
        final RandomAccessSource in;
        final AtomicInteger reads = new AtomicInteger();

        Counting(RandomAccessSource in) {
            this.in = in;
        }

        @Override
        public String name() {
            return in.name();
        }

        @Override
        public Mono<Long> size() {
            return in.size();
        }

        @Override
        public Mono<ByteRange> read(long offset, long length) {
            return in.read(offset, length);
        }

        @Override
        public Mono<List<ByteRange>> readAll(List<long[]> ranges, long priority) {
            reads.incrementAndGet();
            return in.readAll(ranges, priority);
        }
    }

    private void write(LocalObjectStore store, BufferAllocator a) {
        Flux<VectorSchemaRoot> in = Flux.range(0, 6).concatMap(b -> Mono.using(
                () -> DirectPageScanTest.batch(a, b * 1000L, 1000), Mono::just, VectorSchemaRoot::close, false), 1);
        LanceFileWriter.write(in, DirectPageScanTest.SCHEMA, store, "d.lance",
                WriteOptions.of(LanceFileVersion.V2_1).withPageSize(64 * 1024)).block(Duration.ofMinutes(1));
    }

    /**
     * File scans of one dataset scan share one read-ahead budget: with the budget spent, each holds only the
     * one page ahead it is always allowed, however large its own window; the bytes come back when they end.
     */
    @Test
    void fileScansSharingABudgetReadAheadOnlyWithinIt() throws Exception {
        try (BufferAllocator a = new RootAllocator(); LocalObjectStore store = new LocalObjectStore(dir, 2)) {
            write(store, a);
            Counting src = new Counting(new ObjectStoreSource(store, "d.lance"));
            try (LanceFileReader r = LanceFileReader.open(src).block()) {
                long largestPage = 0;
                for (var c : r.metadata().columns()) {
                    for (var p : c.getPagesList()) {
                        largestPage = Math.max(largestPage, p.getBufferSizesList().stream().mapToLong(Long::longValue).sum());
                    }
                }
                ReadAheadBudget shared = new ReadAheadBudget(1);
                int opened = src.reads.get();
                List<VectorSchemaRoot> firsts = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
                List<BaseSubscriber<VectorSchemaRoot>> subs = new java.util.ArrayList<>();
                for (int i = 0; i < 2; i++) {
                    BaseSubscriber<VectorSchemaRoot> one = new BaseSubscriber<>() {
                        @Override
                        protected void hookOnSubscribe(org.reactivestreams.Subscription s) {
                            request(1);
                        }

                        @Override
                        protected void hookOnNext(VectorSchemaRoot v) {
                            firsts.add(v);
                        }
                    };
                    subs.add(one);
                    r.scan(all(100).withSharedBudget(shared), a).subscribe(one);
                }
                long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                while (firsts.size() < 2 && System.nanoTime() < deadline) {
                    Thread.sleep(5);
                }
                assertThat(firsts).hasSize(2);
                Thread.sleep(200);
                // each: batch 0's pages (one per column) and the one page ahead it may always hold
                assertThat(src.reads.get() - opened).isLessThanOrEqualTo(2 * (3 + 1));
                assertThat(shared.peakBytes()).isPositive().isLessThanOrEqualTo(2 * largestPage);
                subs.forEach(BaseSubscriber::dispose);
                firsts.forEach(VectorSchemaRoot::close);
                deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
                while (shared.reservedBytes() != 0 && System.nanoTime() < deadline) {
                    Thread.sleep(5);
                }
                assertThat(shared.reservedBytes()).as("returned when the scans end").isZero();
            }
        }
    }

    @Test
    void readsAheadABoundedNumberOfPagesAndReleasesThemOnCancel() throws Exception {
        try (BufferAllocator a = new RootAllocator(); LocalObjectStore store = new LocalObjectStore(dir, 2)) {
            write(store, a);
            Counting src = new Counting(new ObjectStoreSource(store, "d.lance"));
            try (LanceFileReader r = LanceFileReader.open(src).block()) {
                int pages = 0;
                for (var c : r.metadata().columns()) {
                    pages += c.getPagesCount();
                }
                assertThat(pages).isGreaterThan(AHEAD.maxPages() + 3 + 2);
                int opened = src.reads.get();
                // one batch requested and held: its pages (one per column) plus at most MAX_PAGES_AHEAD more
                VectorSchemaRoot[] first = new VectorSchemaRoot[1];
                BaseSubscriber<VectorSchemaRoot> one = new BaseSubscriber<>() {
                    @Override
                    protected void hookOnSubscribe(org.reactivestreams.Subscription s) {
                        request(1);
                    }

                    @Override
                    protected void hookOnNext(VectorSchemaRoot v) {
                        first[0] = v;
                    }
                };
                r.scan(all(100), a).subscribe(one);
                long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                while (first[0] == null && System.nanoTime() < deadline) {
                    Thread.sleep(5);
                }
                assertThat(first[0]).isNotNull();
                Thread.sleep(200); // let the read-ahead settle: it must stop at its bound
                int read = src.reads.get() - opened;
                assertThat(read).isGreaterThanOrEqualTo(3).isLessThanOrEqualTo(3 + AHEAD.maxPages());
                one.dispose();
                DirectPageScanTest.check(first[0], java.util.stream.LongStream.range(0, 100).toArray());
                first[0].close();
                // cancelled after k batches, with pages loading and decoded ahead: nothing is left behind
                for (int k : new int[] {0, 1, 2, 5, 17, 40}) {
                    List<VectorSchemaRoot> got = r.scan(all(97), a).take(k).collectList()
                            .block(Duration.ofMinutes(1));
                    assertThat(got).hasSize(k);
                    for (int i = 0; i < got.size(); i++) {
                        long[] rows = java.util.stream.LongStream.range(i * 97L, Math.min(TOTAL, (i + 1) * 97L)).toArray();
                        DirectPageScanTest.check(got.get(i), rows);
                        got.get(i).close();
                    }
                }
                // a full scan still returns every row in order
                long[] n = {0};
                r.scan(all(1000), a).doOnNext(b -> {
                    try (b) {
                        DirectPageScanTest.check(b, java.util.stream.LongStream.range(n[0], n[0] + b.getRowCount()).toArray());
                        n[0] += b.getRowCount();
                    }
                }).blockLast(Duration.ofMinutes(1));
                assertThat(n[0]).isEqualTo(TOTAL);
            }
            // pages decoded ahead and dropped by the cancels are released asynchronously; wait for them
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (a.getAllocatedMemory() != 0 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(a.getAllocatedMemory()).isZero();
        }
    }
    /** A decoded page that counts how often it is released. */
    static final class CountedPage implements AutoCloseable {
        final AtomicInteger closes = new AtomicInteger();

        @Override
        public void close() {
            closes.incrementAndGet();
        }
    }

    /** One page per batch of 10 rows; only {@link #pagesFor} is used by the read-ahead plan. */
    static final class OnePagePerBatch implements FieldReader {
        @Override
        public List<PageRef> pagesFor(List<long[]> ranges) {
            return List.of(new PageRef(0, (int) (ranges.get(0)[0] / 10)));
        }

        @Override
        public Object decodePage(PageRef ref, List<io.javelin.encoding.io.Buf> buffers) {
            throw new UnsupportedOperationException();
        }

        @Override
        public io.javelin.encoding.arrow.Node assemble(List<long[]> ranges, java.util.function.Function<PageRef, Object> pages) {
            throw new UnsupportedOperationException();
        }
    }

    /**
     * Regression: a page already on its way when the scan is cancelled (Reactor operators such as
     * {@code Mono.flatMap} pass a value on after a cancel) is released, not dropped. The loads here deliver
     * their page exactly then: from within the cancel. A lambda subscriber (what {@code Mono.subscribe}
     * creates) drops such a value without a discard hook; the read-ahead used one and leaked it.
     */
    @Test
    void aPageDeliveredAfterTheCancelIsReleasedOnce() {
        List<CountedPage> made = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
        java.util.function.BiFunction<PageRef, FieldReader, Mono<Object>> loader = (ref, r) -> Mono.fromDirect(sub ->
                sub.onSubscribe(new org.reactivestreams.Subscription() {
                    private boolean sent;

                    @Override
                    public void request(long n) {
                        // the read is slow: nothing before the cancel
                    }

                    @Override
                    public void cancel() {
                        if (!sent) {
                            sent = true;
                            CountedPage page = new CountedPage();
                            made.add(page);
                            sub.onNext(page);
                            sub.onComplete();
                        }
                    }
                }));
        List<long[]> ranges = List.of(new long[] {0, 10}, new long[] {10, 20}, new long[] {20, 30}, new long[] {30, 40});
        ScanReadAhead ahead = new ScanReadAhead("test", List.of(new OnePagePerBatch()), ranges, ref -> 10, loader,
                reactor.util.context.Context.empty(), AHEAD, new ReadAheadBudget(AHEAD.scanBudgetBytes()));
        reactor.core.Disposable waiting = ahead.ensure(0).subscribe();
        ahead.close(); // the scan is cancelled: every load in flight is disposed and delivers its page now
        waiting.dispose();
        assertThat(made).hasSizeGreaterThanOrEqualTo(2); // batch 0's page and read-ahead
        assertThat(made).allSatisfy(p -> assertThat(p.closes).hasValue(1));
    }
}
