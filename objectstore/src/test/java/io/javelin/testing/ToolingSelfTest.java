package io.javelin.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;
import static org.junit.platform.testkit.engine.EventConditions.finishedSuccessfully;
import static org.junit.platform.testkit.engine.EventConditions.finishedWithFailure;
import static org.junit.platform.testkit.engine.TestExecutionResultConditions.instanceOf;
import static org.junit.platform.testkit.engine.TestExecutionResultConditions.message;

import io.javelin.objectstore.memory.OffHeap;
import java.lang.foreign.Arena;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.platform.testkit.engine.EngineTestKit;
import reactor.blockhound.BlockingOperationError;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/** Proves that the shared test tooling really fails tests: leaks and blocking calls are caught. */
class ToolingSelfTest {

    @Test
    void leakCheckFailsATestThatLeavesAnArenaOpen() {
        System.setProperty("javelin.leakcheck.graceMillis", "50");
        var results = EngineTestKit.engine("junit-jupiter")
                .configurationParameter("junit.jupiter.extensions.autodetection.enabled", "true")
                .selectors(selectClass(LeakingFixture.class))
                .execute();
        try {
            results.testEvents().assertThatEvents()
                    .haveExactly(1, finishedWithFailure(
                            instanceOf(LeakCheckExtension.OffHeapLeakError.class),
                            message(m -> m.contains("off-heap leak") && m.contains("fixture-leak"))))
                    .haveExactly(1, finishedSuccessfully());
        } finally {
            System.clearProperty("javelin.leakcheck.graceMillis");
            LeakingFixture.leaked.close();
        }
    }

    @Test
    void blockHoundRejectsBlockingOnANonBlockingThread() {
        Mono<Integer> blocking = Mono.fromCallable(() -> {
            Thread.sleep(5);
            return 1;
        }).subscribeOn(Schedulers.parallel());
        StepVerifier.create(blocking)
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(BlockingOperationError.class)
                        .hasMessageContaining("Blocking call"))
                .verify(Duration.ofSeconds(10));
    }

    @Test
    void blockingIsAllowedOnBoundedElastic() {
        Mono<Integer> blocking = Mono.fromCallable(() -> {
            Thread.sleep(5);
            return 1;
        }).subscribeOn(Schedulers.boundedElastic());
        StepVerifier.create(blocking).expectNext(1).verifyComplete();
    }

    /** Not run by surefire (name does not end in Test); run above through the test kit. */
    static class LeakingFixture {
        static Arena leaked;

        @Test
        void leaks() {
            leaked = OffHeap.newArena("fixture-leak");
            leaked.allocate(64);
        }

        @Test
        void closesItsArena() {
            try (Arena arena = OffHeap.newArena("fixture-ok")) {
                arena.allocate(64);
            }
        }
    }
}
