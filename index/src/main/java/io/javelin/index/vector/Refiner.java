package io.javelin.index.vector;

/**
 * Exact re-ranking for {@code refine_factor}: given candidate row ids, returns their original
 * vectors (row-major f32, {@code rowIds.length × dim}), e.g. through a take on the dataset.
 * Lance then reports the exact {@code _distance}.
 */
@FunctionalInterface
public interface Refiner {

    float[] vectors(long[] rowIds);

    /** Re-ranks candidates by exact distance to {@code query}; returns the best {@code k}. */
    static Neighbor[] refine(Neighbor[] candidates, float[] originalVectors, float[] query, int dim, int k, DistanceType type) {
        if (originalVectors.length != candidates.length * dim) {
            throw new IllegalArgumentException("Refine got " + originalVectors.length + " floats for "
                    + candidates.length + " candidates of dim " + dim);
        }
        TopK top = new TopK(k);
        for (int i = 0; i < candidates.length; i++) {
            top.offer(candidates[i].rowId(), type.f32(query, 0, originalVectors, i * dim, dim));
        }
        return top.sorted();
    }
}
