package io.javelin.index.vector;

import io.javelin.index.RowFilter;

/**
 * One ANN query, with Lance's knobs. {@code minNprobes}/{@code maxNprobes}: search at least the
 * nearest {@code minNprobes} partitions, and keep probing (up to {@code maxNprobes}, 0 = all) while
 * fewer than {@code k·refine} candidates passed the filters. {@code refineFactor} 0 means no
 * refine. {@code prefilter} is an allow-list applied inside the index (complete results);
 * {@code deleted} rows are always masked; {@code postfilter} runs on the final top-k (may return
 * fewer than k, as Lance's default {@code prefilter=false}).
 */
public record VectorQuery(
        float[] vector, int k, int minNprobes, int maxNprobes, int refineFactor,
        RowFilter prefilter, RowFilter deleted, RowFilter postfilter, int ef) {

    public VectorQuery {
        if (k <= 0) {
            throw new IllegalArgumentException("Invalid k: " + k + " (must be > 0)");
        }
        if (refineFactor < 0) {
            throw new IllegalArgumentException("Invalid refine_factor: " + refineFactor + " (must be >= 0)");
        }
        if (minNprobes < 1) {
            throw new IllegalArgumentException("Invalid minimum_nprobes: " + minNprobes + " (must be >= 1)");
        }
        if (maxNprobes != 0 && maxNprobes < minNprobes) {
            throw new IllegalArgumentException("maximum_nprobes " + maxNprobes + " < minimum_nprobes " + minNprobes);
        }
    }

    /** k nearest with Lance's defaults: minimum_nprobes 1, maximum_nprobes all, no refine, no filters. */
    public static VectorQuery of(float[] vector, int k) {
        return new VectorQuery(vector, k, 1, 0, 0, RowFilter.ALL, row -> false, RowFilter.ALL, 0);
    }

    /** {@code nprobes(n)} sets both the minimum and the maximum, as Lance's API does. */
    public VectorQuery withNprobes(int n) {
        return new VectorQuery(vector, k, n, n, refineFactor, prefilter, deleted, postfilter, ef);
    }

    public VectorQuery withNprobes(int min, int max) {
        return new VectorQuery(vector, k, min, max, refineFactor, prefilter, deleted, postfilter, ef);
    }

    public VectorQuery withRefineFactor(int rf) {
        return new VectorQuery(vector, k, minNprobes, maxNprobes, rf, prefilter, deleted, postfilter, ef);
    }

    public VectorQuery withPrefilter(RowFilter allowed) {
        return new VectorQuery(vector, k, minNprobes, maxNprobes, refineFactor, allowed, deleted, postfilter, ef);
    }

    public VectorQuery withDeleted(RowFilter deletedRows) {
        return new VectorQuery(vector, k, minNprobes, maxNprobes, refineFactor, prefilter, deletedRows, postfilter, ef);
    }

    public VectorQuery withPostfilter(RowFilter keep) {
        return new VectorQuery(vector, k, minNprobes, maxNprobes, refineFactor, prefilter, deleted, keep, ef);
    }

    /** HNSW beam width ({@code ef}); 0 means Lance's default {@code k' + k'/2} with {@code k' = k·refine}. */
    public VectorQuery withEf(int ef) {
        return new VectorQuery(vector, k, minNprobes, maxNprobes, refineFactor, prefilter, deleted, postfilter, ef);
    }

    /** Candidates collected before refine: {@code k·refine_factor} (or k). */
    public int candidates() {
        return k * Math.max(1, refineFactor);
    }

    /** The filter applied inside the index: allowed by the prefilter and not deleted. */
    public RowFilter inIndexFilter() {
        return prefilter.without(deleted);
    }
}
