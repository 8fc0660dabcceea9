package io.javelin.encoding.io;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Pages adopted by a scan's owner are closed when it closes, or at once when adopted after that. */
class PageOwnerTest {

    static final class Page implements AutoCloseable {
        final AtomicInteger closes = new AtomicInteger();

        @Override
        public void close() {
            closes.incrementAndGet();
        }
    }

    @Test
    void closesWhatItAdoptedAndLateArrivalsAtOnce() {
        PageOwner owner = new PageOwner(p -> ((Page) p).closes.get() > 0);
        List<Page> pages = new ArrayList<>();
        for (int i = 0; i < 3000; i++) { // past the pruning threshold: released pages are forgotten, open ones kept
            Page p = new Page();
            pages.add(p);
            owner.adopt(p);
            if (i % 2 == 0) {
                p.close(); // closed by the scan itself
            }
        }
        owner.adopt("not a page"); // ignored
        owner.close();
        for (Page p : pages) {
            assertThat(p.closes.get()).isPositive();
        }
        Page late = new Page();
        owner.adopt(late);
        assertThat(late.closes.get()).isEqualTo(1);
    }
}
