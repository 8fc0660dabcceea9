package io.javelin.objectstore.throttle;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * One AIMD-controlled token bucket: the limiter of one operation class on one store+bucket.
 * Waits are {@link Mono#delay} on the given scheduler (virtual time in tests), never a sleep.
 */
public final class AimdLimiter {

    private static final Logger LOG = LoggerFactory.getLogger("javelin.objectstore.throttle");

    private final String name;
    private final AimdConfig config;
    private final Scheduler clock;
    private final TokenBucket bucket;
    private final AtomicReference<AimdController.State> state;

    public AimdLimiter(String name, AimdConfig config, Scheduler clock) {
        this.name = name;
        this.config = config;
        this.clock = clock;
        long now = now();
        this.bucket = new TokenBucket(config.burstCapacity(), now);
        this.state = new AtomicReference<>(AimdController.initial(config, now));
    }

    /** Completes when a token is available. */
    public Mono<Void> acquire() {
        long wait = bucket.reserve(rate(), now());
        return wait == 0 ? Mono.empty() : Mono.delay(Duration.ofNanos(wait), clock).then();
    }

    /** Records the outcome of one request. Any non-throttle outcome (even an error) counts as clean. */
    public void record(boolean throttled) {
        long now = now();
        AimdController.State prev;
        AimdController.State next;
        do {
            prev = state.get();
            next = AimdController.update(prev, throttled, now, config);
        } while (!state.compareAndSet(prev, next));
        if (next.rate() != prev.rate() && LOG.isDebugEnabled()) {
            LOG.debug("{}: rate {} -> {} req/s ({})", name, prev.rate(), next.rate(), throttled ? "throttled" : "clean window");
        }
    }

    public double rate() {
        return state.get().rate();
    }

    public AimdConfig config() {
        return config;
    }

    public String name() {
        return name;
    }

    private long now() {
        return clock.now(TimeUnit.NANOSECONDS);
    }
}
