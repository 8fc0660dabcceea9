package io.javelin.encoding.io;

import io.javelin.objectstore.ByteRange;
import io.javelin.objectstore.ObjectStore;
import io.javelin.objectstore.io.PageIoScheduler;
import io.javelin.objectstore.io.PageResult;
import io.javelin.objectstore.memory.Buffer;
import java.util.ArrayList;
import java.util.List;
import reactor.core.publisher.Mono;

/**
 * A file in an {@link ObjectStore}, read through the page-I/O scheduler (coalescing, priorities,
 * bounded bytes in flight). Buffers are the store's reference-counted off-heap slices.
 */
public final class ObjectStoreSource implements RandomAccessSource {

    private final ObjectStore store;
    private final String path;
    private final PageIoScheduler scheduler;
    private final long knownSize;

    public ObjectStoreSource(ObjectStore store, String path, PageIoScheduler scheduler) {
        this(store, path, scheduler, -1);
    }

    /**
     * {@code knownSize} &gt; 0 is the object's size as a manifest records it (Lance's {@code file_size_bytes}): opening
     * the file then costs no HEAD request, only the tail read. 0 or less: unknown, asked of the store.
     */
    public ObjectStoreSource(ObjectStore store, String path, PageIoScheduler scheduler, long knownSize) {
        this.store = store;
        this.path = path;
        this.scheduler = scheduler;
        this.knownSize = knownSize;
    }

    public ObjectStoreSource(ObjectStore store, String path) {
        this(store, path, new PageIoScheduler(store));
    }

    @Override
    public String name() {
        return store.uri() + "/" + path;
    }

    @Override
    public Mono<Long> size() {
        return knownSize > 0 ? Mono.just(knownSize) : store.head(path).map(m -> m.size());
    }

    @Override
    public Mono<io.javelin.encoding.io.ByteRange> read(long offset, long length) {
        return readAll(List.of(new long[] {offset, length}), 0).map(l -> l.get(0));
    }

    @Override
    public Mono<List<io.javelin.encoding.io.ByteRange>> readAll(List<long[]> ranges, long priority) {
        List<ByteRange> rs = new ArrayList<>();
        for (long[] r : ranges) {
            if (r[0] < 0 || r[1] < 0) {
                return Mono.error(new java.io.EOFException("negative range " + r[0] + "+" + r[1] + " of " + name()));
            }
            rs.add(ByteRange.of(r[0], r[1]));
        }
        return scheduler.submit(path, rs, priority).map(res -> wrap(res, ranges));
    }

    private static List<io.javelin.encoding.io.ByteRange> wrap(PageResult res, List<long[]> ranges) {
        List<io.javelin.encoding.io.ByteRange> out = new ArrayList<>();
        for (int i = 0; i < ranges.size(); i++) {
            Buffer b = res.buffer(i);
            out.add(new io.javelin.encoding.io.ByteRange(ranges.get(i)[0], b.segment(), b::release));
        }
        return out;
    }

    @Override
    public long maxSparseRequest() {
        return scheduler.options().maxSparseRequest();
    }

    @Override
    public long coalesceGap() {
        return scheduler.options().maxGap();
    }

    @Override
    public void close() {
        // the store is shared; its owner closes it
    }
}
