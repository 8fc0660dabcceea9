package io.javelin.encoding.writer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.javelin.encoding.CorruptFileException;
import io.javelin.encoding.file.LanceFileReader;
import io.javelin.encoding.io.MemorySource;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.LargeVarBinaryVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import reactor.core.scheduler.Schedulers;

/**
 * Blob v2 descriptor columns: what the writer encodes (inline bytes out of line, descriptors in a
 * variable-packed-struct full-zip page) the reader decodes to the same descriptors; corrupt rows are typed
 * errors; blob v2 needs format 2.2.
 */
class BlobV2ColumnsTest {

    static Schema schema() {
        return new Schema(List.of(BlobV2Columns.prepared("blob", true, null)));
    }

    /** kind, inline bytes, position, size, id, uri per row; null row = null. */
    static byte[] write(List<Object[]> rows, BufferAllocator alloc) {
        Schema schema = schema();
        try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, alloc)) {
            StructVector s = (StructVector) root.getVector(0);
            s.allocateNew();
            for (int i = 0; i < rows.size(); i++) {
                Object[] r = rows.get(i);
                ((LargeVarBinaryVector) s.getChild("data")).setNull(i);
                ((VarCharVector) s.getChild("blob_uri")).setNull(i);
                ((UInt1Vector) s.getChild("kind")).setSafe(i, r == null ? 0 : (Integer) r[0]);
                ((UInt8Vector) s.getChild("position")).setSafe(i, r == null ? 0 : (Long) r[2]);
                ((UInt8Vector) s.getChild("size")).setSafe(i, r == null ? 0 : (Long) r[3]);
                ((UInt4Vector) s.getChild("blob_id")).setSafe(i, r == null ? 0 : (Integer) r[4]);
                if (r == null) {
                    s.setNull(i);
                    continue;
                }
                s.setIndexDefined(i);
                if (r[1] != null) {
                    ((LargeVarBinaryVector) s.getChild("data")).setSafe(i, (byte[]) r[1]);
                }
                if (r[5] != null) {
                    ((VarCharVector) s.getChild("blob_uri")).setSafe(i, ((String) r[5]).getBytes(StandardCharsets.UTF_8));
                }
            }
            for (var c : s.getChildrenFromFields()) {
                c.setValueCount(rows.size());
            }
            s.setValueCount(rows.size());
            root.setRowCount(rows.size());
            FileEncoder enc = new FileEncoder(schema, WriteOptions.of(LanceFileVersion.V2_2));
            List<ByteBuffer> out = new ArrayList<>(enc.write(root));
            out.addAll(enc.finish());
            ByteBuffer file = ByteBuffer.allocate(out.stream().mapToInt(ByteBuffer::remaining).sum());
            out.forEach(b -> file.put(b.duplicate()));
            return file.array();
        }
    }

    static List<String> read(byte[] file, BufferAllocator alloc) {
        List<String> out = new ArrayList<>();
        LanceFileReader r = LanceFileReader.open(new MemorySource("blob.lance", file)).block();
        for (VectorSchemaRoot b : r.scan(LanceFileReader.ScanOptions.all(100), alloc).publishOn(Schedulers.boundedElastic(), 1)
                .toIterable(1)) {
            try (b) {
                for (int i = 0; i < b.getRowCount(); i++) {
                    out.add(String.valueOf(b.getVector(0).getObject(i)));
                }
            }
        }
        return out;
    }

    @Test
    void descriptorsRoundTripAndInlineBytesPrecedeThePage() {
        byte[] inline = "hello blob v2".getBytes(StandardCharsets.UTF_8);
        List<Object[]> rows = new ArrayList<>();
        rows.add(new Object[] {0, inline, 0L, 0L, 0, null});
        rows.add(null);
        rows.add(new Object[] {1, null, 4096L, 70_000L, 1, null});
        rows.add(new Object[] {2, null, 0L, 5_000_000L, 2, null});
        rows.add(new Object[] {3, null, 10L, 20L, 0, "s3://bucket/archive.tar"});
        rows.add(new Object[] {0, new byte[0], 0L, 0L, 0, null});
        try (BufferAllocator alloc = new RootAllocator()) {
            byte[] file = write(rows, alloc);
            // the inline bytes start the file, the descriptor says so
            assertThat(java.util.Arrays.copyOf(file, inline.length)).isEqualTo(inline);
            List<String> got = read(file, alloc);
            assertThat(got).hasSize(6);
            assertThat(got.get(0)).isEqualTo("{\"kind\":0,\"position\":0,\"size\":13,\"blob_id\":0,\"blob_uri\":\"\"}");
            assertThat(got.get(1)).isEqualTo("null");
            assertThat(got.get(2)).isEqualTo("{\"kind\":1,\"position\":4096,\"size\":70000,\"blob_id\":1,\"blob_uri\":\"\"}");
            assertThat(got.get(3)).isEqualTo("{\"kind\":2,\"position\":0,\"size\":5000000,\"blob_id\":2,\"blob_uri\":\"\"}");
            assertThat(got.get(4)).isEqualTo("{\"kind\":3,\"position\":10,\"size\":20,\"blob_id\":0,\"blob_uri\":\"s3://bucket/archive.tar\"}");
            assertThat(got.get(5)).startsWith("{\"kind\":0,").contains("\"size\":0,");
        }
    }

    @Test
    void corruptRowsAreTypedErrors() {
        List<Object[]> rows = new ArrayList<>();
        rows.add(new Object[] {3, null, 1L, 2L, 0, "file:///x/y"});
        rows.add(new Object[] {1, null, 0L, 9L, 1, null});
        try (BufferAllocator alloc = new RootAllocator()) {
            byte[] file = write(rows, alloc);
            // the uri length prefix of row 0 (after kind, position, size, blob_id) claims more than the row holds
            byte[] uri = "file:///x/y".getBytes(StandardCharsets.UTF_8);
            int at = indexOf(file, uri) - 4;
            assertThat(file[at]).isEqualTo((byte) uri.length);
            file[at] = (byte) (uri.length + 3);
            assertThatThrownBy(() -> read(file, alloc)).isInstanceOf(CorruptFileException.class);
            // the row length of row 0 past the page
            file[at] = (byte) uri.length;
            // row 0 starts with its u32 length (no control words: no nulls), 25 bytes before the uri length
            int rowStart = at - 25;
            assertThat(file[rowStart]).isEqualTo((byte) (25 + uri.length));
            file[rowStart] = (byte) 0x7F;
            assertThatThrownBy(() -> read(file, alloc)).isInstanceOf(CorruptFileException.class);
        }
    }

    @Test
    void blobV2NeedsFormat22AndThePreparedShape() {
        assertThatThrownBy(() -> new FileEncoder(schema(), WriteOptions.of(LanceFileVersion.V2_1)))
                .isInstanceOf(UnsupportedTypeException.class).hasMessageContaining("2.2");
        var logical = new org.apache.arrow.vector.types.pojo.Field("blob", new org.apache.arrow.vector.types.pojo.FieldType(true,
                org.apache.arrow.vector.types.pojo.ArrowType.Struct.INSTANCE, null, java.util.Map.of("ARROW:extension:name", "lance.blob.v2")),
                List.of(TestBatches.f("data", org.apache.arrow.vector.types.pojo.ArrowType.LargeBinary.INSTANCE, true)));
        assertThatThrownBy(() -> new FileEncoder(new Schema(List.of(logical)), WriteOptions.of(LanceFileVersion.V2_2)))
                .isInstanceOf(UnsupportedTypeException.class).hasMessageContaining("prepared");
    }

    static int indexOf(byte[] hay, byte[] needle) {
        outer:
        for (int i = hay.length - needle.length; i >= 0; i--) {
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        throw new AssertionError("not found");
    }
}
