package io.javelin.objectstore.throttle;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

/** The limiter on a virtual clock: no test here sleeps. */
class AimdLimiterTest {

    @Test
    void burstIsImmediateThenTokensArriveAtTheRate() {
        VirtualTimeScheduler vts = VirtualTimeScheduler.create();
        AimdLimiter l = new AimdLimiter("t", AimdConfig.DEFAULTS.withRates(100, 1, 5000).withBurstCapacity(10), vts);
        StepVerifier.withVirtualTime(() -> Flux.range(0, 30).concatMap(i -> l.acquire().thenReturn(i)), () -> vts, Long.MAX_VALUE)
                .expectSubscription()
                .expectNextCount(10) // the burst
                .expectNoEvent(Duration.ofMillis(9))
                .thenAwait(Duration.ofMillis(1))
                .expectNext(10)
                .thenAwait(Duration.ofMillis(190))
                .expectNextCount(19)
                .verifyComplete();
    }

    @Test
    void throttleHalvesTheRateAndSlowsTokens() {
        VirtualTimeScheduler vts = VirtualTimeScheduler.create();
        AimdLimiter l = new AimdLimiter("t", AimdConfig.DEFAULTS.withBurstCapacity(1), vts);
        assertThat(l.rate()).isEqualTo(2000);
        l.record(true);
        assertThat(l.rate()).isEqualTo(1000);
        l.record(true);
        assertThat(l.rate()).isEqualTo(1000);
        vts.advanceTimeBy(Duration.ofSeconds(1));
        l.record(false);
        vts.advanceTimeBy(Duration.ofSeconds(1));
        l.record(false);
        assertThat(l.rate()).isEqualTo(1300);
    }
}
