package io.javelin.objectstore.io;

import io.javelin.objectstore.ByteRange;
import io.javelin.objectstore.ObjectStore;
import io.javelin.objectstore.memory.Buffer;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Page I/O for one scan: coalesces and splits each request's ranges ({@link RangePlanner}), admits
 * the physical reads in priority order under a concurrency limit and an in-flight byte budget
 * ({@link IoQueue}), and hands back each request's ranges as reference-counted slices.
 *
 * <p>Bytes count against the budget from dispatch until the result reaches its consumer; a slow
 * consumer therefore stops further dispatch (backpressure). Cancelling a request withdraws its
 * queued reads, cancels running ones, and frees every buffer and budget it held.
 */
public final class PageIoScheduler {

    private final ObjectStore store;
    private final PageIoOptions options;
    private final IoQueue queue;
    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong iops = new AtomicLong();
    private final AtomicLong bytesRead = new AtomicLong();

    public PageIoScheduler(ObjectStore store, PageIoOptions options) {
        this.store = store;
        this.options = options;
        this.queue = new IoQueue(options.ioParallelism(), options.ioBufferSize());
    }

    public PageIoScheduler(ObjectStore store) {
        this(store, PageIoOptions.forStore(store.traits()));
    }

    public PageIoOptions options() {
        return options;
    }

    /** Reads one request. Its bytes are returned to the budget when the result is emitted. */
    public Mono<PageResult> submit(String path, List<ByteRange> ranges, long priority) {
        return read(new PageRequest(path, ranges, priority))
                .doOnNext(PageResult::delivered)
                .doOnDiscard(PageResult.class, PageResult::release);
    }

    /**
     * Reads a stream of requests, up to {@code 2 x ioParallelism} at a time, and emits the results
     * in the order the requests came (callers submit in priority order). A result's bytes stay on
     * the budget until downstream takes it, so a slow consumer throttles dispatch.
     */
    public Flux<PageResult> stream(Flux<PageRequest> requests) {
        return Flux.defer(() -> {
            Owned<PageResult> pending = new Owned<>(PageResult::release);
            return requests.flatMapSequential(req -> read(req).doOnNext(pending::add), 2 * options.ioParallelism(), 1)
                    .<PageResult>handle((r, sink) -> {
                        if (pending.take(r)) {
                            r.delivered();
                            sink.next(r);
                        }
                    })
                    .doFinally(sig -> {
                        if (sig != reactor.core.publisher.SignalType.ON_COMPLETE) {
                            pending.close();
                        }
                    })
                    .doOnDiscard(PageResult.class, r -> {
                        if (pending.take(r)) {
                            r.release();
                        }
                    });
        });
    }

    private Mono<PageResult> read(PageRequest req) {
        return Mono.deferContextual(ctx -> {
            PageIoListener listener = ctx.getOrDefault(PageIoListener.CONTEXT_KEY, null);
            List<ByteRange> ranges = req.ranges();
            List<ByteRange> sorted = isSorted(ranges) ? ranges : ranges.stream().sorted().toList();
            List<ByteRange> plan = RangePlanner.plan(sorted, options.maxGap(), options.maxIopSize());
            requests.incrementAndGet();
            iops.addAndGet(plan.size());
            Grants grants = new Grants();
            Runnable refund = grants::refund;
            Owned<Buffer> chunksOwned = new Owned<>(Buffer::release);
            // A merged range cut into several reads is read into one buffer (each read fills its slice), so
            // a page crossing a cut is a zero-copy slice too instead of a joined copy.
            Buffer[] parentOf = new Buffer[plan.size()];
            long[] parentStart = new long[plan.size()];
            Owned<Buffer> parents = new Owned<>(Buffer::release);
            try {
                for (int i = 0; i < plan.size(); ) {
                    int j = i + 1;
                    while (j < plan.size() && plan.get(j).offset() == plan.get(j - 1).end()) {
                        j++;
                    }
                    if (j - i > 1) {
                        long start = plan.get(i).offset();
                        Buffer parent = Buffer.allocateUninitialized(plan.get(j - 1).end() - start, "page-io");
                        parents.add(parent);
                        for (int k = i; k < j; k++) {
                            parentOf[k] = parent;
                            parentStart[k] = start;
                        }
                    }
                    i = j;
                }
            } catch (RuntimeException | Error e) {
                parents.close();
                throw e;
            }
            // many small reads of one request (a take's rows): one admission, one store call; the buffers are
            // owned (chunksOwned) as soon as the store hands them over, as in the per-read path
            Mono<List<Buffer>> batch = !batchable(plan, parentOf) ? null : Mono.usingWhen(
                    queue.admit(req.priority(), totalBytes(plan)).doOnNext(grants::add),
                    permit -> store.readBatch(req.path(), plan).doOnNext(list -> list.forEach(b -> {
                        bytesRead.addAndGet(b.size());
                        chunksOwned.add(b);
                    })),
                    permit -> Mono.fromRunnable(permit::iopDone),
                    (permit, err) -> Mono.fromRunnable(permit::iopDone),
                    permit -> Mono.fromRunnable(permit::iopDone));
            Mono<List<Buffer>> reads = batch != null ? batch : Flux.range(0, plan.size())
                    .flatMapSequential(k -> Mono.usingWhen(
                            queue.admit(req.priority(), plan.get(k).length()).doOnNext(grants::add),
                            permit -> readChunk(req.path(), plan.get(k), parentOf[k], parentStart[k]).doOnNext(b -> {
                                bytesRead.addAndGet(b.size());
                                chunksOwned.add(b);
                            }),
                            permit -> Mono.fromRunnable(permit::iopDone),
                            (permit, err) -> Mono.fromRunnable(permit::iopDone),
                            permit -> Mono.fromRunnable(permit::iopDone)), Math.max(1, plan.size()))
                    .collectList();
            return reads
                    .<PageResult>handle((chunks, sink) -> {
                        boolean all = true;
                        for (Buffer c : chunks) {
                            all &= chunksOwned.take(c);
                        }
                        if (!all) {
                            chunks.forEach(Buffer::release); // a racing cancel got some: drop the rest too
                            parents.close();
                            return;
                        }
                        PageResult result;
                        try {
                            result = slice(req, plan, chunks, refund, parentOf, parentStart);
                        } finally {
                            parents.close();
                        }
                        if (listener != null) {
                            long bytes = 0;
                            for (ByteRange r : req.ranges()) {
                                bytes += r.length();
                            }
                            listener.pageRead(bytes, plan.size());
                        }
                        sink.next(result);
                    })
                    .doOnError(e -> {
                        chunksOwned.close();
                        parents.close();
                        refund.run();
                    })
                    .doOnCancel(() -> {
                        chunksOwned.close();
                        parents.close();
                        refund.run();
                    })
                    // Last in the chain so every operator above (flatMapSequential's queue,
                    // collectList's list on cancel) sees the hook.
                    .doOnDiscard(Buffer.class, Buffer::release)
                    .doOnDiscard(PageResult.class, PageResult::release);
        });
    }

    /**
     * The permits of one request. Bytes go back once, when the result is delivered or the request ends
     * otherwise. The read slots go back at the latest then too: {@code usingWhen} does not run its cleanup
     * for a permit that reaches it after a cancel, and a slot lost that way is lost for every scan sharing
     * this scheduler (with 8 slots, 8 unlucky cancellations hung the store). Both are idempotent per permit,
     * and a permit granted after the refund is returned at once.
     */
    private final class Grants {
        private final List<IoQueue.Permit> permits = new ArrayList<>();
        private boolean refunded;

        void add(IoQueue.Permit p) {
            boolean late;
            synchronized (this) {
                late = refunded;
                if (!late) {
                    permits.add(p);
                }
            }
            if (late) {
                p.iopDone();
                queue.consumed(List.of(p));
            }
        }

        void refund() {
            List<IoQueue.Permit> toReturn;
            synchronized (this) {
                if (refunded) {
                    return;
                }
                refunded = true;
                toReturn = List.copyOf(permits);
            }
            for (IoQueue.Permit p : toReturn) {
                p.iopDone();
            }
            queue.consumed(toReturn);
        }
    }

    /** One physical read: into its own buffer, or into its slice of the merged range's buffer. */
    private Mono<Buffer> readChunk(String path, ByteRange iop, Buffer parent, long parentStart) {
        if (parent == null) {
            return store.read(path, iop);
        }
        return Mono.defer(() -> {
            Buffer dst;
            try {
                dst = parent.slice(iop.offset() - parentStart, iop.length());
            } catch (IllegalStateException released) {
                return Mono.empty(); // the request ended (cancel, error) before this read was admitted
            }
            return store.readInto(path, iop.offset(), dst);
        });
    }

    /** Cuts the caller's ranges out of the physical reads; releases the reads' own handles. */
    private static PageResult slice(PageRequest req, List<ByteRange> plan, List<Buffer> chunks, Runnable refund, Buffer[] parentOf,
                                    long[] parentStart) {
        List<Buffer> out = new ArrayList<>(req.ranges().size());
        try {
            for (ByteRange r : req.ranges()) {
                out.add(sliceOne(r, plan, chunks, parentOf, parentStart));
            }
        } catch (RuntimeException e) {
            out.forEach(Buffer::release);
            throw e;
        } finally {
            chunks.forEach(Buffer::release);
        }
        return new PageResult(req, out, refund);
    }

    private static Buffer sliceOne(ByteRange r, List<ByteRange> plan, List<Buffer> chunks, Buffer[] parentOf, long[] parentStart) {
        if (r.length() == 0) {
            return Buffer.allocate(0, "page-io");
        }
        int first = indexOfChunk(plan, r.offset());
        ByteRange c = plan.get(first);
        if (r.end() <= c.end()) {
            return chunks.get(first).slice(r.offset() - c.offset(), r.length()); // zero-copy
        }
        if (parentOf[first] != null) {
            // the chunks are slices of one buffer: the crossing range is one slice of it
            return parentOf[first].slice(r.offset() - parentStart[first], r.length());
        }
        // The range crosses separately read chunks: copy it together.
        Buffer b = Buffer.allocateUninitialized(r.length(), "page-io-join");
        long pos = r.offset();
        for (int i = first; pos < r.end(); i++) {
            ByteRange ci = plan.get(i);
            long n = Math.min(r.end(), ci.end()) - pos;
            MemorySegment.copy(chunks.get(i).segment(), pos - ci.offset(), b.segment(), pos - r.offset(), n);
            pos += n;
        }
        return b;
    }

    private static int indexOfChunk(List<ByteRange> plan, long offset) {
        int lo = 0;
        int hi = plan.size() - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (plan.get(mid).offset() <= offset) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }

    /** Reads of at most this size are batched into one store call when a request has several. */
    static final long BATCH_READ_MAX = 64 * 1024;
    /** Bytes of one batched store call. */
    static final long BATCH_TOTAL_MAX = 1024 * 1024;

    /**
     * Whether a request's physical reads go to the store as one batch: a store that reads batches in one call
     * (local: a read costs a thread hand-off more than the bytes), more than one read, every read small, none a slice of a split read.
     */
    private boolean batchable(List<ByteRange> plan, Buffer[] parentOf) {
        if (!store.batchesReads() || plan.size() < 2 || totalBytes(plan) > BATCH_TOTAL_MAX) {
            return false;
        }
        for (int k = 0; k < plan.size(); k++) {
            if (plan.get(k).length() > BATCH_READ_MAX || parentOf[k] != null) {
                return false;
            }
        }
        return true;
    }

    private static long totalBytes(List<ByteRange> plan) {
        long n = 0;
        for (ByteRange r : plan) {
            n += r.length();
        }
        return n;
    }

    private static boolean isSorted(List<ByteRange> ranges) {
        for (int i = 1; i < ranges.size(); i++) {
            if (ranges.get(i).offset() < ranges.get(i - 1).offset()) {
                return false;
            }
        }
        return true;
    }

    /** Requests submitted so far. */
    public long requests() {
        return requests.get();
    }

    /** Physical reads planned so far (after coalescing and splitting). */
    public long iops() {
        return iops.get();
    }

    public long bytesRead() {
        return bytesRead.get();
    }

    /** Physical reads running now. */
    public int iopsInFlight() {
        return queue.iopsInFlight();
    }

    /** Bytes dispatched and not yet delivered. */
    public long bytesHeld() {
        return queue.bytesHeld();
    }

    /** Physical reads waiting for admission. */
    public int queued() {
        return queue.queued();
    }

    /** True when nothing is queued, running or held: what every scan leaves behind when it ends. */
    public boolean idle() {
        return queue.queued() == 0 && queue.iopsInFlight() == 0 && queue.bytesHeld() == 0;
    }
}
