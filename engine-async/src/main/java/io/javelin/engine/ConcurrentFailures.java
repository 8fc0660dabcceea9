package io.javelin.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * When several files of one operation fail at once, Reactor delivers the first error and "drops" the
 * others, which by default it logs at ERROR with a stack trace before the caller even sees the real one.
 * Here the others become suppressed exceptions of the error the caller gets (subscriber-local hook, no
 * global state), and nothing is logged.
 */
final class ConcurrentFailures {

    /** Reactor's context key for a subscriber-local onErrorDropped hook ({@code Hooks.KEY_ON_ERROR_DROPPED}). */
    static final String ON_ERROR_DROPPED = "reactor.onErrorDropped.local";

    private Throwable reported;
    private final List<Throwable> early = new ArrayList<>();

    private ConcurrentFailures() {
    }

    static <T> Flux<T> routed(Flux<T> source) {
        return Flux.defer(() -> {
            ConcurrentFailures f = new ConcurrentFailures();
            return source.onErrorMap(f::reported).contextWrite(ctx -> ctx.put(ON_ERROR_DROPPED, (Consumer<Throwable>) f::dropped));
        });
    }

    static <T> Mono<T> routed(Mono<T> source) {
        return Mono.defer(() -> {
            ConcurrentFailures f = new ConcurrentFailures();
            return source.onErrorMap(f::reported).contextWrite(ctx -> ctx.put(ON_ERROR_DROPPED, (Consumer<Throwable>) f::dropped));
        });
    }

    private synchronized Throwable reported(Throwable e) {
        reported = e;
        early.forEach(x -> suppress(e, x));
        early.clear();
        return e;
    }

    private synchronized void dropped(Throwable e) {
        if (reported == null) {
            early.add(e);
        } else {
            suppress(reported, e);
        }
    }

    private static void suppress(Throwable into, Throwable e) {
        if (into != e && e != null) {
            into.addSuppressed(e);
        }
    }
}
