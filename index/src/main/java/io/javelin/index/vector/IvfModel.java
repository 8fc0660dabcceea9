package io.javelin.index.vector;

import io.javelin.index.CorruptIndexException;
import io.javelin.index.pb.IVF;

/**
 * IVF centroids and the partition ranking Lance's {@code ANNIvfPartitionExec} performs: every
 * centroid is ranked by its distance to the (cosine-normalised) query — L2 for L2 and cosine,
 * {@code 1 - q·c} for dot — with a stable sort, and the first {@code nprobes} are searched.
 */
public final class IvfModel {

    private final float[] centroids;
    private final int numPartitions;
    private final int dim;
    private final DistanceType type;

    public IvfModel(float[] centroids, int numPartitions, int dim, DistanceType type) {
        if ((long) numPartitions * dim != centroids.length) {
            throw new IllegalArgumentException("Centroids length " + centroids.length + " != " + numPartitions + "x" + dim);
        }
        this.centroids = centroids;
        this.numPartitions = numPartitions;
        this.dim = dim;
        this.type = type;
    }

    /** Reads the centroids of an {@code IVF} message (centroids_tensor, or the deprecated flat field). */
    public static IvfModel fromProto(IVF ivf, DistanceType type, String resource) {
        int p = ivf.getLengthsCount();
        CorruptIndexException.check(p > 0, resource, "IVF has no partitions");
        float[] c;
        int dim;
        if (ivf.hasCentroidsTensor()) {
            c = Tensors.toF32(ivf.getCentroidsTensor(), resource);
            CorruptIndexException.check(ivf.getCentroidsTensor().getShape(0) == p, resource,
                    "IVF centroids have %d rows but %d partitions", ivf.getCentroidsTensor().getShape(0), p);
            dim = ivf.getCentroidsTensor().getShape(1);
        } else {
            CorruptIndexException.check(ivf.getCentroidsCount() > 0 && ivf.getCentroidsCount() % p == 0, resource,
                    "IVF deprecated centroids (%d floats) do not divide into %d partitions", ivf.getCentroidsCount(), p);
            c = new float[ivf.getCentroidsCount()];
            for (int i = 0; i < c.length; i++) {
                c[i] = ivf.getCentroids(i);
            }
            dim = c.length / p;
        }
        CorruptIndexException.check(dim > 0, resource, "IVF dimension is 0");
        return new IvfModel(c, p, dim, type);
    }

    public int numPartitions() {
        return numPartitions;
    }

    public int dim() {
        return dim;
    }

    public DistanceType type() {
        return type;
    }

    /** Row-major {@code [P][dim]} centroids (not a copy). */
    public float[] centroids() {
        return centroids;
    }

    private DistanceType rankingType() {
        return type == DistanceType.DOT ? DistanceType.DOT : DistanceType.L2;
    }

    /** Nearest partition of {@code v[off..off+dim)} (already normalised for cosine). */
    public int assign(float[] v, int off) {
        return KMeans.nearest(v, off, centroids, numPartitions, dim, rankingType());
    }

    /** All partitions, nearest first (stable for equal distances). {@code query} is normalised for cosine. */
    public int[] rank(float[] query) {
        DistanceType t = rankingType();
        float[] d = new float[numPartitions];
        Integer[] idx = new Integer[numPartitions];
        for (int p = 0; p < numPartitions; p++) {
            d[p] = t.f32(query, 0, centroids, p * dim, dim);
            idx[p] = p;
        }
        java.util.Arrays.sort(idx, (a, b) -> Float.compare(d[a], d[b]));
        int[] out = new int[numPartitions];
        for (int i = 0; i < numPartitions; i++) {
            out[i] = idx[i];
        }
        return out;
    }

    /** The IVF message of {@code index.idx}: centroids plus per-partition rows of the sub-index. */
    public IVF toProto(long[] offsets, int[] lengths, double loss) {
        IVF.Builder b = IVF.newBuilder().setCentroidsTensor(Tensors.f32(centroids, numPartitions, dim)).setLoss(loss);
        for (int i = 0; i < numPartitions; i++) {
            b.addOffsets(offsets[i]).addLengths(lengths[i]);
        }
        return b.build();
    }

    /** L2-normalises {@code v[off..off+dim)} in place (zero vectors stay zero). */
    public static void normalize(float[] v, int off, int dim) {
        double s = 0;
        for (int i = 0; i < dim; i++) {
            s += (double) v[off + i] * v[off + i];
        }
        if (s == 0) {
            return;
        }
        float inv = (float) (1 / Math.sqrt(s));
        for (int i = 0; i < dim; i++) {
            v[off + i] *= inv;
        }
    }
}
