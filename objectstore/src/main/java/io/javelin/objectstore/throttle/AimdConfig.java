package io.javelin.objectstore.throttle;

import java.time.Duration;

/**
 * AIMD settings, named as Lance names them ({@code lance_aimd_*} options, {@code LANCE_AIMD_*}
 * environment variables).
 *
 * @param initialRate        requests/s at start (2000)
 * @param minRate            floor (1)
 * @param maxRate            ceiling (5000); 0 means no ceiling
 * @param decreaseFactor     multiplier applied when a window saw a throttle (0.5)
 * @param additiveIncrement  requests/s added after a clean window (300)
 * @param burstCapacity      token-bucket capacity (100)
 * @param window             evaluation window (1 s)
 * @param maxRetries         retries of a throttled request inside the AIMD layer (3); 0 disables AIMD
 * @param minBackoff         lower bound of the jittered throttle backoff (100 ms)
 * @param maxBackoff         upper bound of the jittered throttle backoff (300 ms)
 */
public record AimdConfig(double initialRate, double minRate, double maxRate, double decreaseFactor,
        double additiveIncrement, double burstCapacity, Duration window, int maxRetries,
        Duration minBackoff, Duration maxBackoff) {

    public static final AimdConfig DEFAULTS = new AimdConfig(2000, 1, 5000, 0.5, 300, 100,
            Duration.ofSeconds(1), 3, Duration.ofMillis(100), Duration.ofMillis(300));

    public AimdConfig {
        if (minRate <= 0) {
            throw new IllegalArgumentException("Invalid AIMD min rate: " + minRate + " (must be > 0)");
        }
        if (maxRate != 0 && maxRate < minRate) {
            throw new IllegalArgumentException("Invalid AIMD max rate: " + maxRate + " (must be 0 or >= min rate " + minRate + ")");
        }
        if (initialRate < minRate || (maxRate != 0 && initialRate > maxRate)) {
            throw new IllegalArgumentException("Invalid AIMD initial rate: " + initialRate
                    + " (must be within [" + minRate + ", " + (maxRate == 0 ? "inf" : maxRate) + "])");
        }
        if (decreaseFactor <= 0 || decreaseFactor >= 1) {
            throw new IllegalArgumentException("Invalid AIMD decrease factor: " + decreaseFactor + " (must be in (0, 1))");
        }
        if (additiveIncrement < 0) {
            throw new IllegalArgumentException("Invalid AIMD additive increment: " + additiveIncrement + " (must be >= 0)");
        }
        if (burstCapacity < 1) {
            throw new IllegalArgumentException("Invalid AIMD burst capacity: " + burstCapacity + " (must be >= 1)");
        }
        if (window.isNegative() || window.isZero()) {
            throw new IllegalArgumentException("Invalid AIMD window: " + window + " (must be > 0)");
        }
        if (maxRetries < 0) {
            throw new IllegalArgumentException("Invalid AIMD max retries: " + maxRetries + " (must be >= 0)");
        }
        if (minBackoff.compareTo(maxBackoff) > 0) {
            throw new IllegalArgumentException("Invalid AIMD backoff: min " + minBackoff + " > max " + maxBackoff);
        }
    }

    /** False when {@code lance_aimd_max_retries=0}, which turns the whole layer off (as in Lance). */
    public boolean enabled() {
        return maxRetries > 0;
    }

    public AimdConfig withInitialRate(double r) {
        return new AimdConfig(r, minRate, maxRate, decreaseFactor, additiveIncrement, burstCapacity, window,
                maxRetries, minBackoff, maxBackoff);
    }

    public AimdConfig withRates(double initial, double min, double max) {
        return new AimdConfig(initial, min, max, decreaseFactor, additiveIncrement, burstCapacity, window,
                maxRetries, minBackoff, maxBackoff);
    }

    public AimdConfig withBurstCapacity(double burst) {
        return new AimdConfig(initialRate, minRate, maxRate, decreaseFactor, additiveIncrement, burst, window,
                maxRetries, minBackoff, maxBackoff);
    }

    public AimdConfig withAdditiveIncrement(double inc) {
        return new AimdConfig(initialRate, minRate, maxRate, decreaseFactor, inc, burstCapacity, window,
                maxRetries, minBackoff, maxBackoff);
    }

    public AimdConfig withRetries(int retries, Duration minB, Duration maxB) {
        return new AimdConfig(initialRate, minRate, maxRate, decreaseFactor, additiveIncrement, burstCapacity,
                window, retries, minB, maxB);
    }
}
