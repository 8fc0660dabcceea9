package io.javelin.index.vector;

/** One search result: a row address (or stable row id) and its {@code _distance}. */
public record Neighbor(long rowId, float distance) implements Comparable<Neighbor> {

    /** Ascending distance, then ascending row id (a total order, so results are deterministic). */
    @Override
    public int compareTo(Neighbor o) {
        int c = Float.compare(distance, o.distance);
        return c != 0 ? c : Long.compare(rowId, o.rowId);
    }
}
