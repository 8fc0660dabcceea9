package io.javelin.encoding.v21;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Parsed chunk tables of the mini-block pages a field reader has taken from ({@link PartialPlans.PageIndex}),
 * so repeated takes parse a page's first round once. Bounded by the chunks held (~33 bytes each).
 */
final class PageIndexes {

    /** Chunks kept per field reader at most (~17 MiB). */
    static final long MAX_CHUNKS = 512 * 1024;

    private final Map<Long, PartialPlans.PageIndex> byPage = new ConcurrentHashMap<>();
    private final AtomicLong chunks = new AtomicLong();

    PartialPlans.PageIndex get(long page) {
        return byPage.get(page);
    }

    void put(long page, PartialPlans.PageIndex index) {
        long n = index.table().size();
        if (chunks.addAndGet(n) > MAX_CHUNKS || byPage.putIfAbsent(page, index) != null) {
            chunks.addAndGet(-n);
        }
    }
}
