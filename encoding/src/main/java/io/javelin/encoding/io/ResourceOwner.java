package io.javelin.encoding.io;

/**
 * Takes ownership of resources a pipeline produces (decoded batches), so that whatever a cancellation
 * strands between two operators is still closed when the pipeline ends. A caller that wants this puts
 * an owner in the Reactor context under {@link #CONTEXT_KEY}; producers ({@link CancelSafe}) hand it
 * each value they emit. The owner closes at once what it is given after it was closed itself.
 */
public interface ResourceOwner {

    String CONTEXT_KEY = "javelin.resourceOwner";

    void adopt(AutoCloseable resource);
}
