package io.javelin.index;

/**
 * A predicate over row addresses (or stable row ids): prefilter allow-lists, deletion masks and
 * their combinations. Implementations must be cheap and side-effect free; they are called per
 * candidate row inside search loops.
 */
@FunctionalInterface
public interface RowFilter {

    /** Lets every row through. */
    RowFilter ALL = row -> true;

    boolean allows(long rowId);

    default RowFilter and(RowFilter other) {
        if (this == ALL) {
            return other;
        }
        if (other == ALL) {
            return this;
        }
        return row -> allows(row) && other.allows(row);
    }

    /** Rows this filter allows that {@code blocked} does not contain (e.g. an allow-list minus deletions). */
    default RowFilter without(RowFilter blocked) {
        return row -> allows(row) && !blocked.allows(row);
    }
}
