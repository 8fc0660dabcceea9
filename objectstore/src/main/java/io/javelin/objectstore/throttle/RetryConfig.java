package io.javelin.objectstore.throttle;

import java.time.Duration;

/**
 * Retries of transient failures (5xx, timeouts, resets, truncated bodies), with jittered
 * exponential backoff scheduled by Reactor.
 *
 * @param maxRetries     {@code client_max_retries} (3)
 * @param retryTimeout   {@code client_retry_timeout}: no retry starts after this much time (180 s)
 * @param requestTimeout {@code timeout}: one request, body included (30 s); null = none (local
 *                       and memory stores unless {@code timeout} is set: a timer per 4 KiB read
 *                       costs more than the read)
 * @param minBackoff     first backoff (100 ms), doubled each retry
 * @param maxBackoff     backoff cap (15 s)
 */
public record RetryConfig(int maxRetries, Duration retryTimeout, Duration requestTimeout, Duration minBackoff,
        Duration maxBackoff) {

    public static final RetryConfig DEFAULTS = new RetryConfig(3, Duration.ofSeconds(180), Duration.ofSeconds(30),
            Duration.ofMillis(100), Duration.ofSeconds(15));

    public RetryConfig {
        if (maxRetries < 0) {
            throw new IllegalArgumentException("Invalid max retries: " + maxRetries + " (must be >= 0)");
        }
    }

    public RetryConfig withMaxRetries(int n) {
        return new RetryConfig(n, retryTimeout, requestTimeout, minBackoff, maxBackoff);
    }

    public RetryConfig withRequestTimeout(Duration t) {
        return new RetryConfig(maxRetries, retryTimeout, t, minBackoff, maxBackoff);
    }

    public RetryConfig withBackoff(Duration min, Duration max) {
        return new RetryConfig(maxRetries, retryTimeout, requestTimeout, min, max);
    }
}
