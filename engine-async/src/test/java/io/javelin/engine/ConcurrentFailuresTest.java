package io.javelin.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Hooks;
import reactor.core.publisher.Operators;

class ConcurrentFailuresTest {

    /** A source that fails twice, as two files failing at once reach a merge: the second error is "dropped". */
    static Flux<Integer> failingTwice(RuntimeException first, RuntimeException second) {
        return Flux.from(s -> {
            s.onSubscribe(Operators.emptySubscription());
            s.onError(first);
            s.onError(second);
        });
    }

    @Test
    void aSecondFailureBecomesSuppressedInTheReportedOneAndIsNotDropped() {
        List<Throwable> dropped = new CopyOnWriteArrayList<>();
        Hooks.onErrorDropped(dropped::add);
        try {
            RuntimeException first = new IllegalStateException("file a is corrupt");
            RuntimeException second = new IllegalStateException("file b is corrupt");
            assertThatThrownBy(() -> ConcurrentFailures.routed(failingTwice(first, second).map(i -> i + 1)).blockLast())
                    .isSameAs(first);
            assertThat(first.getSuppressed()).contains(second);

            RuntimeException third = new IllegalStateException("c");
            RuntimeException fourth = new IllegalStateException("d");
            assertThatThrownBy(() -> ConcurrentFailures.routed(failingTwice(third, fourth).next()).block()).isSameAs(third);
            assertThat(third.getSuppressed()).contains(fourth);
        } finally {
            Hooks.resetOnErrorDropped();
        }
        assertThat(dropped).isEmpty();
    }

    @Test
    void withoutRoutingReactorWouldDropIt() {
        List<Throwable> dropped = new CopyOnWriteArrayList<>();
        Hooks.onErrorDropped(dropped::add);
        try {
            RuntimeException second = new IllegalStateException("b");
            assertThatThrownBy(() -> failingTwice(new IllegalStateException("a"), second).map(i -> i + 1).blockLast());
        } finally {
            Hooks.resetOnErrorDropped();
        }
        assertThat(dropped).hasSize(1);
    }
}
