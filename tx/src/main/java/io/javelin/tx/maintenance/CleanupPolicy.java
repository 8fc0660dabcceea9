package io.javelin.tx.maintenance;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * Which versions cleanup removes (Lance {@code CleanupPolicy}): a version is old when its commit time is
 * before {@code beforeTimestamp} and its number is below {@code beforeVersion} (an unset condition always
 * holds). The latest version and tagged versions are never removed.
 *
 * @param deleteUnverified         also delete unreferenced files younger than 7 days that no old version
 *                                 names (only safe when no write is in progress)
 * @param errorIfTaggedOldVersions fail instead of silently keeping old tagged versions (Lance's default is
 *                                 true; this engine's is false: tags simply protect their versions)
 */
public record CleanupPolicy(Instant beforeTimestamp, Long beforeVersion, boolean deleteUnverified,
                            boolean errorIfTaggedOldVersions) {

    /** Lance's {@code UNVERIFIED_THRESHOLD_DAYS}. */
    public static final Duration UNVERIFIED_THRESHOLD = Duration.ofDays(7);

    public CleanupPolicy {
        if (beforeTimestamp == null && beforeVersion == null) {
            throw new IllegalArgumentException("A cleanup policy needs a cutoff time or a version");
        }
    }

    public static CleanupPolicy olderThan(Instant cutoff) {
        return new CleanupPolicy(cutoff, null, false, false);
    }

    public static CleanupPolicy beforeVersion(long version) {
        return new CleanupPolicy(null, version, false, false);
    }

    public CleanupPolicy withDeleteUnverified(boolean on) {
        return new CleanupPolicy(beforeTimestamp, beforeVersion, on, errorIfTaggedOldVersions);
    }

    public CleanupPolicy withErrorIfTaggedOldVersions(boolean on) {
        return new CleanupPolicy(beforeTimestamp, beforeVersion, deleteUnverified, on);
    }

    /** Why a version counts as old under this policy, for cleanup explanations. */
    public String describeOld() {
        List<String> parts = new java.util.ArrayList<>();
        if (beforeTimestamp != null) {
            parts.add("committed before " + beforeTimestamp);
        }
        if (beforeVersion != null) {
            parts.add("numbered below " + beforeVersion);
        }
        return String.join(" and ", parts);
    }

    public boolean isOld(long version, Instant committed) {
        boolean old = true;
        if (beforeTimestamp != null) {
            old &= committed.isBefore(beforeTimestamp);
        }
        if (beforeVersion != null) {
            old &= version < beforeVersion;
        }
        return old;
    }
}
