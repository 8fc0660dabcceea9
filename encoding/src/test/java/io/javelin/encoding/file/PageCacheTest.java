package io.javelin.encoding.file;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class PageCacheTest {

    /** A page that counts its closes. */
    static final class Page implements AutoCloseable {
        final AtomicInteger closes = new AtomicInteger();

        @Override
        public void close() {
            closes.incrementAndGet();
        }
    }

    @Test
    void pagesInFlightAndCachedAreClosedWithTheCache() {
        PageCache cache = new PageCache();
        Page inFlight = new Page();
        Page cached = new Page();
        cache.adopt(inFlight);
        cache.adopt(cached);
        cache.put(new PageRef(0, 0), cached);
        assertThat(cache.apply(new PageRef(0, 0))).isSameAs(cached);
        assertThat(cached.closes).hasValue(0);
        cache.close();
        assertThat(inFlight.closes).hasValue(1);
        assertThat(cached.closes).hasValue(1);
        assertThat(cache.apply(new PageRef(0, 0))).isNull();
        cache.close(); // idempotent: nothing is closed twice by the cache
        assertThat(inFlight.closes).hasValue(1);
        assertThat(cached.closes).hasValue(1);
    }

    @Test
    void pagesArrivingAfterTheScanEndedAreClosedAtOnce() {
        PageCache cache = new PageCache();
        cache.close();
        Page late = new Page();
        cache.adopt(late);
        assertThat(late.closes).hasValue(1);
        Page put = new Page();
        cache.put(new PageRef(1, 2), put);
        assertThat(put.closes).hasValue(1);
        assertThat(cache.contains(new PageRef(1, 2))).isFalse();
    }

    @Test
    void aReplacedOrEvictedPageIsClosedButAPageCachedTwiceIsNot() {
        PageCache cache = new PageCache();
        PageRef ref = new PageRef(3, 1);
        Page first = new Page();
        Page second = new Page();
        cache.put(ref, first);
        cache.put(ref, first);
        assertThat(first.closes).hasValue(0);
        cache.put(ref, second);
        assertThat(first.closes).hasValue(1);
        assertThat(cache.refs()).containsExactly(ref);
        cache.evict(ref);
        assertThat(second.closes).hasValue(1);
        assertThat(cache.refs()).isEmpty();
        cache.close();
        assertThat(second.closes).hasValue(1);
    }

    @Test
    void aCachedPageIsNoLongerInFlight() {
        PageCache cache = new PageCache();
        Page p = new Page();
        cache.adopt(p);
        cache.put(new PageRef(0, 0), p);
        cache.evict(new PageRef(0, 0));
        cache.close();
        assertThat(p.closes).hasValue(1); // closed by the eviction only, not again as an in-flight page
    }
}
