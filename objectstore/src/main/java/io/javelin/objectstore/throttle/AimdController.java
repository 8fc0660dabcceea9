package io.javelin.objectstore.throttle;

/**
 * The AIMD rate update as a pure function over {@link State}: no clock, no threads, no side
 * effects, so it is tested exhaustively with made-up timestamps.
 *
 * <p>Time is cut into fixed windows. The first throttle seen in a window multiplies the rate by
 * the decrease factor at once (so a burst of 503s halves the rate within that window, and only
 * once per window). A window that ends with outcomes and no throttle adds the additive increment.
 * A window with no outcomes changes nothing. Rates stay within [min, max] (max 0 = no ceiling).
 * Windows are evaluated lazily, at the first outcome after they end; there is no timer.
 */
public final class AimdController {

    private AimdController() {
    }

    /**
     * Rate and the running window.
     *
     * @param rate        current rate, requests/s
     * @param windowStart start of the current window, nanoseconds on the caller's clock
     * @param outcomes    outcomes recorded in the current window
     * @param throttles   throttles recorded in the current window
     */
    public record State(double rate, long windowStart, long outcomes, long throttles) {
    }

    public static State initial(AimdConfig config, long nowNanos) {
        return new State(config.initialRate(), nowNanos, 0, 0);
    }

    /** The state after recording one outcome ({@code throttled} or not) at {@code nowNanos}. */
    public static State update(State s, boolean throttled, long nowNanos, AimdConfig c) {
        long window = c.window().toNanos();
        double rate = s.rate();
        long windowStart = s.windowStart();
        long outcomes = s.outcomes();
        long throttles = s.throttles();
        long elapsed = nowNanos - windowStart;
        if (elapsed >= window) {
            if (outcomes > 0 && throttles == 0) {
                rate = clamp(rate + c.additiveIncrement(), c);
            }
            // Skip empty windows: they leave the rate unchanged. Stay aligned to the window grid.
            windowStart = nowNanos - (elapsed % window);
            outcomes = 0;
            throttles = 0;
        }
        outcomes++;
        if (throttled) {
            if (throttles == 0) {
                rate = clamp(rate * c.decreaseFactor(), c);
            }
            throttles++;
        }
        return new State(rate, windowStart, outcomes, throttles);
    }

    private static double clamp(double rate, AimdConfig c) {
        double r = Math.max(rate, c.minRate());
        return c.maxRate() > 0 ? Math.min(r, c.maxRate()) : r;
    }
}
