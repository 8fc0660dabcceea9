package io.javelin.objectstore.throttle;

/**
 * A token bucket whose refill rate is supplied on each call (the AIMD rate). A reservation always
 * takes a token, letting the balance go negative, and returns how long the caller must wait:
 * waiters queue up behind each other instead of waking together.
 *
 * <p>Critical sections are a few arithmetic operations under the monitor; nothing parks.
 */
final class TokenBucket {

    private final double capacity;
    private double tokens;
    private long lastRefill;

    TokenBucket(double capacity, long nowNanos) {
        this.capacity = capacity;
        this.tokens = capacity;
        this.lastRefill = nowNanos;
    }

    /** Takes one token; returns the nanoseconds to wait before using it (0 = now). */
    synchronized long reserve(double ratePerSecond, long nowNanos) {
        if (nowNanos > lastRefill) {
            tokens = Math.min(capacity, tokens + (nowNanos - lastRefill) * ratePerSecond / 1e9);
            lastRefill = nowNanos;
        }
        tokens -= 1;
        if (tokens >= 0) {
            return 0;
        }
        return (long) Math.ceil(-tokens / ratePerSecond * 1e9);
    }
}
