package io.javelin.engine;

import io.javelin.objectstore.io.PageIoListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.SignalType;

/**
 * What one scan read and produced. The page-I/O scheduler reports the scan's page reads through the
 * Reactor context ({@link PageIoListener}), so scans sharing a scheduler are counted apart. Recorded to
 * {@link EngineMetrics} and logged (DEBUG) once, when the scan ends.
 */
final class ScanStats implements PageIoListener {

    private static final Logger LOG = LoggerFactory.getLogger(ScanStats.class);

    private final String uri;
    private final long version;
    private final long started = System.nanoTime();
    private final LongAdder pages = new LongAdder();
    private final LongAdder iops = new LongAdder();
    private final LongAdder bytes = new LongAdder();
    private final LongAdder rows = new LongAdder();
    private final LongAdder batches = new LongAdder();
    private final java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();

    ScanStats(String uri, long version) {
        this.uri = uri;
        this.version = version;
    }

    @Override
    public void pageRead(long n, int physicalReads) {
        pages.increment();
        iops.add(physicalReads);
        bytes.add(n);
    }

    void delivered(int rowCount) {
        batches.increment();
        rows.add(rowCount);
    }

    void finished(SignalType signal) {
        if (!done.compareAndSet(false, true)) {
            return;
        }
        String outcome = switch (signal) {
            case ON_COMPLETE -> "complete";
            case ON_ERROR -> "error";
            default -> "cancel";
        };
        long nanos = System.nanoTime() - started;
        MeterRegistry r = EngineMetrics.registry();
        Timer.builder("javelin.scan.duration").description("scan wall time, subscription to termination")
                .tag("outcome", outcome).register(r).record(Duration.ofNanos(nanos));
        count(r, "javelin.scan.rows", "rows delivered to subscribers", null, rows.sum());
        count(r, "javelin.scan.batches", "batches delivered to subscribers", null, batches.sum());
        count(r, "javelin.scan.pages", "page requests read and decoded", null, pages.sum());
        count(r, "javelin.scan.iops", "physical reads after coalescing and splitting", null, iops.sum());
        count(r, "javelin.scan.bytes.read", "page bytes read", "bytes", bytes.sum());
        if (LOG.isDebugEnabled()) {
            LOG.debug("scan {} v{} {}: {} rows in {} batches, {} pages, {} bytes in {} reads, {} ms", uri, version, outcome,
                    rows.sum(), batches.sum(), pages.sum(), bytes.sum(), iops.sum(), nanos / 1_000_000);
        }
    }

    static void count(MeterRegistry r, String name, String description, String unit, long n) {
        Counter.builder(name).description(description).baseUnit(unit).register(r).increment(n);
    }
}
