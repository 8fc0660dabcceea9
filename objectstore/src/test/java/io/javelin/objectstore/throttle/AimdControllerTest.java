package io.javelin.objectstore.throttle;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class AimdControllerTest {

    private static final long S = 1_000_000_000L;
    private static final AimdConfig C = AimdConfig.DEFAULTS;

    private static AimdController.State at(AimdController.State s, boolean throttled, double seconds) {
        return AimdController.update(s, throttled, (long) (seconds * S), C);
    }

    @Test
    void firstThrottleInAWindowHalvesAtOnceAndOnlyOnce() {
        var s = AimdController.initial(C, 0);
        s = at(s, false, 0.1);
        s = at(s, true, 0.5);
        assertThat(s.rate()).isEqualTo(1000);
        s = at(s, true, 0.6);
        s = at(s, true, 0.9);
        assertThat(s.rate()).as("one decrease per window").isEqualTo(1000);
        s = at(s, true, 1.2);
        assertThat(s.rate()).as("next window throttled again").isEqualTo(500);
    }

    @Test
    void cleanWindowsAddTheIncrementUpToTheCeiling() {
        var s = AimdController.initial(C, 0);
        int windows = 0;
        for (int w = 0; s.rate() < 5000; w++) {
            s = at(s, false, w + 0.5);
            windows = w;
        }
        // 2000 -> 5000 in 10 clean windows (+300 each), as Lance documents.
        assertThat(windows).isEqualTo(10);
        s = at(s, false, 20.5);
        s = at(s, false, 21.5);
        assertThat(s.rate()).isEqualTo(5000);
    }

    @Test
    void rateNeverGoesBelowTheFloor() {
        var s = AimdController.initial(C, 0);
        for (int w = 0; w < 30; w++) {
            s = at(s, true, w + 0.5);
        }
        assertThat(s.rate()).isEqualTo(1);
    }

    @Test
    void emptyWindowsChangeNothing() {
        var s = AimdController.initial(C, 0);
        s = at(s, true, 0.5); // 1000
        s = at(s, false, 7.5); // windows 1..6 empty; window 0 had a throttle: no increase
        assertThat(s.rate()).isEqualTo(1000);
        s = at(s, false, 8.5); // window 7 was clean
        assertThat(s.rate()).isEqualTo(1300);
    }

    @Test
    void noCeilingWhenMaxIsZero() {
        AimdConfig c = C.withRates(2000, 1, 0);
        var s = AimdController.initial(c, 0);
        for (int w = 0; w < 20; w++) {
            s = AimdController.update(s, false, (long) ((w + 0.5) * S), c);
        }
        assertThat(s.rate()).isGreaterThan(7000);
    }

    /**
     * Closed-loop simulation on a virtual clock: clients send as fast as the token bucket allows, the
     * server throttles every request above R in each second. The achieved rate must settle near R.
     */
    @Test
    void convergesNearTheServersLimit() {
        double r = 1000;
        SimResult res = simulate(r, 60);
        System.out.printf("AIMD vs server limit %.0f req/s: mean admitted %.0f req/s (%.0f%% of R), mean offered %.0f req/s,"
                + " throttled %.1f%%%n", r, res.admitted, 100 * res.admitted / r, res.offered, 100 * res.throttledFraction);
        assertThat(res.admitted).isBetween(0.7 * r, 1.0 * r);
        assertThat(res.offered).isBetween(0.7 * r, 1.3 * r);
    }

    record SimResult(double admitted, double offered, double throttledFraction) {
    }

    static SimResult simulate(double limit, int seconds) {
        AimdConfig c = C;
        var bucket = new TokenBucket(c.burstCapacity(), 0);
        var state = AimdController.initial(c, 0);
        long now = 0;
        long serverWindow = 0;
        long serverCount = 0;
        long admitted = 0;
        long offered = 0;
        long throttled = 0;
        long measureFrom = 20 * S;
        while (now < seconds * S) {
            long wait = bucket.reserve(state.rate(), now);
            now += wait;
            if (now - serverWindow >= S) {
                serverWindow = now - (now - serverWindow) % S;
                serverCount = 0;
            }
            boolean ok = ++serverCount <= limit;
            state = AimdController.update(state, !ok, now, c);
            if (now >= measureFrom) {
                offered++;
                if (ok) {
                    admitted++;
                } else {
                    throttled++;
                }
            }
        }
        double span = (seconds * S - measureFrom) / (double) S;
        return new SimResult(admitted / span, offered / span, throttled / (double) Math.max(1, offered));
    }

    @Test
    void windowLengthComesFromTheConfig() {
        assertThat(C.window()).isEqualTo(Duration.ofSeconds(1));
    }
}
