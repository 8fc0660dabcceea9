package io.javelin.index.vector;

import java.util.Random;

/**
 * Seeded clustered vectors with low intrinsic dimension (like real embeddings): {@code clusters}
 * gaussian centres (σ=3); each point is its centre plus a random 12-dimensional linear subspace
 * sample (σ=1) plus small isotropic noise (σ=0.1).
 */
final class SyntheticVectors {

    final int n;
    final int dim;
    final float[] data;
    final long[] rows;

    SyntheticVectors(int n, int dim, int clusters, long seed) {
        this.n = n;
        this.dim = dim;
        Random rnd = new Random(seed);
        float[] centres = new float[clusters * dim];
        for (int i = 0; i < centres.length; i++) {
            centres[i] = (float) (3 * rnd.nextGaussian());
        }
        int latent = 12;
        float[] basis = new float[latent * dim];
        for (int i = 0; i < basis.length; i++) {
            basis[i] = (float) (rnd.nextGaussian() / Math.sqrt(latent));
        }
        data = new float[n * dim];
        rows = new long[n];
        float[] z = new float[latent];
        for (int i = 0; i < n; i++) {
            int c = rnd.nextInt(clusters);
            for (int l = 0; l < latent; l++) {
                z[l] = (float) (2 * rnd.nextGaussian());
            }
            for (int d = 0; d < dim; d++) {
                float v = centres[c * dim + d] + (float) (0.1 * rnd.nextGaussian());
                for (int l = 0; l < latent; l++) {
                    v += z[l] * basis[l * dim + d];
                }
                data[i * dim + d] = v;
            }
            // row addresses over two fragments: (frag << 32) | offset
            rows[i] = i < n / 2 ? i : (1L << 32) | (i - n / 2);
        }
    }

    float[] queryNear(int row, Random rnd, double noise) {
        float[] q = new float[dim];
        for (int d = 0; d < dim; d++) {
            q[d] = data[row * dim + d] + (float) (noise * rnd.nextGaussian());
        }
        return q;
    }

    float[] vectorsOf(long[] ids) {
        float[] out = new float[ids.length * dim];
        for (int i = 0; i < ids.length; i++) {
            int idx = indexOf(ids[i]);
            System.arraycopy(data, idx * dim, out, i * dim, dim);
        }
        return out;
    }

    int indexOf(long row) {
        int frag = (int) (row >>> 32);
        int off = (int) row;
        return frag == 0 ? off : n / 2 + off;
    }

    static double recall(Neighbor[] truth, Neighbor[] got) {
        java.util.Set<Long> t = new java.util.HashSet<>();
        for (Neighbor nb : truth) {
            t.add(nb.rowId());
        }
        int hit = 0;
        for (Neighbor nb : got) {
            if (t.contains(nb.rowId())) {
                hit++;
            }
        }
        return truth.length == 0 ? 1 : (double) hit / truth.length;
    }
}
