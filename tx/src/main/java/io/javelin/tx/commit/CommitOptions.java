package io.javelin.tx.commit;

import java.time.Clock;
import java.time.Duration;

/**
 * Commit tuning. {@code maxRetries} bounds conflict retries (Lance: 20); {@code maxTransientRetries} bounds
 * retries of one request failing with a transport error; backoffs are jittered and scheduled by Reactor.
 * {@code writeVersionHint} writes {@code latest_version_hint.json} after a commit on stores whose listing
 * is not lexically ordered (as Lance does; best effort).
 */
public record CommitOptions(int maxRetries, Duration backoffBase, Duration backoffMax, int maxTransientRetries,
                            Clock clock, boolean writeVersionHint) {

    public static CommitOptions defaults() {
        return new CommitOptions(20, Duration.ofMillis(50), Duration.ofSeconds(5), 5, Clock.systemUTC(), true);
    }

    public CommitOptions withBackoff(Duration base, Duration max) {
        return new CommitOptions(maxRetries, base, max, maxTransientRetries, clock, writeVersionHint);
    }

    public CommitOptions withMaxRetries(int retries) {
        return new CommitOptions(retries, backoffBase, backoffMax, maxTransientRetries, clock, writeVersionHint);
    }

    public CommitOptions withMaxTransientRetries(int retries) {
        return new CommitOptions(maxRetries, backoffBase, backoffMax, retries, clock, writeVersionHint);
    }
}
