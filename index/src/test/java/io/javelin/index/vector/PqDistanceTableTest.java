package io.javelin.index.vector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The per-partition PQ distance table (built over the transposed codebook) equals the per-code definition. */
class PqDistanceTableTest {

    @ParameterizedTest
    @CsvSource({"L2,128,16,8", "L2,32,4,4", "DOT,64,8,8", "COSINE,16,16,8", "L2,256,32,8"})
    void tableEqualsThePerCodeDefinition(String type, int dim, int m, int nbits) {
        Random rnd = new Random(dim * 31L + m);
        int k = 1 << nbits;
        int sub = dim / m;
        float[] codebook = new float[k * dim];
        for (int i = 0; i < codebook.length; i++) {
            codebook[i] = (float) rnd.nextGaussian();
        }
        DistanceType t = DistanceType.valueOf(type);
        ProductQuantizer pq = new ProductQuantizer(dim, m, nbits, codebook, t);
        for (int rep = 0; rep < 3; rep++) {
            float[] q = new float[dim];
            for (int i = 0; i < dim; i++) {
                q[i] = (float) rnd.nextGaussian() * 3;
            }
            float[] table = pq.distanceTable(q);
            assertThat(table).hasSize(m * k);
            for (int s = 0; s < m; s++) {
                for (int c = 0; c < k; c++) {
                    double acc = 0;
                    for (int d = 0; d < sub; d++) {
                        double x = q[s * sub + d];
                        double y = codebook[(s * k + c) * sub + d];
                        acc += t == DistanceType.DOT ? x * y : (x - y) * (x - y);
                    }
                    double want = t == DistanceType.DOT ? 1 - acc : acc;
                    assertThat((double) table[s * k + c]).as("s %d code %d", s, c).isCloseTo(want, within(1e-3 * (1 + Math.abs(want))));
                }
            }
        }
    }
}
