package io.javelin.encoding.writer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/** Blob fields: values out of line, 64-byte aligned, descriptors in the column; bad blob fields are typed errors. */
class BlobFieldsWriterTest {
    static final Map<String, String> BLOB = Map.of("lance-encoding:blob", "true");

    @Test
    void blobBytesGoOutOfLineAheadOfTheBatchPages() {
        Schema schema = new Schema(List.of(TestBatches.f("lb", ArrowType.LargeBinary.INSTANCE, true, BLOB)));
        for (LanceFileVersion v : LanceFileVersion.values()) {
            try (BufferAllocator alloc = new RootAllocator();
                 VectorSchemaRoot root = TestBatches.batch(schema, alloc, 3, 0, 300)) {
                FileEncoder enc = new FileEncoder(schema, WriteOptions.of(v));
                List<ByteBuffer> out = new java.util.ArrayList<>(enc.write(root));
                out.addAll(enc.finish());
                ByteBuffer file = ByteBuffer.allocate(out.stream().mapToInt(ByteBuffer::remaining).sum());
                out.forEach(b -> file.put(b.duplicate()));
                byte[] all = file.array();
                // the first value's bytes start the file (blobs precede the pages of their batch)
                org.apache.arrow.vector.LargeVarBinaryVector lb = (org.apache.arrow.vector.LargeVarBinaryVector) root.getVector(0);
                int first = 0;
                while (lb.isNull(first) || lb.get(first).length == 0) {
                    first++;
                }
                byte[] value = lb.get(first);
                assertThat(java.util.Arrays.copyOf(all, value.length)).as("version %s", v).isEqualTo(value);
                long blobBytes = 0;
                for (int i = 0; i < 300; i++) {
                    if (!lb.isNull(i)) {
                        int len = lb.get(i).length;
                        blobBytes += len == 0 ? 0 : (len + 63) / 64 * 64;
                    }
                }
                assertThat(enc.position()).isGreaterThan(blobBytes);
                ByteBuffer le = ByteBuffer.wrap(all).order(ByteOrder.LITTLE_ENDIAN);
                assertThat(le.getInt(all.length - 4)).isEqualTo(0x434E414C); // "LANC"
            }
        }
    }

    @Test
    void nestedOrNarrowBlobFieldsAreRejected() {
        Schema nested = new Schema(List.of(TestBatches.f("st", ArrowType.Struct.INSTANCE, true,
                TestBatches.f("lb", ArrowType.LargeBinary.INSTANCE, true, BLOB))));
        assertThatThrownBy(() -> new FileEncoder(nested, WriteOptions.defaults()))
                .isInstanceOf(UnsupportedTypeException.class).hasMessageContaining("st.lb").hasMessageContaining("nested");
        Schema narrow = new Schema(List.of(TestBatches.f("b", ArrowType.Binary.INSTANCE, true, BLOB)));
        assertThatThrownBy(() -> new FileEncoder(narrow, WriteOptions.of(LanceFileVersion.V2_0)))
                .isInstanceOf(UnsupportedTypeException.class).hasMessageContaining("large_binary");
    }
}
