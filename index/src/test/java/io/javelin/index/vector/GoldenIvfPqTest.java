package io.javelin.index.vector;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.index.pb.IVF;
import io.javelin.index.pb.Tensor;
import java.io.IOException;
import java.io.InputStream;
import org.junit.jupiter.api.Test;

/** Lance 7.0.0's own IVF/PQ protobufs (golden/indexed) parse with our protos and load into our model. */
class GoldenIvfPqTest {

    static byte[] resource(String name) throws IOException {
        try (InputStream in = GoldenIvfPqTest.class.getResourceAsStream("/golden/indexed-ivfpq/" + name)) {
            return in.readAllBytes();
        }
    }

    @Test
    void lance7BuffersParseWithoutUnknownFields() throws IOException {
        IVF index = IVF.parseFrom(resource("index.idx.buffer1.ivf.binpb"));
        assertThat(index.getUnknownFields().asMap()).isEmpty();
        assertThat(index.getCentroidsTensor().getDataType()).isEqualTo(Tensor.DataType.FLOAT32);
        assertThat(index.getCentroidsTensor().getShapeList()).containsExactly(4, 128);
        assertThat(index.getOffsetsList()).containsExactly(0L, 0L, 0L, 0L);
        assertThat(index.getLengthsList()).containsExactly(0, 0, 0, 0);
        assertThat(index.hasLoss()).isTrue();
        IvfModel model = IvfModel.fromProto(index, DistanceType.L2, "golden");
        assertThat(model.numPartitions()).isEqualTo(4);
        assertThat(model.dim()).isEqualTo(128);
        assertThat(model.rank(java.util.Arrays.copyOfRange(model.centroids(), 2 * 128, 3 * 128))[0]).isEqualTo(2);

        IVF aux = IVF.parseFrom(resource("auxiliary.idx.buffer1.ivf.binpb"));
        assertThat(aux.getUnknownFields().asMap()).isEmpty();
        assertThat(aux.hasCentroidsTensor()).isFalse();
        assertThat(aux.getOffsetsList()).containsExactly(0L, 1250L, 2500L, 3125L);
        assertThat(aux.getLengthsList()).containsExactly(1250, 1250, 625, 1875);

        Tensor codebook = Tensor.parseFrom(resource("auxiliary.idx.buffer2.codebook.binpb"));
        assertThat(codebook.getUnknownFields().asMap()).isEmpty();
        assertThat(codebook.getShapeList()).containsExactly(256, 128);
        ProductQuantizer pq = ProductQuantizer.fromTensor(codebook, 128, 16, 8, DistanceType.L2, "golden");
        assertThat(pq.codeBytes()).isEqualTo(16);
        float[] table = pq.distanceTable(new float[128]);
        assertThat(table).hasSize(16 * 256);
        // our writer produces the same shapes for the same parameters
        assertThat(Tensors.f32(pq.codebook(), 256, 128).getData()).isEqualTo(codebook.getData());
    }
}
