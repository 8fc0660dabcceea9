package io.javelin.tx.tree;

import io.javelin.encoding.io.ByteRange;
import io.javelin.encoding.io.RandomAccessSource;
import java.io.EOFException;
import java.lang.foreign.MemorySegment;
import reactor.core.publisher.Mono;

/**
 * One tree object as a ranged-read source for the Lance file reader. The size comes from the
 * parent's {@code object_size} (rule R36), so opening a leaf costs no extra request; a reference
 * that lies about the size makes the footer unreadable or a range fail, both corrupt-snapshot errors.
 */
final class TreeObjectSource implements RandomAccessSource {

    private final TreeStore store;
    private final ObjectLocation location;
    private final long size;

    TreeObjectSource(TreeStore store, ObjectLocation location, long size) {
        this.store = store;
        this.location = location;
        this.size = size;
    }

    @Override
    public String name() {
        return location.toString();
    }

    @Override
    public Mono<Long> size() {
        return Mono.just(size);
    }

    @Override
    public Mono<ByteRange> read(long offset, long length) {
        if (offset < 0 || length < 0 || offset + length > size || length > Integer.MAX_VALUE) {
            return Mono.error(new EOFException("range " + offset + "+" + length + " outside " + size + " bytes of " + location));
        }
        return store.getRange(location, offset, (int) length)
                .map(b -> new ByteRange(offset, MemorySegment.ofArray(b), (java.lang.foreign.Arena) null));
    }

    /** Gaps up to this size between the buffers of one page are read rather than split into requests. */
    static final long COALESCE_GAP = 4096;

    /**
     * The buffers of one page in one request when they lie close together (they are written
     * contiguously), sliced afterwards; otherwise one request per buffer.
     */
    @Override
    public Mono<java.util.List<ByteRange>> readAll(java.util.List<long[]> ranges, long priority) {
        if (ranges.size() <= 1) {
            return RandomAccessSource.super.readAll(ranges, priority);
        }
        long start = Long.MAX_VALUE;
        long end = 0;
        long sum = 0;
        for (long[] r : ranges) {
            start = Math.min(start, r[0]);
            end = Math.max(end, r[0] + r[1]);
            sum += r[1];
        }
        if (end - start > sum + COALESCE_GAP) {
            return RandomAccessSource.super.readAll(ranges, priority);
        }
        long from = start;
        return read(start, end - start).map(all -> {
            java.util.List<ByteRange> out = new java.util.ArrayList<>(ranges.size());
            for (long[] r : ranges) {
                out.add(new ByteRange(r[0], all.segment().asSlice(r[0] - from, r[1]), (java.lang.foreign.Arena) null));
            }
            return out;
        });
    }
}
