package io.javelin.encoding.pb;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import com.google.protobuf.Message;
import io.javelin.encoding.pb.file.Field;
import io.javelin.encoding.pb.file.FileDescriptor;
import io.javelin.encoding.pb.file.Schema;
import io.javelin.encoding.pb.v20.ArrayEncoding;
import io.javelin.encoding.pb.v20.Flat;
import io.javelin.encoding.pb.v20.Nullable;
import io.javelin.encoding.pb.v21.CompressiveEncoding;
import io.javelin.encoding.pb.v21.MiniBlockLayout;
import io.javelin.encoding.pb.v21.PageLayout;
import io.javelin.encoding.pb.v21.RepDefLayer;
import org.junit.jupiter.api.Test;

/** One message of each encoding-layer .proto survives encode → decode, and sits on Lance's wire numbers. */
class ProtoRoundTripTest {

    private static <T extends Message> T roundTrip(T message) throws Exception {
        @SuppressWarnings("unchecked")
        T back = (T) message.getParserForType().parseFrom(message.toByteArray());
        assertThat(back).isEqualTo(message);
        return back;
    }

    @Test
    void file2ColumnMetadata() throws Exception {
        ColumnMetadata.Page page = ColumnMetadata.Page.newBuilder()
                .addBufferOffsets(64).addBufferSizes(128).setLength(5).setPriority(0).build();
        // Page.length is field 3 (varint): tag byte 0x18 then 5.
        assertThat(page.toByteArray()).containsSequence(0x18, 0x05);
        ColumnMetadata cm = ColumnMetadata.newBuilder()
                .setEncoding(Encoding.newBuilder().setDirect(DirectEncoding.newBuilder()
                        .setEncoding(ByteString.copyFromUtf8("x"))))
                .addPages(page).build();
        roundTrip(cm);
        assertThat(ColumnMetadata.getDescriptor().getFullName()).isEqualTo("lance.file.v2.ColumnMetadata");
    }

    @Test
    void fileDescriptorSchema() throws Exception {
        FileDescriptor fd = FileDescriptor.newBuilder()
                .setSchema(Schema.newBuilder().addFields(Field.newBuilder()
                        .setName("id").setId(0).setParentId(-1).setLogicalType("int64").setNullable(false)))
                .setLength(1000).build();
        FileDescriptor back = roundTrip(fd);
        assertThat(back.getSchema().getFields(0).getParentId()).isEqualTo(-1);
        assertThat(FileDescriptor.getDescriptor().getFullName()).isEqualTo("lance.file.FileDescriptor");
    }

    @Test
    void v20ArrayEncodingInsideAny() throws Exception {
        ArrayEncoding enc = ArrayEncoding.newBuilder().setNullable(Nullable.newBuilder()
                .setNoNulls(Nullable.NoNull.newBuilder().setValues(ArrayEncoding.newBuilder()
                        .setFlat(Flat.newBuilder().setBitsPerValue(64))))).build();
        roundTrip(enc);
        Any any = Any.pack(enc, "");
        assertThat(any.getTypeUrl()).isEqualTo("/lance.encodings.ArrayEncoding");
        assertThat(any.unpack(ArrayEncoding.class)).isEqualTo(enc);
    }

    @Test
    void v21PageLayoutWith22Additions() throws Exception {
        PageLayout layout = PageLayout.newBuilder().setMiniBlockLayout(MiniBlockLayout.newBuilder()
                .setValueCompression(CompressiveEncoding.newBuilder().setFlat(
                        io.javelin.encoding.pb.v21.Flat.newBuilder().setBitsPerValue(32)))
                .addLayers(RepDefLayer.REPDEF_ALL_VALID_ITEM)
                .setNumBuffers(1).setNumItems(4096).setHasLargeChunk(true)).build();
        PageLayout back = roundTrip(layout);
        assertThat(back.getMiniBlockLayout().getHasLargeChunk()).isTrue();
        // MiniBlockLayout.has_large_chunk is field 10 (varint): tag byte 0x50.
        assertThat(layout.getMiniBlockLayout().toByteArray()).containsSequence(0x50, 0x01);
        assertThat(Any.pack(layout, "").getTypeUrl()).isEqualTo("/lance.encodings21.PageLayout");
    }
}
