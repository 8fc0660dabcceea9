package io.javelin.index.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link DistanceKernels#nearestTransposed} (k-means assignment, PQ encoding): every implementation finds
 * the centroid a brute-force double-precision search finds (up to float rounding on near ties), with
 * Lance's distance, over centroid counts that do and do not fill whole vector blocks, ties on the lowest
 * index, and NaN input.
 */
class NearestTransposedTest {

    static double ref(float[] x, int xOff, float[] c, int j, int dim, boolean dot) {
        double acc = 0;
        for (int d = 0; d < dim; d++) {
            double a = x[xOff + d], b = c[j * dim + d];
            acc += dot ? a * b : (a - b) * (a - b);
        }
        return dot ? 1 - acc : acc;
    }

    @Test
    void findsTheNearestCentroid() {
        Random r = new Random(7);
        for (DistanceKernels kern : DistanceKernelsTest.impls()) {
            for (int k : new int[] {1, 4, 15, 16, 17, 64, 100, 256}) {
                for (int dim : new int[] {1, 8, 13, 128}) {
                    for (boolean dot : new boolean[] {false, true}) {
                        float[] c = new float[k * dim];
                        for (int i = 0; i < c.length; i++) {
                            c[i] = (float) r.nextGaussian();
                        }
                        float[] t = DistanceKernels.transposeCentroids(c, k, dim);
                        float[] x = new float[3 + dim];
                        for (int q = 0; q < 20; q++) {
                            for (int i = 0; i < x.length; i++) {
                                x[i] = (float) r.nextGaussian();
                            }
                            long got = kern.nearestTransposed(x, 3, t, k, dim, dot);
                            int idx = (int) got;
                            float dist = Float.intBitsToFloat((int) (got >>> 32));
                            double best = Double.POSITIVE_INFINITY;
                            for (int j = 0; j < k; j++) {
                                best = Math.min(best, ref(x, 3, c, j, dim, dot));
                            }
                            String what = kern.name() + " k " + k + " dim " + dim + " dot " + dot;
                            assertThat(idx).as(what).isBetween(0, k - 1);
                            double tol = 1e-4 * (1 + Math.abs(best));
                            assertThat(ref(x, 3, c, idx, dim, dot)).as(what).isCloseTo(best, org.assertj.core.api.Assertions.within(tol));
                            assertThat((double) dist).as(what).isCloseTo(ref(x, 3, c, idx, dim, dot), org.assertj.core.api.Assertions.within(tol));
                        }
                    }
                }
            }
        }
    }

    @Test
    void tiesKeepTheLowestIndexAndNanFindsNothing() {
        for (DistanceKernels kern : DistanceKernelsTest.impls()) {
            int k = 40;
            int dim = 4;
            float[] c = new float[k * dim];
            for (int j = 0; j < k; j++) {
                c[j * dim] = j % 10 == 7 ? 1f : 5f; // centroids 7, 17, 27, 37 are equally near
            }
            float[] t = DistanceKernels.transposeCentroids(c, k, dim);
            long got = kern.nearestTransposed(new float[] {1, 0, 0, 0}, 0, t, k, dim, false);
            assertThat((int) got).as(kern.name()).isEqualTo(7);
            assertThat(Float.intBitsToFloat((int) (got >>> 32))).isZero();
            long nan = kern.nearestTransposed(new float[] {Float.NaN, 0, 0, 0}, 0, t, k, dim, false);
            assertThat((int) nan).as(kern.name()).isZero();
            assertThat(Float.intBitsToFloat((int) (nan >>> 32))).isEqualTo(Float.POSITIVE_INFINITY);
        }
    }
}
