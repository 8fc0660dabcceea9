package io.javelin.objectstore.throttle;

import io.javelin.objectstore.ObjectAlreadyExistsException;
import io.javelin.objectstore.ObjectStoreTimeoutException;
import io.javelin.objectstore.OpClass;
import io.javelin.objectstore.ThrottledException;
import io.javelin.objectstore.TransientObjectStoreException;
import io.javelin.objectstore.metrics.StoreCounters;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.util.retry.Retry;

/**
 * Runs one logical request: takes an AIMD token for its operation class, applies the request
 * timeout, feeds the outcome to the limiter, and retries.
 *
 * <ul>
 *   <li>Throttles are retried up to {@code lance_aimd_max_retries} times after a uniform random
 *       backoff in [min, max], re-acquiring a token each time; after that they count as transient.
 *   <li>Transient failures are retried up to {@code client_max_retries} times with exponential
 *       backoff (full jitter between half and the whole step), within {@code client_retry_timeout}.
 *   <li>Everything else fails at once.
 * </ul>
 * All waits are {@link Mono#delay} on the policy's scheduler: no thread ever sleeps.
 *
 * <p>The SDK clients are built with their own retries off, so these are the only retries and
 * the limiter sees every response.
 */
public final class RequestPolicy {

    private final StoreLimiters limiters;
    private final RetryConfig retry;
    private final StoreCounters counters;
    private final Scheduler scheduler;

    /**
     * @param limiters null for stores that are not throttled (local, memory) or when AIMD is off
     */
    public RequestPolicy(StoreLimiters limiters, RetryConfig retry, StoreCounters counters, Scheduler scheduler) {
        this.limiters = limiters;
        this.retry = retry;
        this.counters = counters;
        this.scheduler = scheduler;
    }

    public RetryConfig retryConfig() {
        return retry;
    }

    public StoreLimiters limiters() {
        return limiters;
    }

    /** Runs an idempotent request with limiting, timeout and retries. */
    public <T> Mono<T> execute(OpClass op, String what, Supplier<Mono<T>> attempt) {
        return run(op, what, attempt, false);
    }

    /**
     * Runs a create-if-absent. If an attempt fails in a way that may have been applied and a later
     * attempt then loses with "already exists", the loss is flagged
     * {@link ObjectAlreadyExistsException#afterAmbiguousAttempt() ambiguous}.
     */
    public <T> Mono<T> executeCreate(String what, Supplier<Mono<T>> attempt) {
        return run(OpClass.WRITE, what, attempt, true);
    }

    private <T> Mono<T> run(OpClass op, String what, Supplier<Mono<T>> attempt, boolean create) {
        AimdLimiter limiter = limiters == null || !limiters.config().enabled() ? null : limiters.get(op);
        return Mono.defer(() -> {
            CallState st = new CallState(scheduler.now(TimeUnit.NANOSECONDS));
            Mono<T> one = Mono.defer(() -> {
                Mono<T> body = Mono.defer(attempt);
                if (retry.requestTimeout() != null) {
                    body = body.timeout(retry.requestTimeout(), scheduler)
                            .onErrorMap(TimeoutException.class,
                                    e -> new ObjectStoreTimeoutException(what, retry.requestTimeout(), e));
                }
                body = body.doOnSuccess(v -> {
                            if (limiter != null) {
                                limiter.record(false);
                            }
                        })
                        .doOnError(e -> {
                            boolean throttled = e instanceof ThrottledException;
                            counters.failure(op);
                            if (throttled) {
                                counters.throttle(op);
                            }
                            if (limiter != null) {
                                limiter.record(throttled);
                            }
                        });
                return limiter == null ? body : limiter.acquire().then(body);
            });
            Mono<T> retried = one.retryWhen(Retry.from(signals -> signals.concatMap(sig -> {
                Throwable f = sig.failure();
                Duration wait = nextWait(st, f, limiter);
                if (wait == null) {
                    return Mono.<Long>error(f);
                }
                if (f instanceof TransientObjectStoreException) {
                    st.ambiguous = f;
                }
                counters.retry(op);
                return Mono.delay(wait, scheduler);
            })));
            if (!create) {
                return retried;
            }
            return retried.onErrorMap(ObjectAlreadyExistsException.class,
                    e -> st.ambiguous == null ? e : e.asAmbiguous(st.ambiguous));
        });
    }

    private Duration nextWait(CallState st, Throwable f, AimdLimiter limiter) {
        if (f instanceof ThrottledException && limiter != null && st.throttleRetries < limiter.config().maxRetries()) {
            st.throttleRetries++;
            AimdConfig c = limiter.config();
            long min = c.minBackoff().toNanos();
            long max = c.maxBackoff().toNanos();
            return Duration.ofNanos(max > min ? ThreadLocalRandom.current().nextLong(min, max + 1) : min);
        }
        if (!(f instanceof TransientObjectStoreException) || st.transientRetries >= retry.maxRetries()) {
            return null;
        }
        long elapsed = scheduler.now(TimeUnit.NANOSECONDS) - st.startNanos;
        if (elapsed >= retry.retryTimeout().toNanos()) {
            return null;
        }
        long step = retry.minBackoff().toNanos() << Math.min(st.transientRetries, 30);
        step = Math.min(Math.max(step, 1), retry.maxBackoff().toNanos());
        st.transientRetries++;
        // "Equal jitter": half fixed, half random, so retries spread out but still back off.
        return Duration.ofNanos(step / 2 + ThreadLocalRandom.current().nextLong(step / 2 + 1));
    }

    private static final class CallState {
        final long startNanos;
        int throttleRetries;
        int transientRetries;
        Throwable ambiguous;

        CallState(long startNanos) {
            this.startNanos = startNanos;
        }
    }
}
