package io.javelin.objectstore.io;

/**
 * Told about every request the {@link PageIoScheduler} completes for a subscriber that put a listener in
 * its Reactor context under {@link #CONTEXT_KEY} (a scan counting its pages and bytes while sharing the
 * scheduler with other scans).
 */
public interface PageIoListener {

    String CONTEXT_KEY = "javelin.pageIoListener";

    /** One request (one page's buffers) was read: {@code bytes} requested, in {@code iops} physical reads. */
    void pageRead(long bytes, int iops);
}
