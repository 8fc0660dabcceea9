package io.javelin.interop.writer;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.encoding.file.LanceFileReader;
import io.javelin.encoding.io.LocalFileSource;
import io.javelin.encoding.pb.ColumnMetadata;
import io.javelin.encoding.writer.LanceFileVersion;
import io.javelin.encoding.writer.TestBatches;
import io.javelin.encoding.writer.WriteOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.lance.file.BlobReadMode;
import org.lance.file.FileReadOptions;

/**
 * Blob columns ({@code lance-encoding:blob} large_binary) in 2.0, 2.1 and 2.2 and 2.0 packed structs:
 * lance-core 7.0.0's {@code LanceFileReader} decodes exactly what we wrote (blob descriptors pointing at
 * the written bytes, empty values and nulls), our reader agrees, and the layout is the one lance-core
 * writes itself.
 */
class BlobAndPackedWriterInteropTest {

    @TempDir
    Path dir;

    static Schema blobSchema() {
        return new Schema(List.of(
                TestBatches.f("id", new ArrowType.Int(64, true), false),
                TestBatches.f("lb", ArrowType.LargeBinary.INSTANCE, true, Map.of("lance-encoding:blob", "true")),
                TestBatches.f("s", ArrowType.Utf8.INSTANCE, true)));
    }

    @ParameterizedTest
    @ValueSource(strings = {"2.0", "2.1", "2.2"})
    void blobColumns(String version) throws Exception {
        Schema schema = blobSchema();
        try (BufferAllocator alloc = new RootAllocator()) {
            List<List<Object>> exp = LanceReadBack.expected(schema, alloc, 42, 3, 700);
            // small pages: the descriptor column spans several pages, blobs of later batches follow earlier pages
            Path file = LanceReadBack.write(dir, "blob-" + version + ".lance", schema, alloc, 42, 3, 700,
                    WriteOptions.of(LanceFileVersion.parse(version)).withPageSize(8 * 1024));
            assertThat(exp.get(1)).contains((Object) null);
            assertThat(exp.get(1).stream().filter(o -> o instanceof java.nio.ByteBuffer b && b.remaining() == 0).count()).isPositive();
            assertThat(exp.get(1).stream().filter(o -> o instanceof java.nio.ByteBuffer b && b.remaining() == 5000).count()).isPositive();

            // lance-core 7.0.0's CONTENT mode fails on its own 2.1/2.2 blob files and returns empty contents
            // for some rows of its own 2.0 files; its DESCRIPTOR mode is exact: we check the descriptors it
            // decodes point at the written bytes.
            LanceReadBack.assertSame(schema, exp, readWithLance(file, alloc, schema, BlobReadMode.DESCRIPTOR),
                    "lance-core reads blob descriptors v" + version);
            // our reader returns exactly what was written: nulls as null, empty values as empty
            LanceReadBack.assertSame(schema, exp, readWithJavelin(file, alloc, schema), "javelin reads blob v" + version);

            List<ColumnMetadata> cols = FileInspect.columns(file);
            assertThat(cols).hasSize(3);
            assertThat(cols.get(1).getPagesCount()).isGreaterThan(1);
            String d = FileInspect.describe(file, version.equals("2.0"));
            if (version.equals("2.0")) {
                assertThat(d).contains("packed_struct { inner { nullable { no_nulls { values { flat { bits_per_value: 64");
                var any = com.google.protobuf.Any.parseFrom(cols.get(1).getEncoding().getDirect().getEncoding());
                assertThat(io.javelin.encoding.pb.v20.ColumnEncoding.parseFrom(any.getValue()).hasBlob()).isTrue();
            } else {
                assertThat(d).contains("blob_layout { inner_layout { mini_block_layout { value_compression { packed_struct "
                        + "{ bits_per_value: 64 bits_per_value: 64 values { flat { bits_per_value: 128 } } } } "
                        + "layers: REPDEF_ALL_VALID_ITEM");
                assertThat(d).contains("layers: REPDEF_NULLABLE_ITEM }");
            }
        }
    }

    /**
     * lance-core 7.0.0's {@code LanceFileReader} cannot project a 2.0 packed struct, not even in its own
     * files ("projection specified the column index N but there are only N columns"). The proof here: our
     * pages carry exactly the encoding lance-core writes, the packed columns hold byte-identical data to
     * lance-core's file for the same batches (and decode to the written values), lance-core reads the
     * other columns of our file, and our reader returns exactly the written values from both files.
     */
    @Test
    void packedStruct20() throws Exception {
        Schema schema = new Schema(List.of(
                TestBatches.f("id", new ArrowType.Int(64, true), false),
                TestBatches.f("packed", ArrowType.Struct.INSTANCE, false, Map.of("packed", "true"),
                        TestBatches.f("x", new ArrowType.Int(32, true), false),
                        TestBatches.f("y", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE), false),
                        TestBatches.f("z", new ArrowType.Int(16, false), false)),
                TestBatches.f("packed2", ArrowType.Struct.INSTANCE, false, Map.of("lance-encoding:packed", "true"),
                        TestBatches.f("a", new ArrowType.FixedSizeBinary(3), false),
                        TestBatches.f("b", new ArrowType.Int(8, true), false))));
        try (BufferAllocator alloc = new RootAllocator()) {
            List<List<Object>> exp = LanceReadBack.expected(schema, alloc, 42, 3, 1500);
            Path file = LanceReadBack.write(dir, "packed-2.0.lance", schema, alloc, 42, 3, 1500,
                    WriteOptions.of(LanceFileVersion.V2_0).withPageSize(16 * 1024));
            Path theirs = dir.resolve("packed-lance-core-2.0.lance");
            try (org.lance.file.LanceFileWriter w = org.lance.file.LanceFileWriter.open(theirs.toString(), alloc, null,
                    java.util.Optional.of("2.0"), Map.of())) {
                for (int b = 0; b < 3; b++) {
                    try (VectorSchemaRoot root = TestBatches.batch(schema, alloc, 42, b * 1500L, 1500)) {
                        w.write(root);
                    }
                }
            }
            // the packed columns hold byte-identical row-major data to lance-core's (same batches)
            for (int c = 1; c <= 2; c++) {
                byte[] mine = columnBytes(file, c);
                assertThat(mine).hasSize(4500 * (c == 1 ? 14 : 4)).isEqualTo(columnBytes(theirs, c));
            }
            byte[] p = columnBytes(file, 1);
            java.nio.ByteBuffer bb = java.nio.ByteBuffer.wrap(p).order(java.nio.ByteOrder.LITTLE_ENDIAN);
            for (int i = 0; i < 4500; i++) {
                @SuppressWarnings("unchecked")
                Map<String, Object> row = (Map<String, Object>) exp.get(1).get(i);
                assertThat(bb.getInt(14 * i)).isEqualTo(row.get("x"));
                assertThat(bb.getDouble(14 * i + 4)).isEqualTo(row.get("y"));
                Object z = row.get("z");
                assertThat((int) bb.getChar(14 * i + 12)).isEqualTo(z instanceof Character ch ? (int) ch : ((Number) z).intValue());
            }
            LanceReadBack.assertSame(schema, exp, readWithJavelin(file, alloc, schema), "javelin reads our 2.0 packed structs");
            LanceReadBack.assertSame(schema, exp, readWithJavelin(theirs, alloc, schema),
                    "javelin reads lance-core's 2.0 packed structs");
            Schema idOnly = new Schema(List.of(schema.getFields().get(0)));
            assertThat(readWithLance(file, alloc, idOnly, BlobReadMode.CONTENT).get(0)).isEqualTo(exp.get(0));

            List<ColumnMetadata> cols = FileInspect.columns(file);
            assertThat(cols).hasSize(3).hasSameSizeAs(FileInspect.columns(theirs)); // one column per packed struct
            assertThat(cols.get(1).getPagesCount()).isGreaterThan(1);
            List<String> mine = encodings(FileInspect.describe(file, true));
            assertThat(mine).isEqualTo(encodings(FileInspect.describe(theirs, true)));
            assertThat(mine.get(1)).startsWith("packed_struct { inner { nullable { no_nulls { values { flat { bits_per_value: 32");
        }
    }

    /** Buffer 0 of every page of column {@code col}, concatenated. */
    static byte[] columnBytes(Path file, int col) throws Exception {
        byte[] all = java.nio.file.Files.readAllBytes(file);
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (ColumnMetadata.Page p : FileInspect.columns(file).get(col).getPagesList()) {
            out.write(all, (int) p.getBufferOffsets(0), (int) p.getBufferSizes(0));
        }
        return out.toByteArray();
    }

    /** The page encoding of each column (without the page count). */
    static List<String> encodings(String describe) {
        return describe.lines().map(l -> l.substring(l.indexOf(": ") + 2)).toList();
    }

    /**
     * What lance-core reads, one column per projection (lance-core 7.0.0 returns empty contents for the
     * blobs of a 2.0 file once a column after the blob column is projected too, its own files included).
     * In {@link BlobReadMode#DESCRIPTOR} mode a blob row's {@code (position, size)} is replaced by the
     * file's bytes in that range (a null descriptor, or Lance 2.0's {@code (1, 0)}, is null).
     */
    static List<List<Object>> readWithLance(Path file, BufferAllocator alloc, Schema schema, BlobReadMode mode)
            throws Exception {
        byte[] all = java.nio.file.Files.readAllBytes(file);
        List<List<Object>> cols = new ArrayList<>();
        for (Field f : schema.getFields()) {
            List<Object> col = new ArrayList<>();
            cols.add(col);
            boolean blob = f.getMetadata().containsKey("lance-encoding:blob");
            try (org.lance.file.LanceFileReader reader = org.lance.file.LanceFileReader.open(file.toString(), alloc);
                 ArrowReader r = reader.readAll(List.of(f.getName()), null, 1000,
                         FileReadOptions.builder().blobReadMode(mode).build())) {
                while (r.loadNextBatch()) {
                    VectorSchemaRoot root = r.getVectorSchemaRoot();
                    FieldVector v = root.getVector(0);
                    for (int i = 0; i < root.getRowCount(); i++) {
                        Object o = v.getObject(i);
                        if (blob && o instanceof Map<?, ?> d) {
                            long pos = ((Number) d.get("position")).longValue();
                            int size = ((Number) d.get("size")).intValue();
                            o = size == 0 && pos != 0 ? null : java.util.Arrays.copyOfRange(all, (int) pos, (int) pos + size);
                        }
                        col.add(TestBatches.normalize(o));
                    }
                }
            }
        }
        return cols;
    }

    static List<List<Object>> readWithJavelin(Path file, BufferAllocator alloc, Schema schema) throws Exception {
        List<List<Object>> cols = new ArrayList<>();
        for (int c = 0; c < schema.getFields().size(); c++) {
            cols.add(new ArrayList<>());
        }
        try (LanceFileReader r = LanceFileReader.open(LocalFileSource.open(file)).block()) {
            r.scan(LanceFileReader.ScanOptions.all(1000), alloc).doOnNext(root -> {
                try (root) {
                    for (int c = 0; c < root.getFieldVectors().size(); c++) {
                        FieldVector v = root.getVector(c);
                        for (int i = 0; i < root.getRowCount(); i++) {
                            cols.get(c).add(TestBatches.normalize(v.getObject(i)));
                        }
                    }
                }
            }).blockLast();
        }
        return cols;
    }
}
