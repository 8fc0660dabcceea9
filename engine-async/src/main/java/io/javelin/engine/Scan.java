package io.javelin.engine;

import io.javelin.encoding.io.ResourceOwner;
import io.javelin.engine.filter.Predicate;
import io.javelin.objectstore.io.PageIoListener;
import io.javelin.engine.filter.Selection;
import io.javelin.tx.FragmentInfo;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.roaringbitmap.RoaringBitmap;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The scan pipeline. Per fragment: deletion vector and data files opened, filter columns scanned in
 * physical batches (decoded on the parallel scheduler, pages through the page-I/O scheduler), the filter
 * evaluated, deleted rows dropped, then the remaining columns taken for surviving rows only (late
 * materialization). Fragments run {@code fragment_readahead} at a time, each buffering at most
 * {@code batch_readahead} batches; demand flows from the subscriber to the page reads, so a slow
 * subscriber never makes memory grow. Anything dropped by cancellation or errors is closed.
 */
final class Scan {

    private Scan() {
    }

    /** Output batches produced by all scans (tests compare it with what subscribers requested). */
    static final java.util.concurrent.atomic.AtomicLong PRODUCED = new java.util.concurrent.atomic.AtomicLong();

    /**
     * Every batch of one scan that nobody has taken yet: the reader's decoded batches (adopted through the
     * Reactor context, see {@link io.javelin.encoding.io.ResourceOwner}) and the batches the pipeline builds.
     * Each stage {@link #claim claims} a batch before using it; the subscriber gets only batches claimed for
     * it. When the scan ends (complete, error, cancel) whatever is left is closed: Reactor operators may
     * strand a value that races a cancel without running any discard hook, and this catches those too.
     * Ownership is arbitrated by removal from the set: exactly one of claim and closeAll gets a batch.
     */
    static final class InFlight implements ResourceOwner {
        private final java.util.Set<VectorSchemaRoot> live =
                java.util.Collections.synchronizedSet(java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>()));
        private volatile boolean closed;
        /** The read-ahead bytes all file scans of this scan share (null: each file scan its own). */
        final io.javelin.encoding.file.ReadAheadBudget readAhead;
        private int working; // guarded by this

        InFlight() {
            this(null);
        }

        InFlight(io.javelin.encoding.file.ReadAheadBudget readAhead) {
            this.readAhead = readAhead;
        }
        private final List<Runnable> onIdle = new ArrayList<>(); // guarded by this

        /** Registers a batch built by the pipeline; closes it at once if the scan already ended. */
        VectorSchemaRoot track(VectorSchemaRoot r) {
            PRODUCED.incrementAndGet();
            adopt(r);
            return r;
        }

        @Override
        public void adopt(AutoCloseable resource) {
            if (!(resource instanceof VectorSchemaRoot r)) {
                return;
            }
            live.add(r);
            if (closed && live.remove(r)) {
                r.close();
            }
        }

        /** Takes a batch out of the scan's custody; false if it is gone (closed by the end of the scan). */
        boolean claim(VectorSchemaRoot r) {
            return live.remove(r);
        }

        /** Discard/drop hook: closes what the pipeline dropped, unless someone already took it. */
        void release(Object o) {
            if (o instanceof VectorSchemaRoot r) {
                if (claim(r)) {
                    r.close();
                }
            } else if (o instanceof reactor.util.function.Tuple2<?, ?> t) {
                release(t.getT2());
            } else {
                Scan.release(o);
            }
        }

        /** Work building batches for this custody (see {@link ResourceOwner#begin}); none once it is closed. */
        @Override
        public synchronized ResourceOwner.Work begin() {
            if (closed) {
                return null;
            }
            working++;
            return this::end;
        }

        private void end() {
            List<Runnable> run;
            synchronized (this) {
                if (--working > 0 || onIdle.isEmpty()) {
                    return;
                }
                run = List.copyOf(onIdle);
                onIdle.clear();
            }
            run.forEach(Runnable::run);
        }

        /** Runs {@code r} once no work is running; after {@link #closeAll} none can start, so it runs once for good. */
        void whenIdle(Runnable r) {
            synchronized (this) {
                if (working > 0) {
                    onIdle.add(r);
                    return;
                }
            }
            r.run();
        }

        /**
         * Closes the custody and completes when work still running on other threads (a batch being built for a
         * fragment whose scan an error or a limit cut short) is done, so nothing touches the allocator after
         * the subscriber sees the end.
         */
        Mono<Void> settle() {
            return Mono.create(sink -> {
                closeAll();
                whenIdle(sink::success);
            });
        }

        /** {@code f} whose completion and error wait for {@link #settle}. */
        <T> Flux<T> settled(Flux<T> f) {
            return f.onErrorResume(e -> settle().then(Mono.error(e)))
                    .concatWith(Mono.defer(this::settle).then(Mono.empty()));
        }

        void closeAll() {
            synchronized (this) {
                closed = true;
            }
            List<VectorSchemaRoot> left;
            synchronized (live) {
                left = new ArrayList<>(live);
                live.clear();
            }
            left.forEach(VectorSchemaRoot::close);
        }

        int size() {
            return live.size();
        }
    }

    static Flux<VectorSchemaRoot> run(Scanner s, Scanner.Plan plan, BufferAllocator allocator) {
        return Flux.defer(() -> {
            InFlight inFlight = new InFlight(new io.javelin.encoding.file.ReadAheadBudget(
                    s.ioBufferSize > 0 ? s.ioBufferSize : s.dataset.readAhead().scanBudgetBytes()));
            ScanStats stats = new ScanStats(s.dataset.uri(), s.dataset.version());
            io.javelin.objectstore.io.PageIoScheduler io = s.dataset.io();
            return inFlight.settled(runTracked(s, plan, allocator, inFlight, io)
                    .<VectorSchemaRoot>handle((r, sink) -> {
                        if (inFlight.claim(r)) {
                            stats.delivered(r.getRowCount());
                            sink.next(r);
                        }
                    }))
                    // before the terminal signal travels on, so a subscriber that sees it also sees the meters
                    // and the memory back (settled: no batch is still being built); doFinally covers cancel
                    .doOnComplete(() -> stats.finished(reactor.core.publisher.SignalType.ON_COMPLETE))
                    .doOnError(e -> stats.finished(reactor.core.publisher.SignalType.ON_ERROR))
                    .doFinally(sig -> {
                        inFlight.closeAll();
                        stats.finished(sig);
                    })
                    .contextWrite(ctx -> ctx.put(ResourceOwner.CONTEXT_KEY, inFlight)
                            .put(PageIoListener.CONTEXT_KEY, stats));
        });
    }

    private static Flux<VectorSchemaRoot> runTracked(Scanner s, Scanner.Plan plan, BufferAllocator allocator, InFlight inFlight,
                                                      io.javelin.objectstore.io.PageIoScheduler io) {
        List<FragmentInfo> frags = plan.fragments();
        long skip = s.offset;
        if (plan.predicate() == null && skip > 0) {
            // offset pushdown: whole fragments before the offset are never opened
            List<FragmentInfo> kept = new ArrayList<>();
            for (FragmentInfo f : frags) {
                if (kept.isEmpty() && skip >= f.liveRows()) {
                    skip -= f.liveRows();
                } else {
                    kept.add(f);
                }
            }
            frags = kept;
        }
        Map<Long, Long> liveLimit = new java.util.HashMap<>();
        if (plan.predicate() == null && s.limit >= 0) {
            // limit pushdown: only the fragments (and, in the last one, the rows) the limit needs are read
            long needed = skip + s.limit;
            List<FragmentInfo> kept = new ArrayList<>();
            for (FragmentInfo f : frags) {
                if (needed <= 0) {
                    break;
                }
                kept.add(f);
                if (f.liveRows() > needed) {
                    liveLimit.put(f.id(), needed);
                }
                needed -= f.liveRows();
            }
            frags = kept;
        }
        Flux<FragmentInfo> source = Flux.fromIterable(frags);
        Flux<VectorSchemaRoot> batches = s.ordered
                ? source.flatMapSequential(f -> fragment(s, plan, f, liveLimit.get(f.id()), allocator, io, inFlight), s.fragmentReadahead, s.batchReadahead)
                : source.flatMap(f -> fragment(s, plan, f, liveLimit.get(f.id()), allocator, io, inFlight), s.fragmentReadahead, s.batchReadahead);
        Flux<VectorSchemaRoot> out = (skip > 0 || s.limit >= 0) ? window(batches, skip, s.limit, allocator, inFlight) : batches;
        return out.doOnDiscard(Object.class, inFlight::release)
                // a batch racing a cancellation (limit reached, subscriber gone) is "dropped", not discarded
                .contextWrite(ctx -> ctx.put(ON_NEXT_DROPPED, (java.util.function.Consumer<Object>) inFlight::release));
    }

    /** Reactor's context key for a subscriber-local onNextDropped hook ({@code Hooks.KEY_ON_NEXT_DROPPED}). */
    static final String ON_NEXT_DROPPED = "reactor.onNextDropped.local";

    /** Closes what the pipeline (ours and the reader's) may drop: batches, indexed batches, page buffers. */
    static void release(Object o) {
        if (o instanceof VectorSchemaRoot r) {
            r.close();
        } else if (o instanceof io.javelin.encoding.io.ByteRange b) {
            b.close();
        } else if (o instanceof List<?> l) {
            for (Object x : l) {
                if (x instanceof io.javelin.encoding.io.ByteRange b) {
                    b.close();
                }
            }
        } else if (o instanceof reactor.util.function.Tuple2<?, ?> t && t.getT2() instanceof VectorSchemaRoot r) {
            r.close();
        }
    }

    /** Offset and limit over the merged stream; completing cancels the upstream (limit pushdown). */
    private static Flux<VectorSchemaRoot> window(Flux<VectorSchemaRoot> in, long offset, long limit, BufferAllocator allocator,
                                                  InFlight inFlight) {
        if (limit == 0) {
            return Flux.empty();
        }
        return Flux.defer(() -> {
            long[] state = {offset, limit < 0 ? Long.MAX_VALUE : limit};
            return in.handle((VectorSchemaRoot b, reactor.core.publisher.SynchronousSink<VectorSchemaRoot> sink) -> {
                int n = b.getRowCount();
                int from = (int) Math.min(n, state[0]);
                state[0] -= from;
                int take = (int) Math.min(n - from, state[1]);
                state[1] -= take;
                if (take == 0) {
                    if (inFlight.claim(b)) {
                        b.close();
                    }
                } else if (from == 0 && take == n) {
                    sink.next(b);
                } else if (inFlight.claim(b)) {
                    try (b) {
                        sink.next(inFlight.track(Batches.slice(b, from, take, allocator)));
                    }
                }
                if (state[1] == 0) {
                    sink.complete();
                }
            });
        });
    }

    /** Physical end offset covering the first {@code live} live rows. */
    static long physicalEnd(RoaringBitmap deleted, long physicalRows, long live) {
        if (deleted.isEmpty()) {
            return Math.min(physicalRows, live);
        }
        long lo = 0;
        long hi = physicalRows - 1;
        while (lo < hi) {
            long mid = (lo + hi) >>> 1;
            if (mid + 1 - deleted.rankLong((int) mid) >= live) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        return lo + 1;
    }

    private static Flux<VectorSchemaRoot> fragment(Scanner s, Scanner.Plan plan, FragmentInfo f, Long liveLimit,
                                                   BufferAllocator allocator, io.javelin.objectstore.io.PageIoScheduler io,
                                                   InFlight inFlight) {
        Dataset ds = s.dataset;
        Predicate pred = plan.predicate();
        boolean late = pred != null && s.pushdown && !plan.restColumns().isEmpty();
        List<String> first = late ? plan.filterColumns() : plan.readColumns();
        // Late materialization reads the filter columns in groups of several output batches, so each take of
        // the other columns covers more rows: their chunks are read and decoded once per group, not once per
        // batch, and the per-take costs (plans, I/O rounds) are paid less often. Survivors are emitted in
        // batches of at most batchSize rows.
        int batchSize = s.batchSize;
        int scanBatch = late ? lateGroupRows(batchSize, ds.objectStore().traits().local()) : batchSize;
        return Mono.zip(ds.deletions(f), FragmentSource.open(ds, f, plan.readColumns(), io))
                .flatMapMany(t -> {
                    RoaringBitmap deleted = t.getT1();
                    FragmentSource src = t.getT2();
                    long end = liveLimit == null ? Long.MAX_VALUE : physicalEnd(deleted, f.physicalRows(), liveLimit);
                    // Lazy: flatMapSequential may apply the mapper and then, cancelled, never subscribe to the result
                    // (and flatMap discards only the input); a batch claimed in the mapper would be stranded. Claiming
                    // at subscription leaves an unsubscribed batch in the scan's custody, which closes it.
                    java.util.function.Function<reactor.util.function.Tuple2<Long, VectorSchemaRoot>, org.reactivestreams.Publisher<VectorSchemaRoot>> step = ib -> Flux.defer(() -> {
                        long start = ib.getT1() * scanBatch;
                        VectorSchemaRoot b = ib.getT2();
                        if (!inFlight.claim(b)) {
                            return Mono.empty(); // the scan ended and closed it
                        }
                        int[] pos;
                        try {
                            pos = survivors(b, ds, f.id(), start, deleted, pred, allocator);
                        } catch (RuntimeException e) {
                            b.close();
                            return Mono.error(e);
                        }
                        int rows = pos == null ? b.getRowCount() : pos.length;
                        if (rows <= batchSize) {
                            return finish(s, plan, src, b, start, pos, late, allocator, inFlight);
                        }
                        return finishSplit(s, plan, src, b, start, pos, batchSize, allocator, inFlight);
                    });
                    Flux<reactor.util.function.Tuple2<Long, VectorSchemaRoot>> in = src.scan(first, 0, end, scanBatch, allocator, inFlight).index();
                    // late: the take of one group overlaps the filtering of the next (order kept)
                    return late ? in.flatMapSequential(step, 2, 1) : in.concatMap(step, 1);
                });
    }

    /**
     * Filter-column rows per group of a late-materializing scan, at least one batch. Local stores: 8 batches, at
     * most 64 Ki rows. Cloud stores: 64 batches, at most 512 Ki rows: each group's take is a round of GETs cut at
     * group edges, so larger groups read the other columns' pages in about as many GETs as reading them whole
     * (Lance's filtered scan) instead of 2-3 times as many.
     */
    static int lateGroupRows(int batchSize, boolean localStore) {
        int batches = localStore ? 8 : 64;
        int maxRows = localStore ? 65_536 : 524_288;
        return Math.max(batchSize, (int) Math.min((long) batches * batchSize, maxRows));
    }

    /**
     * More survivors than one output batch holds: each slice of at most {@code batchSize} survivors is
     * finished on its own (filter columns copied per slice, then the other columns taken). The filter
     * batch {@code b} is closed once every slice has been copied out of it.
     */
    private static Flux<VectorSchemaRoot> finishSplit(Scanner s, Scanner.Plan plan, FragmentSource src, VectorSchemaRoot b, long start,
                                                      int[] pos, int batchSize, BufferAllocator allocator, InFlight inFlight) {
        int n = pos == null ? b.getRowCount() : pos.length;
        List<VectorSchemaRoot> pieces = new ArrayList<>();
        List<int[]> positions = new ArrayList<>();
        try (b) {
            for (int from = 0; from < n; from += batchSize) {
                int[] p = new int[Math.min(batchSize, n - from)];
                for (int i = 0; i < p.length; i++) {
                    p[i] = pos == null ? from + i : pos[from + i];
                }
                positions.add(p);
                VectorSchemaRoot piece = Batches.select(b, p, allocator);
                inFlight.adopt(piece); // internal: not an output batch (PRODUCED counts those)
                pieces.add(piece);
            }
        } catch (RuntimeException e) {
            pieces.forEach(r -> {
                if (inFlight.claim(r)) {
                    r.close();
                }
            });
            return Flux.error(e);
        }
        // each piece stays in the scan's custody until its turn: a cancel closes the ones never started
        return Flux.range(0, pieces.size()).concatMap(i -> {
            VectorSchemaRoot piece = pieces.get(i);
            if (!inFlight.claim(piece)) {
                return Mono.empty();
            }
            int[] p = positions.get(i);
            long[] offsets = new long[p.length];
            for (int k = 0; k < p.length; k++) {
                offsets[k] = start + p[k];
            }
            return finishAt(s, plan, src, piece, offsets, true, allocator, inFlight);
        }, 1);
    }

    /**
     * Positions of rows of {@code b} (physical rows {@code start...}) that pass the filter and are not
     * deleted; null when all rows survive.
     */
    static int[] survivors(VectorSchemaRoot b, Dataset ds, long fragId, long start, RoaringBitmap deleted, Predicate pred,
                           BufferAllocator allocator) {
        int n = b.getRowCount();
        boolean anyDeleted = !deleted.isEmpty() && deleted.rangeCardinality(start, start + n) > 0;
        if (pred == null) {
            if (!anyDeleted) {
                return null;
            }
            int[] out = new int[n];
            int k = 0;
            for (int i = 0; i < n; i++) {
                if (!deleted.contains((int) (start + i))) {
                    out[k++] = i;
                }
            }
            return java.util.Arrays.copyOf(out, k);
        }
        Selection sel = pred.rowColumns().isEmpty() ? pred.evaluate(b) : evaluateWithRowColumns(b, ds, fragId, start, pred, allocator);
        if (sel.selectedCount() == n && !anyDeleted) {
            return null;
        }
        int[] p = sel.positions();
        if (!anyDeleted) {
            return p;
        }
        int k = 0;
        for (int i : p) {
            if (!deleted.contains((int) (start + i))) {
                p[k++] = i;
            }
        }
        return java.util.Arrays.copyOf(p, k);
    }

    /** Evaluates a filter that reads {@code _rowid}/{@code _rowaddr}: those columns are built for the batch, then freed. */
    private static Selection evaluateWithRowColumns(VectorSchemaRoot b, Dataset ds, long fragId, long start, Predicate pred,
                                                    BufferAllocator allocator) {
        long[] offsets = new long[b.getRowCount()];
        for (int i = 0; i < offsets.length; i++) {
            offsets[i] = start + i;
        }
        List<FieldVector> extra = new ArrayList<>();
        try {
            if (pred.rowColumns().contains(Batches.ROW_ID)) {
                extra.add(ds.rowIds().vector(fragId, offsets, allocator));
            }
            if (pred.rowColumns().contains(Batches.ROW_ADDR)) {
                extra.add(Batches.rowAddresses(Batches.ROW_ADDR, fragId, offsets, allocator));
            }
            for (String c : pred.rowColumns()) {
                if (RowVersionColumns.NAMES.contains(c)) {
                    extra.add(RowVersionColumns.vector(c, ds, fragId, offsets, allocator));
                }
            }
            List<FieldVector> all = new ArrayList<>(b.getFieldVectors());
            all.addAll(extra);
            return pred.evaluate(new VectorSchemaRoot(all.stream().map(FieldVector::getField).toList(), all, b.getRowCount()));
        } finally {
            extra.forEach(FieldVector::close);
        }
    }

    private static Mono<VectorSchemaRoot> finish(Scanner s, Scanner.Plan plan, FragmentSource src, VectorSchemaRoot b, long start,
                                                 int[] pos, boolean late, BufferAllocator allocator, InFlight inFlight) {
        int rows = pos == null ? b.getRowCount() : pos.length;
        if (rows == 0) {
            b.close();
            return Mono.empty();
        }
        long[] offsets = new long[rows];
        for (int i = 0; i < rows; i++) {
            offsets[i] = start + (pos == null ? i : pos[i]);
        }
        if (pos == null) {
            return finishAt(s, plan, src, b, offsets, late, allocator, inFlight);
        }
        VectorSchemaRoot selected;
        try (b) {
            selected = Batches.select(b, pos, allocator);
        } catch (RuntimeException e) {
            return Mono.error(e);
        }
        return finishAt(s, plan, src, selected, offsets, late, allocator, inFlight);
    }

    /**
     * Builds the output batch from {@code b} (the surviving rows of the filter/read columns, owned here,
     * rows at physical {@code offsets}); late: the other columns are taken for those rows first.
     */
    private static Mono<VectorSchemaRoot> finishAt(Scanner s, Scanner.Plan plan, FragmentSource src, VectorSchemaRoot b, long[] offsets,
                                                   boolean late, BufferAllocator allocator, InFlight inFlight) {
        int rows = offsets.length;
        Map<String, FieldVector> byName = new LinkedHashMap<>();
        for (FieldVector v : b.getFieldVectors()) {
            byName.put(v.getField().getName(), v);
        }
        long fragId = src.fragment().id();
        if (!late) {
            // hide(): concatMap's scalar fast path would discard the value again on a later cancel
            return Mono.just(inFlight.track(output(s, plan, byName, fragId, offsets, rows, allocator))).hide();
        }
        // Late materialization: fetch the other columns for the surviving rows only. Whoever flips `owner`
        // first owns the filter-column vectors: the result mapping (to build the batch) or a cancel/error (to close).
        java.util.concurrent.atomic.AtomicBoolean owner = new java.util.concurrent.atomic.AtomicBoolean();
        Runnable release = () -> {
            if (owner.compareAndSet(false, true)) {
                byName.values().forEach(FieldVector::close);
            }
        };
        return src.take(offsets, plan.restColumns(), allocator, inFlight)
                .map(rest -> {
                    if (!inFlight.claim(rest)) {
                        release.run(); // the scan ended and closed the fetched columns
                        return Batches.root(List.of(), 0);
                    }
                    if (!owner.compareAndSet(false, true)) {
                        rest.close();
                        return Batches.root(List.of(), 0);
                    }
                    Map<String, FieldVector> m = new LinkedHashMap<>(byName);
                    for (FieldVector v : rest.getFieldVectors()) {
                        m.put(v.getField().getName(), v);
                    }
                    return inFlight.track(output(s, plan, m, fragId, offsets, rows, allocator));
                })
                .filter(r -> r.getRowCount() > 0 || !r.getFieldVectors().isEmpty())
                .doOnCancel(release)
                .doOnError(e -> release.run())
                .doOnSuccess(r -> {
                    if (r == null) {
                        release.run();
                    }
                });
    }

    private static VectorSchemaRoot output(Scanner s, Scanner.Plan plan, Map<String, FieldVector> m, long fragId, long[] offsets,
                                           int rows, BufferAllocator allocator) {
        List<FieldVector> extra = new ArrayList<>();
        try {
            if (s.withRowId) {
                extra.add(s.dataset.rowIds().vector(fragId, offsets, allocator));
            }
            if (s.withRowAddress) {
                extra.add(Batches.rowAddresses(Batches.ROW_ADDR, fragId, offsets, allocator));
            }
        } catch (RuntimeException e) {
            extra.forEach(FieldVector::close);
            m.values().forEach(FieldVector::close);
            throw e;
        }
        return plan.projection().apply(m, extra, rows, allocator);
    }

    static Mono<Long> count(Scanner s, Scanner.Plan plan) {
        if (plan.predicate() == null) {
            long n = 0;
            for (FragmentInfo f : plan.fragments()) {
                n += f.liveRows();
            }
            return Mono.just(n);
        }
        return Flux.fromIterable(plan.fragments())
                .flatMapSequential(f -> matching(s.dataset, f, plan.predicate(), plan.filterColumns(), s.batchSize)
                        .map(RoaringBitmap::getLongCardinality), s.fragmentReadahead, 1)
                .reduce(0L, Long::sum);
    }

    /** Physical offsets of live rows of {@code f} matching {@code pred} (reads only the filter columns). */
    static Mono<RoaringBitmap> matching(Dataset ds, FragmentInfo f, Predicate pred, List<String> filterColumns, int batchSize) {
        return Mono.defer(() -> {
            org.apache.arrow.memory.BufferAllocator alloc = new org.apache.arrow.memory.RootAllocator();
            InFlight owner = new InFlight(); // everything the reader emits is closed before the allocator
            return Mono.zip(ds.deletions(f), FragmentSource.open(ds, f, filterColumns, ds.io()))
                    .flatMap(t -> {
                        RoaringBitmap deleted = t.getT1();
                        RoaringBitmap hits = new RoaringBitmap();
                        return t.getT2().scan(filterColumns, 0, Long.MAX_VALUE, batchSize, alloc, owner)
                                .index()
                                .doOnNext(ib -> {
                                    if (!owner.claim(ib.getT2())) {
                                        return;
                                    }
                                    try (VectorSchemaRoot b = ib.getT2()) {
                                        long start = ib.getT1() * batchSize;
                                        int[] pos = survivors(b, ds, f.id(), start, deleted, pred, alloc);
                                        if (pos == null) {
                                            hits.add(start, start + b.getRowCount());
                                        } else {
                                            for (int p : pos) {
                                                hits.add((int) (start + p));
                                            }
                                        }
                                    }
                                })
                                .doOnDiscard(reactor.util.function.Tuple2.class, tuple -> owner.release(tuple))
                                .then(Mono.fromCallable(() -> hits));
                    })
                    .doFinally(sig -> {
                        owner.closeAll();
                        owner.whenIdle(alloc::close); // a batch still being built after a cancel is closed first
                    })
                    .contextWrite(ctx -> ctx.put(ResourceOwner.CONTEXT_KEY, owner));
        });
    }
}
