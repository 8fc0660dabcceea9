package io.javelin.encoding.file;

import io.javelin.encoding.CorruptFileException;
import io.javelin.encoding.arrow.ArrowAssembler;
import io.javelin.encoding.arrow.Node;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiFunction;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;
import reactor.core.publisher.Operators;
import reactor.util.context.Context;
import reactor.util.context.ContextView;

/**
 * The page loads of one sequential scan, with read-ahead: while batch {@code b} is assembled and consumed,
 * the pages that the following batches need first are already being read and decoded (on the parallel
 * scheduler, so several pages decode at once), within a budget of {@link ReadAhead#budgetBytes()} encoded bytes and
 * {@link ReadAhead#maxPages()} pages beyond those batch {@code b} needs. A page is closed as soon as the last
 * batch that needs it has been built (batches keep their own references to page memory).
 *
 * <p>Ownership: every decoded page belongs to this object until {@link #close()}, which releases pages
 * that are ready and disposes loads in flight; a load finishing after that releases its page at once.
 * Batches are requested one at a time and in order ({@code concatMap} with prefetch 1).
 */
final class ScanReadAhead implements AutoCloseable {

    /** One page of the plan: which batches need it and what it costs to hold. */
    private record Planned(PageRef ref, FieldReader reader, int firstBatch, int lastBatch, long bytes) {
    }

    /** A page being loaded or loaded. */
    private static final class Slot {
        final Planned plan;
        Disposable load;
        Object page;
        Throwable error;
        boolean done;
        List<Runnable> waiters = new ArrayList<>();

        /** Bytes this slot holds of the shared budget (while it is ahead of the current batch). */
        long reserved;

        Slot(Planned plan) {
            this.plan = plan;
        }
    }

    private final List<Planned> order;
    private final List<List<PageRef>> pagesOfBatch;
    private final BiFunction<PageRef, FieldReader, Mono<Object>> loader;
    /** The scan's context, seen by the page loads (discard hooks, I/O listeners). */
    private final Context context;
    /** The scan's owner of pages not yet handed to this read-ahead (null: none). */
    private final PageCache inFlight;
    private final ReadAhead limits;
    /** Shared with the other file scans of the dataset scan. */
    private final ReadAheadBudget budget;
    private final Map<PageRef, Slot> slots = new HashMap<>();
    private int next;
    private boolean closed;

    /**
     * @param ranges the row range of each batch, in scan order
     * @param bytes  encoded bytes of a page
     */
    ScanReadAhead(String resource, List<FieldReader> readers, List<long[]> ranges, java.util.function.ToLongFunction<PageRef> bytes,
                  BiFunction<PageRef, FieldReader, Mono<Object>> loader, ContextView context, ReadAhead limits,
                  ReadAheadBudget budget) {
        this.loader = loader;
        this.limits = limits;
        this.budget = budget;
        this.context = Context.of(context);
        this.inFlight = this.context.getOrDefault(PageCache.CONTEXT_KEY, null);
        Map<PageRef, int[]> span = new LinkedHashMap<>();
        Map<PageRef, FieldReader> owner = new HashMap<>();
        pagesOfBatch = new ArrayList<>(ranges.size());
        for (int b = 0; b < ranges.size(); b++) {
            List<long[]> one = List.<long[]>of(ranges.get(b));
            List<PageRef> need = new ArrayList<>();
            for (FieldReader r : readers) {
                for (PageRef p : LanceFileReader.guard(resource, -1, () -> r.pagesFor(one))) {
                    if (!need.contains(p)) {
                        need.add(p);
                    }
                    int[] s = span.get(p);
                    if (s == null) {
                        span.put(p, new int[] {b, b});
                        owner.put(p, r);
                    } else {
                        s[1] = b;
                    }
                }
            }
            pagesOfBatch.add(need);
        }
        order = new ArrayList<>(span.size());
        span.forEach((p, s) -> order.add(new Planned(p, owner.get(p), s[0], s[1], bytes.applyAsLong(p))));
        order.sort(java.util.Comparator.comparingInt(Planned::firstBatch)); // stable: column order within a batch
    }

    /**
     * Starts the loads batch {@code b} needs and the read-ahead after it, releases pages no later batch
     * needs, and completes when every page of batch {@code b} is ready.
     */
    Mono<Void> ensure(int b) {
        return Mono.create(sink -> {
            List<Slot> wait = new ArrayList<>();
            List<Runnable> start = new ArrayList<>();
            List<Object> evicted = new ArrayList<>();
            synchronized (this) {
                if (closed) {
                    sink.success();
                    return;
                }
                for (var it = slots.values().iterator(); it.hasNext(); ) {
                    Slot s = it.next();
                    if (s.plan.lastBatch() < b && s.done) {
                        it.remove();
                        if (s.reserved > 0) {
                            budget.release(s.reserved);
                        }
                        evicted.add(s.page);
                    }
                }
                int ahead = 0;
                long aheadBytes = 0;
                for (Slot s : slots.values()) {
                    if (s.plan.firstBatch() > b) {
                        ahead++;
                        aheadBytes += s.plan.bytes();
                    } else if (s.reserved > 0) {
                        budget.release(s.reserved); // current now: no longer read-ahead
                        s.reserved = 0;
                    }
                }
                while (next < order.size()) {
                    Planned p = order.get(next);
                    long reserve = 0;
                    if (p.firstBatch() > b) {
                        if (!limits.enabled() || ahead >= limits.maxPages() || (ahead > 0 && aheadBytes + p.bytes() > limits.budgetBytes())
                                || !budget.reserve(p.bytes(), ahead == 0)) {
                            break;
                        }
                        ahead++;
                        aheadBytes += p.bytes();
                        reserve = p.bytes();
                    }
                    Slot s = new Slot(p);
                    s.reserved = reserve;
                    slots.put(p.ref(), s);
                    start.add(() -> startLoad(s));
                    next++;
                }
                for (PageRef ref : pagesOfBatch.get(b)) {
                    wait.add(slots.get(ref));
                }
            }
            evicted.forEach(LanceFileReader::closePage);
            start.forEach(Runnable::run);
            awaitAll(wait, sink);
        });
    }

    /**
     * Subscribes to the load of a slot's page. Not {@code Mono.subscribe(lambdas)}: a disposed lambda
     * subscriber silently drops a value that is already on its way (e.g. a page that {@code Mono.flatMap}
     * passes on after the cancel), and that page's read buffers would leak. Here every signal reaches
     * {@link #finish}, whose lock decides, in one step with {@link #close()}, who releases the page.
     */
    private final class Load implements CoreSubscriber<Object>, Disposable {
        private final Slot slot;
        private final AtomicReference<Subscription> upstream = new AtomicReference<>();

        Load(Slot slot) {
            this.slot = slot;
        }

        @Override
        public Context currentContext() {
            return context;
        }

        @Override
        public void onSubscribe(Subscription s) {
            if (upstream.compareAndSet(null, s)) {
                s.request(Long.MAX_VALUE);
            } else {
                s.cancel(); // disposed before the load started
            }
        }

        @Override
        public void onNext(Object page) {
            finish(slot, page, null);
        }

        @Override
        public void onError(Throwable e) {
            finish(slot, null, e);
        }

        @Override
        public void onComplete() {
            finish(slot, null, null);
        }

        @Override
        public void dispose() {
            Subscription s = upstream.getAndSet(Operators.cancelledSubscription());
            if (s != null) {
                s.cancel();
            }
        }

        @Override
        public boolean isDisposed() {
            return upstream.get() == Operators.cancelledSubscription();
        }
    }

    private void startLoad(Slot s) {
        Load load;
        synchronized (this) {
            if (closed) {
                return; // not started: nothing to release
            }
            load = new Load(s);
            s.load = load;
        }
        // a close() from here on disposes the load (before or after it subscribes) and finish releases its page
        loader.apply(s.plan.ref(), s.plan.reader()).subscribe(load);
    }

    private void finish(Slot s, Object page, Throwable error) {
        List<Runnable> run;
        boolean release;
        synchronized (this) {
            if (s.done) {
                release = true; // a second signal (onComplete after onNext): nothing new to keep
                run = List.of();
            } else {
                s.done = true;
                release = closed;
                if (!release) {
                    if (inFlight != null) {
                        inFlight.claim(page); // ours now: closed by eviction or close()
                    }
                    s.page = page;
                    s.error = error == null && page == null ? new IllegalStateException("Page " + s.plan.ref() + " decoded to nothing")
                            : error;
                }
                run = s.waiters;
                s.waiters = List.of();
            }
        }
        if (release) {
            LanceFileReader.closePage(page);
        }
        run.forEach(Runnable::run);
    }

    private void awaitAll(List<Slot> wait, MonoSink<Void> sink) {
        java.util.concurrent.atomic.AtomicInteger left = new java.util.concurrent.atomic.AtomicInteger(wait.size() + 1);
        java.util.concurrent.atomic.AtomicBoolean failed = new java.util.concurrent.atomic.AtomicBoolean();
        Runnable one = () -> {
            if (left.decrementAndGet() == 0 && !failed.get()) {
                sink.success();
            }
        };
        for (Slot s : wait) {
            Runnable check = () -> {
                Throwable e;
                synchronized (this) {
                    e = s.error;
                }
                if (e != null) {
                    if (failed.compareAndSet(false, true)) {
                        sink.error(e);
                    }
                } else {
                    one.run();
                }
            };
            boolean now;
            synchronized (this) {
                now = s.done || closed;
                if (!now) {
                    s.waiters.add(check);
                }
            }
            if (now) {
                check.run();
            }
        }
        one.run();
    }

    /** The decoded page, once {@link #ensure} for a batch needing it has completed. */
    synchronized Object page(PageRef ref) {
        Slot s = slots.get(ref);
        return s == null ? null : s.page;
    }

    @Override
    public void close() {
        List<Object> pages = new ArrayList<>();
        List<Disposable> loads = new ArrayList<>();
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            for (Slot s : slots.values()) {
                if (s.reserved > 0) {
                    budget.release(s.reserved);
                    s.reserved = 0;
                }
                if (s.done) {
                    pages.add(s.page);
                } else if (s.load != null) {
                    loads.add(s.load);
                }
            }
            slots.clear();
        }
        loads.forEach(Disposable::dispose);
        pages.forEach(LanceFileReader::closePage);
    }

    /** Builds one batch from ready pages (no I/O; copies only where a column cannot be wrapped zero-copy). */
    static VectorSchemaRoot assemble(String resource, List<LanceField> fields, List<FieldReader> readers, List<long[]> ranges,
                                     java.util.function.Function<PageRef, Object> pages, BufferAllocator allocator, long rows) {
        List<FieldVector> vectors = new ArrayList<>();
        try {
            for (int f = 0; f < fields.size(); f++) {
                FieldReader fr = readers.get(f);
                FieldVector direct = LanceFileReader.guard(resource, -1, () -> fr.assembleDirect(ranges, pages, allocator));
                if (direct != null) {
                    vectors.add(direct);
                    continue;
                }
                Node n = LanceFileReader.guard(resource, -1, () -> fr.assemble(ranges, pages));
                if (n.length() != rows) {
                    throw new CorruptFileException(resource, -1, "Field " + fields.get(f).name()
                            + " decoded " + n.length() + " rows vs " + rows);
                }
                Field arrow = fields.get(f).arrow();
                vectors.add(LanceFileReader.guard(resource, -1, () -> ArrowAssembler.toVector(arrow, n, allocator)));
            }
        } catch (RuntimeException e) {
            vectors.forEach(FieldVector::close);
            throw e;
        }
        List<Field> fs = vectors.stream().map(FieldVector::getField).toList();
        return new VectorSchemaRoot(fs, vectors, (int) rows);
    }
}
