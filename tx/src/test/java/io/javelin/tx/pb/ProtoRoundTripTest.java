package io.javelin.tx.pb;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Message;
import io.javelin.encoding.pb.file.Field;
import org.junit.jupiter.api.Test;

/** One message of each table-layer .proto survives encode → decode, on Lance's wire numbers. */
class ProtoRoundTripTest {

    private static <T extends Message> T roundTrip(T message) throws Exception {
        @SuppressWarnings("unchecked")
        T back = (T) message.getParserForType().parseFrom(message.toByteArray());
        assertThat(back).isEqualTo(message);
        return back;
    }

    private static DataFragment fragment(long id) {
        return DataFragment.newBuilder().setId(id).setPhysicalRows(3000)
                .addFiles(DataFile.newBuilder().setPath("a.lance").addFields(0).addColumnIndices(0)
                        .setFileMajorVersion(2).setFileMinorVersion(1))
                .build();
    }

    @Test
    void manifest() throws Exception {
        Manifest m = Manifest.newBuilder()
                .addFields(Field.newBuilder().setName("id").setId(0).setParentId(-1).setLogicalType("int64"))
                .addFragments(fragment(0))
                .setVersion(7).setMaxFragmentId(0).setNextRowId(3000)
                .putConfig("k", "v").build();
        Manifest back = roundTrip(m);
        assertThat(back.hasMaxFragmentId()).isTrue();
        // Manifest.version is field 3 (varint): tag 0x18 then 7.
        assertThat(Manifest.newBuilder().setVersion(7).build().toByteArray()).containsExactly(0x18, 0x07);
        assertThat(Manifest.getDescriptor().getFullName()).isEqualTo("lance.table.Manifest");
    }

    @Test
    void transaction() throws Exception {
        Transaction t = Transaction.newBuilder().setReadVersion(3).setUuid("u-1")
                .setAppend(Transaction.Append.newBuilder().addFragments(fragment(4))).build();
        Transaction back = roundTrip(t);
        assertThat(back.hasAppend()).isTrue();
    }

    @Test
    void rowIds() throws Exception {
        RowIdSequence s = RowIdSequence.newBuilder().addSegments(U64Segment.newBuilder()
                .setRange(U64Segment.Range.newBuilder().setStart(10).setEnd(20))).build();
        roundTrip(s);
    }

    @Test
    void fragmentTree() throws Exception {
        FragmentTreeNode node = FragmentTreeNode.newBuilder().build();
        roundTrip(node);
        assertThat(FragmentTreeNode.getDescriptor().getFullName()).startsWith("lance.table.");
    }
}
