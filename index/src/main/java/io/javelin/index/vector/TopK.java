package io.javelin.index.vector;

import java.util.Arrays;

/**
 * Bounded collector of the {@code k} smallest (distance, row id) pairs, ordered by distance and then
 * by row id. A binary max-heap over parallel primitive arrays: no boxing in the hot loop.
 */
public final class TopK {

    private final int k;
    private final float[] dist;
    private final long[] rows;
    private int size;

    public TopK(int k) {
        if (k <= 0) {
            throw new IllegalArgumentException("Invalid k: " + k + " (must be > 0)");
        }
        this.k = k;
        this.dist = new float[k];
        this.rows = new long[k];
    }

    public int k() {
        return k;
    }

    public int size() {
        return size;
    }

    public boolean isFull() {
        return size == k;
    }

    /** The current k-th distance (+inf while not full): candidates above it cannot enter. */
    public float threshold() {
        return size < k ? Float.POSITIVE_INFINITY : dist[0];
    }

    private static boolean greater(float d1, long r1, float d2, long r2) {
        int c = Float.compare(d1, d2);
        return c > 0 || (c == 0 && r1 > r2);
    }

    /** Offers a candidate; returns true when it was kept. NaN distances sort last. */
    public boolean offer(long row, float d) {
        if (size < k) {
            int i = size++;
            dist[i] = d;
            rows[i] = row;
            siftUp(i);
            return true;
        }
        if (!greater(dist[0], rows[0], d, row)) {
            return false;
        }
        dist[0] = d;
        rows[0] = row;
        siftDown(0);
        return true;
    }

    private void siftUp(int i) {
        while (i > 0) {
            int p = (i - 1) >>> 1;
            if (!greater(dist[i], rows[i], dist[p], rows[p])) {
                break;
            }
            swap(i, p);
            i = p;
        }
    }

    private void siftDown(int i) {
        while (true) {
            int l = 2 * i + 1;
            if (l >= size) {
                return;
            }
            int m = l;
            int r = l + 1;
            if (r < size && greater(dist[r], rows[r], dist[l], rows[l])) {
                m = r;
            }
            if (!greater(dist[m], rows[m], dist[i], rows[i])) {
                return;
            }
            swap(i, m);
            i = m;
        }
    }

    private void swap(int a, int b) {
        float d = dist[a];
        dist[a] = dist[b];
        dist[b] = d;
        long r = rows[a];
        rows[a] = rows[b];
        rows[b] = r;
    }

    /** The collected neighbours, nearest first. */
    public Neighbor[] sorted() {
        Neighbor[] out = new Neighbor[size];
        for (int i = 0; i < size; i++) {
            out[i] = new Neighbor(rows[i], dist[i]);
        }
        Arrays.sort(out);
        return out;
    }
}
