package io.javelin.objectstore.internal;

import java.util.List;

/**
 * Concurrent stages (pages, leaves, fragments read in parallel) can fail together; Reactor then reports a
 * composite "Multiple exceptions". Callers promise one typed error: the first one, the rest suppressed.
 */
public final class FirstError {

    private FirstError() {
    }

    /** {@code e} itself unless it is Reactor's composite, else its first cause with the others suppressed. */
    public static Throwable of(Throwable e) {
        if (!reactor.core.Exceptions.isMultiple(e)) {
            return e;
        }
        List<Throwable> all = reactor.core.Exceptions.unwrapMultiple(e);
        if (all.isEmpty()) {
            return e;
        }
        Throwable first = all.get(0);
        for (int i = 1; i < all.size(); i++) {
            if (all.get(i) != first) {
                first.addSuppressed(all.get(i));
            }
        }
        return first;
    }
}
