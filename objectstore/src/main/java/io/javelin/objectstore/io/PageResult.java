package io.javelin.objectstore.io;

import io.javelin.objectstore.memory.Buffer;
import java.util.List;

/**
 * The bytes of one {@link PageRequest}: one buffer per requested range, in the request's order.
 * Each buffer is a reference-counted handle; usually a zero-copy slice of a coalesced read. The
 * consumer releases them (one by one, or all with {@link #release()}).
 */
public final class PageResult implements AutoCloseable {

    private final PageRequest request;
    private final List<Buffer> buffers;
    private final Runnable onDelivered;

    PageResult(PageRequest request, List<Buffer> buffers, Runnable onDelivered) {
        this.request = request;
        this.buffers = List.copyOf(buffers);
        this.onDelivered = onDelivered;
    }

    public PageRequest request() {
        return request;
    }

    public List<Buffer> buffers() {
        return buffers;
    }

    public Buffer buffer(int i) {
        return buffers.get(i);
    }

    /** Returns this request's bytes to the scheduler's budget (idempotent). */
    void delivered() {
        onDelivered.run();
    }

    /** Releases every buffer not yet released. */
    public void release() {
        delivered();
        for (Buffer b : buffers) {
            b.release();
        }
    }

    @Override
    public void close() {
        release();
    }
}
