package io.javelin.index.rowid;

/**
 * What an index query returns (Lance's {@code SearchResult}): {@link Exact} rows; {@link AtMost} a
 * superset (the caller re-checks the predicate on those rows); {@link AtLeast} a subset (rows not
 * in it must still be scanned; {@code AtLeast(∅)} means "the index cannot help").
 */
public sealed interface SearchResult {

    RowAddrTreeMap rows();

    record Exact(RowAddrTreeMap rows) implements SearchResult {
    }

    record AtMost(RowAddrTreeMap rows) implements SearchResult {
    }

    record AtLeast(RowAddrTreeMap rows) implements SearchResult {
    }

    /** Conjunction: an upper bound stays an upper bound; a lower bound only survives with exact or lower bounds. */
    static SearchResult and(SearchResult a, SearchResult b) {
        RowAddrTreeMap x = RowAddrTreeMap.and(a.rows(), b.rows());
        if (a instanceof Exact && b instanceof Exact) {
            return new Exact(x);
        }
        boolean aLeast = a instanceof AtLeast, bLeast = b instanceof AtLeast;
        if (!aLeast && !bLeast) {
            return new AtMost(x);
        }
        if (aLeast && bLeast || a instanceof Exact || b instanceof Exact) {
            return new AtLeast(x);
        }
        // AtLeast ∧ AtMost: the truth is inside the AtMost side
        return new AtMost((aLeast ? b : a).rows().copy());
    }

    /** Disjunction. */
    static SearchResult or(SearchResult a, SearchResult b) {
        RowAddrTreeMap x = RowAddrTreeMap.or(a.rows(), b.rows());
        if (a instanceof Exact && b instanceof Exact) {
            return new Exact(x);
        }
        boolean aLeast = a instanceof AtLeast, bLeast = b instanceof AtLeast;
        if (!aLeast && !bLeast) {
            return new AtMost(x);
        }
        if (aLeast && bLeast || a instanceof Exact || b instanceof Exact) {
            return new AtLeast(x);
        }
        // AtLeast ∨ AtMost: only the lower bound is known
        return new AtLeast((aLeast ? a : b).rows().copy());
    }
}
