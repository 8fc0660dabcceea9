package io.javelin.tx.transaction;

/** The verdict of checking one transaction against one committed after its read version. */
public record Resolution(Outcome outcome, String reason) {

    public enum Outcome {
        /** Commit on top of theirs as is. */
        COMPATIBLE,
        /** Compatible after the commit layer fixes the transaction up (e.g. merging deletion vectors). */
        REBASE,
        /** Lance {@code RetryableCommitConflict}: re-run the operation on the new version. */
        RETRYABLE,
        /** Lance {@code CommitConflict}: the operation makes no sense any more; do not retry blindly. */
        INCOMPATIBLE
    }

    static final Resolution COMPATIBLE = new Resolution(Outcome.COMPATIBLE, "compatible");

    static Resolution rebase(String why) {
        return new Resolution(Outcome.REBASE, why);
    }

    static Resolution retry(String why) {
        return new Resolution(Outcome.RETRYABLE, why);
    }

    static Resolution incompatible(String why) {
        return new Resolution(Outcome.INCOMPATIBLE, why);
    }
}
