package io.javelin.engine;

import io.javelin.tx.commit.CommitResult;
import io.javelin.tx.maintenance.CleanupPolicy;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * Lance's auto-cleanup on commit: when the committed table config holds {@code lance.auto_cleanup.interval}
 * and the new version is a multiple of it, versions older than {@code lance.auto_cleanup.older_than}
 * (default 14 days) are cleaned up. The gate reads only the manifest in hand; a failed cleanup is
 * logged, never the commit's failure (the commit already succeeded).
 */
final class AutoCleanup {

    static final String INTERVAL = "lance.auto_cleanup.interval";
    static final String OLDER_THAN = "lance.auto_cleanup.older_than";
    static final Duration DEFAULT_OLDER_THAN = Duration.ofDays(14);

    private static final Logger LOG = LoggerFactory.getLogger(AutoCleanup.class);
    private static final Pattern PART = Pattern.compile("(\\d+)\\s*(ms|s|sec|secs|m|min|mins|h|hr|hrs|d|day|days|w|week|weeks)");

    private AutoCleanup() {
    }

    static Mono<Void> afterCommit(Dataset.Handle h, CommitResult r) {
        Map<String, String> config = r.manifest().manifest().getConfigMap();
        String interval = config.get(INTERVAL);
        if (interval == null) {
            return Mono.empty();
        }
        long every;
        Duration olderThan;
        try {
            every = Long.parseLong(interval.trim());
            olderThan = config.containsKey(OLDER_THAN) ? parse(config.get(OLDER_THAN)) : DEFAULT_OLDER_THAN;
        } catch (IllegalArgumentException e) {
            LOG.warn("auto-cleanup of {} skipped: {}", h.uri, e.getMessage());
            return Mono.empty();
        }
        if (every <= 0 || r.version() % every != 0) {
            return Mono.empty();
        }
        Instant now = Instant.now();
        return Cleanup.run(h, CleanupPolicy.olderThan(now.minus(olderThan)), now)
                .doOnNext(s -> LOG.debug("auto-cleanup of {} at version {}: {} version(s) removed", h.uri, r.version(), s.oldVersions()))
                .onErrorResume(e -> {
                    LOG.warn("auto-cleanup of {} at version {} failed: {}", h.uri, r.version(), e.toString());
                    return Mono.empty();
                })
                .then();
    }

    /** A humantime-style duration as Lance writes them: {@code 3600s}, {@code 14d}, {@code 1h 30m}. */
    static Duration parse(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        Matcher m = PART.matcher(t);
        Duration d = Duration.ZERO;
        int at = 0;
        while (m.find()) {
            if (!t.substring(at, m.start()).isBlank()) {
                break;
            }
            long n = Long.parseLong(m.group(1));
            d = d.plus(switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "s", "sec", "secs" -> Duration.ofSeconds(n);
                case "m", "min", "mins" -> Duration.ofMinutes(n);
                case "h", "hr", "hrs" -> Duration.ofHours(n);
                case "d", "day", "days" -> Duration.ofDays(n);
                default -> Duration.ofDays(7 * n);
            });
            at = m.end();
        }
        if (at == 0 || !t.substring(at).isBlank()) {
            throw new IllegalArgumentException("Invalid " + OLDER_THAN + " '" + text + "' (e.g. 3600s, 14d, 1h 30m)");
        }
        return d;
    }
}
