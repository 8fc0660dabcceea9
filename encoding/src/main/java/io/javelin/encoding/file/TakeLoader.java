package io.javelin.encoding.file;

import io.javelin.encoding.io.Buf;
import io.javelin.encoding.io.ByteRange;
import io.javelin.encoding.io.RandomAccessSource;
import io.javelin.encoding.io.SharedMemory;
import io.javelin.encoding.pb.ColumnMetadata;
import java.io.EOFException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Loads the pages of a take on a 2.1+ file with {@link PartialPage} plans, in two scheduler requests for
 * the whole take rather than two per page: the first rounds (chunk tables, dictionaries, repetition
 * indexes) of every page of every projected column go out as one request, then all second rounds (the
 * chunks or rows) as one request (split only above the source's {@code maxSparseRequest()}), so the page-I/O scheduler
 * can coalesce neighbours. First-round buffers are kept per open file ({@link #CACHE_BYTES}), so repeated
 * takes of the same pages issue one request. Pages without a plan are loaded whole by the caller's loader.
 */
final class TakeLoader {

    /**
     * Bytes of first-round buffers kept per open file (chunk tables are a few KiB a page; dictionaries and
     * repetition indexes more); a filtered scan's takes and repeated takes read each page's metadata once.
     */
    static final long CACHE_BYTES = 16L << 20;
    /*
     * A second round larger than the source's maxSparseRequest() (1 MiB on local stores, unlimited on cloud
     * stores) is split into several requests, read one after the other: each is small enough for the scheduler to
     * hand to a local store as one batch of reads (one blocking task, not one per row), and the scheduler's byte
     * budget admits each. A cloud store gets one request, coalesced into few GETs that run in parallel. (Reading
     * the parts concurrently with flatMapSequential left read buffers unreleased when the take was cancelled:
     * TakeMixTest.)
     */


    private final LanceFileMetadata md;
    private final RandomAccessSource source;
    private final Map<Key, byte[]> cache = new ConcurrentHashMap<>();
    private final AtomicLong cachedBytes = new AtomicLong();

    private record Key(long offset, long length) {
    }

    /** A page's plan and its first-round buffers. */
    private static final class Job {
        final PageRef ref;
        final PartialPage plan;
        List<Buf> first;
        int secondFrom;
        int secondTo;

        Job(PageRef ref, PartialPage plan) {
            this.ref = ref;
            this.plan = plan;
        }
    }

    TakeLoader(LanceFileMetadata md, RandomAccessSource source) {
        this.md = md;
        this.source = source;
    }

    /** Bytes of first-round buffers held (tests, metrics). */
    long cachedBytes() {
        return cachedBytes.get();
    }

    void clear() {
        cache.clear();
        cachedBytes.set(0);
    }

    /**
     * Loads {@code pages} (read by {@code readers}) for the rows of {@code ranges}; pages without a partial plan
     * go through {@code whole}. Each decoded page is handed out as {@code wrap(ref, page)}.
     */
    <T> Flux<T> load(List<PageRef> pages, List<FieldReader> readers, List<long[]> ranges,
                     BiFunction<PageRef, FieldReader, Mono<Object>> whole, BiFunction<PageRef, Object, T> wrap, int concurrency) {
        return Flux.defer(() -> {
            long[] rows = sortedRows(ranges);
            List<Job> jobs = new ArrayList<>();
            List<Integer> wholes = new ArrayList<>();
            long priority = Long.MAX_VALUE;
            for (int i = 0; i < pages.size(); i++) {
                PageRef ref = pages.get(i);
                FieldReader reader = readers.get(i);
                var col = md.columns().get(ref.column());
                long start = 0;
                for (int p = 0; p < ref.page(); p++) {
                    start += col.getPages(p).getLength();
                }
                long[] local = pageRows(rows, start, start + col.getPages(ref.page()).getLength());
                PartialPage plan = LanceFileReader.guard(md.resource(), md.cmoPositions()[ref.column()],
                        () -> reader.partial(ref, local));
                if (plan == null || dense(col.getPages(ref.page()), local.length)) {
                    wholes.add(i);
                } else {
                    jobs.add(new Job(ref, plan));
                    priority = Math.min(priority, col.getPages(ref.page()).getPriority());
                }
            }
            Flux<T> whole1 = Flux.fromIterable(wholes)
                    .flatMap(i -> whole.apply(pages.get(i), readers.get(i)).map(o -> wrap.apply(pages.get(i), o)), concurrency);
            if (jobs.isEmpty()) {
                return whole1;
            }
            long prio = priority;
            Flux<T> partial = firstRound(jobs, prio).thenMany(Flux.defer(() -> secondRound(jobs, prio, wrap, concurrency)));
            return Flux.merge(partial, whole1);
        });
    }

    /** Below this spacing a mini-block take touches every chunk (a few KiB each) anyway. */
    static final long CHUNK_BYTES = 4096;
    /** Smaller pages keep their plan: small and constant ones already come whole with the first round. */
    static final long DENSE_MIN_PAGE_BYTES = 64 * 1024;
    /**
     * Takes of fewer rows of a page keep its plan: a service's repeated small takes then cost one coalesced
     * GET of rows (the chunk tables are cached), not a GET per page.
     */
    static final int DENSE_MIN_ROWS = 64;

    /**
     * Whether a take of {@code rows} rows of {@code page} reads (nearly) all of it anyway: rows closer together
     * than the store's coalescing gap or a mini-block chunk. Such a page is read whole, in one request and without
     * the chunk-table round, as a scan reads it (a filtered scan keeping 1% of the rows on a cloud store then sends
     * as many requests as a full scan, not two rounds of coalesced ranges).
     */
    private boolean dense(ColumnMetadata.Page page, int rows) {
        if (rows < DENSE_MIN_ROWS) {
            return false;
        }
        long bytes = 0;
        for (int b = 0; b < page.getBufferSizesCount(); b++) {
            bytes += page.getBufferSizes(b);
        }
        return bytes > DENSE_MIN_PAGE_BYTES && bytes / rows <= Math.max(source.coalesceGap(), CHUNK_BYTES);
    }

    /** Every row of the take once, ascending. */
    private static long[] sortedRows(List<long[]> ranges) {
        long n = 0;
        for (long[] r : ranges) {
            n += r[1] - r[0];
        }
        long[] rows = new long[Math.toIntExact(n)];
        int k = 0;
        for (long[] r : ranges) {
            for (long i = r[0]; i < r[1]; i++) {
                rows[k++] = i;
            }
        }
        Arrays.sort(rows);
        int m = 0;
        for (int i = 0; i < rows.length; i++) {
            if (m == 0 || rows[m - 1] != rows[i]) {
                rows[m++] = rows[i];
            }
        }
        return m == rows.length ? rows : Arrays.copyOf(rows, m);
    }

    private static long[] pageRows(long[] rows, long start, long end) {
        int a = lowerBound(rows, start);
        int b = lowerBound(rows, end);
        long[] out = new long[b - a];
        for (int i = a; i < b; i++) {
            out[i - a] = rows[i] - start;
        }
        return out;
    }

    private static int lowerBound(long[] a, long v) {
        int i = Arrays.binarySearch(a, v);
        return i >= 0 ? i : -i - 1;
    }

    /** Fills every job's first-round buffers: from the cache, the rest in one request. */
    private Mono<Void> firstRound(List<Job> jobs, long priority) {
        Map<Key, byte[]> known = new HashMap<>(); // cached now (a concurrent clear() cannot take them away)
        Map<Key, Integer> missing = new HashMap<>();
        List<long[]> reads = new ArrayList<>();
        for (Job j : jobs) {
            for (long[] r : j.plan.firstReads()) {
                Key k = new Key(r[0], r[1]);
                if (known.containsKey(k) || missing.containsKey(k)) {
                    continue;
                }
                byte[] b = cache.get(k);
                if (b != null) {
                    known.put(k, b);
                } else {
                    missing.put(k, reads.size());
                    reads.add(r);
                }
            }
        }
        Mono<Map<Key, byte[]>> fetched = reads.isEmpty() ? Mono.just(known)
                : Mono.usingWhen(read(reads, priority), got -> Mono.fromCallable(() -> {
                    for (var e : missing.entrySet()) {
                        byte[] copy = got.get(e.getValue()).segment().toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
                        known.put(e.getKey(), copy);
                        if (cachedBytes.addAndGet(copy.length) <= CACHE_BYTES) {
                            if (cache.putIfAbsent(e.getKey(), copy) != null) {
                                cachedBytes.addAndGet(-copy.length);
                            }
                        } else {
                            cachedBytes.addAndGet(-copy.length);
                        }
                    }
                    return known;
                }), got -> Mono.fromRunnable(() -> got.forEach(ByteRange::close)));
        return fetched.doOnNext(got -> {
            for (Job j : jobs) {
                List<Buf> bufs = new ArrayList<>();
                for (long[] r : j.plan.firstReads()) {
                    bufs.add(Buf.ofArray(md.resource(), r[0], got.get(new Key(r[0], r[1]))));
                }
                j.first = bufs;
            }
        }).then();
    }

    /** Plans, reads (one request per {@code source.maxSparseRequest()} bytes) and decodes every job's second round. */
    private <T> Flux<T> secondRound(List<Job> jobs, long priority, BiFunction<PageRef, Object, T> wrap, int concurrency) {
        List<long[]> reads = new ArrayList<>();
        for (Job j : jobs) {
            long at = md.cmoPositions()[j.ref.column()];
            List<long[]> mine = LanceFileReader.guard(md.resource(), at, () -> j.plan.secondReads(j.first));
            j.secondFrom = reads.size();
            reads.addAll(mine);
            j.secondTo = reads.size();
        }
        long maxRequest = source.maxSparseRequest();
        List<List<long[]>> groups = new ArrayList<>();
        List<long[]> cur = new ArrayList<>();
        long bytes = 0;
        for (long[] r : reads) {
            if (!cur.isEmpty() && bytes + r[1] > maxRequest) {
                groups.add(cur);
                cur = new ArrayList<>();
                bytes = 0;
            }
            cur.add(r);
            bytes += r[1];
        }
        if (!cur.isEmpty()) {
            groups.add(cur);
        }
        Mono<List<ByteRange>> all = Flux.fromIterable(groups)
                .concatMap(g -> read(g, priority))
                .doOnDiscard(List.class, TakeLoader::closeAll)
                .collectList()
                .map(ls -> {
                    List<ByteRange> flat = new ArrayList<>();
                    ls.forEach(flat::addAll);
                    return flat;
                })
                .doOnDiscard(List.class, TakeLoader::closeAll);
        // Decodes hold a reference on the read buffers: a cancel releases the caller's, and the memory goes
        // with the last running decode instead of under it.
        return Flux.usingWhen(all.map(got -> new Held(got, new SharedMemory(() -> got.forEach(ByteRange::close)))),
                h -> Flux.fromIterable(jobs)
                        .flatMap(j -> Mono.fromCallable(() -> {
                            if (!h.memory().tryRetain()) {
                                return null;
                            }
                            try {
                                List<Buf> second = new ArrayList<>();
                                for (int i = j.secondFrom; i < j.secondTo; i++) {
                                    second.add(Buf.of(md.resource(), h.ranges().get(i)));
                                }
                                long at = md.cmoPositions()[j.ref.column()];
                                Object page = LanceFileReader.guard(md.resource(), at, () -> j.plan.decode(j.first, second));
                                return wrap.apply(j.ref, page);
                            } finally {
                                h.memory().release();
                            }
                        }).subscribeOn(Schedulers.parallel()), concurrency),
                h -> Mono.fromRunnable(h.memory()::release));
    }

    private record Held(List<ByteRange> ranges, SharedMemory memory) {
    }

    private static void closeAll(List<?> l) {
        for (Object o : l) {
            if (o instanceof ByteRange b) {
                b.close();
            } else if (o instanceof List<?> inner) {
                closeAll(inner);
            }
        }
    }

    private Mono<List<ByteRange>> read(List<long[]> ranges, long priority) {
        return source.readAll(ranges, priority).onErrorMap(EOFException.class,
                e -> new io.javelin.encoding.CorruptFileException(md.resource(), -1, "Unexpected end of file: " + e.getMessage(), e));
    }
}
