package io.javelin.tx.tree;

/**
 * A tree snapshot violates a requirement of the fragment metadata tree specification. Readers
 * raise it as soon as the violating object is decoded; a corrupt snapshot is never read as empty.
 */
public final class CorruptSnapshotException extends RuntimeException {

    private final Rule rule;

    public CorruptSnapshotException(Rule rule, String message) {
        super(rule.name() + ": " + message);
        this.rule = rule;
    }

    public CorruptSnapshotException(Rule rule, String message, Throwable cause) {
        super(rule.name() + ": " + message, cause);
        this.rule = rule;
    }

    /** The rule that was violated. */
    public Rule rule() {
        return rule;
    }

    static void check(boolean ok, Rule rule, String format, Object... args) {
        if (!ok) {
            throw new CorruptSnapshotException(rule, String.format(format, args));
        }
    }
}
