package io.javelin.encoding.io;

/**
 * Takes ownership of resources a pipeline produces (decoded batches), so that whatever a cancellation
 * strands between two operators is still closed when the pipeline ends. A caller that wants this puts
 * an owner in the Reactor context under {@link #CONTEXT_KEY}; producers ({@link CancelSafe}) hand it
 * each value they emit. The owner closes at once what it is given after it was closed itself.
 *
 * <p>Producers also report the stretch of work in which they allocate for the owner ({@link #begin}): building
 * a batch and handing it downstream. An owner that ends may wait for running work before it reports its own end,
 * so that a subscriber which sees the end of a scan can close its allocator at once: no batch is still being
 * built in it on another thread.
 */
public interface ResourceOwner {

    String CONTEXT_KEY = "javelin.resourceOwner";

    void adopt(AutoCloseable resource);

    /**
     * Starts a stretch of work for this owner; null if the owner has ended (the producer must not start).
     * The returned handle is closed when the work, including the synchronous hand-off downstream, is done.
     */
    default Work begin() {
        return Work.NONE;
    }

    /** A running stretch of work (see {@link #begin}). */
    interface Work extends AutoCloseable {
        Work NONE = () -> { };

        @Override
        void close();
    }
}
