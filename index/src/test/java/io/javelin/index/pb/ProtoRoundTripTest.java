package io.javelin.index.pb;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** One message of each index-layer .proto survives encode → decode. */
class ProtoRoundTripTest {

    @Test
    void index() throws Exception {
        Index idx = Index.newBuilder().setName("vec_idx").addColumns("vec").setDatasetVersion(3)
                .setIndexType(IndexType.VECTOR).build();
        assertThat(Index.parseFrom(idx.toByteArray())).isEqualTo(idx);
        assertThat(Index.getDescriptor().getFullName()).isEqualTo("lance.index.pb.Index");
    }

    @Test
    void oldScalarIndexDetails() throws Exception {
        BTreeIndexDetails d = BTreeIndexDetails.getDefaultInstance();
        assertThat(BTreeIndexDetails.parseFrom(d.toByteArray())).isEqualTo(d);
        assertThat(BTreeIndexDetails.getDescriptor().getFullName()).isEqualTo("lance.table.BTreeIndexDetails");
    }
}
