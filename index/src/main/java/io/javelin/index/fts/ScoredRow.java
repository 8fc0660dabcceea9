package io.javelin.index.fts;

/** A full-text hit: the row id (or address, as the index stores it) and its BM25 {@code _score}. */
public record ScoredRow(long rowId, float score) {

    /** Lance's result order: score descending, then row id ascending. */
    public static int compare(ScoredRow a, ScoredRow b) {
        int c = Float.compare(b.score, a.score);
        return c != 0 ? c : Long.compareUnsigned(a.rowId, b.rowId);
    }
}
