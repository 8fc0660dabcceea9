package io.javelin.encoding.v1;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import io.javelin.encoding.CorruptFileException;
import io.javelin.encoding.UnsupportedEncodingException;
import io.javelin.encoding.file.LanceFileReader;
import io.javelin.encoding.io.MemorySource;
import io.javelin.encoding.pb.file.EmbeddedManifestSchema;
import io.javelin.encoding.pb.file.Field;
import io.javelin.encoding.pb.file.Metadata;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Legacy (0.1 / 0.2) files: upstream's files with embedded manifests, and files built here from the layout
 * facts (page table, Metadata, footer) with strings, lists, structs and booleans; malformed files fail
 * with a {@link CorruptFileException} naming the file.
 */
class V1FileReaderTest {

    final BufferAllocator alloc = new RootAllocator();

    @AfterEach
    void close() {
        alloc.close();
    }

    static byte[] fixture(String name) throws Exception {
        return Files.readAllBytes(Path.of(V1FileReaderTest.class.getResource("/legacy/" + name).toURI()));
    }

    List<String> scan(LanceFileReader r, int batchSize) {
        List<String> rows = new ArrayList<>();
        for (VectorSchemaRoot b : r.scan(LanceFileReader.ScanOptions.all(batchSize), alloc).collectList().block()) {
            try (b) {
                assertThat(b.getRowCount()).isLessThanOrEqualTo(batchSize);
                rows.addAll(rows(b));
            }
        }
        return rows;
    }

    static List<String> rows(VectorSchemaRoot b) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < b.getRowCount(); i++) {
            StringBuilder sb = new StringBuilder();
            for (var v : b.getFieldVectors()) {
                sb.append(sb.isEmpty() ? "" : " ").append(v.getObject(i));
            }
            out.add(sb.toString());
        }
        return out;
    }

    @Test
    void format01FileWithEmbeddedManifest() throws Exception {
        try (LanceFileReader r = LanceFileReader.open(new MemorySource("v075", fixture("v0.7.5-int64-100rows.lance"))).block()) {
            assertThat(r.legacy().version()).isEqualTo("0.1");
            assertThat(r.numRows()).isEqualTo(100);
            assertThat(r.schema().getFields()).hasSize(1);
            assertThat(r.schema().getFields().get(0).getName()).isEqualTo("x");
            assertThat(r.schema().getFields().get(0).isNullable()).isTrue();
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                expected.add(String.valueOf(i));
            }
            assertThat(scan(r, 7)).isEqualTo(expected);
            try (VectorSchemaRoot t = r.take(new long[] {99, 0, 50, 50, 3}, null, alloc).block()) {
                assertThat(rows(t)).containsExactly("99", "0", "50", "50", "3");
            }
        }
    }

    @Test
    void inspectorDescribesALegacyFile() throws Exception {
        try (LanceFileReader r = LanceFileReader.open(new MemorySource("v075", fixture("v0.7.5-int64-100rows.lance"))).block()) {
            java.io.StringWriter out = new java.io.StringWriter();
            io.javelin.encoding.file.FileInspector.print(r.metadata(), new java.io.PrintWriter(out));
            assertThat(out.toString()).contains("version: legacy").contains("rows: 100").contains("x: int64 (id=0");
        }
    }

    @Test
    void format02FileWithPageStatistics() throws Exception {
        try (LanceFileReader r = LanceFileReader.open(new MemorySource("v015", fixture("v0.15.0-int64-stats.lance"))).block()) {
            assertThat(r.legacy().version()).isEqualTo("0.2");
            assertThat(r.legacy().numBatches()).isEqualTo(1);
            assertThat(scan(r, 2)).containsExactly("1", "2", "3");
            try (VectorSchemaRoot t = r.take(new long[] {2, 0, 1, 2}, List.of("x"), alloc).block()) {
                assertThat(rows(t)).containsExactly("3", "1", "2", "3");
            }
        }
    }

    static Field field(int id, int parent, String name, String type, boolean nullable) {
        return Field.newBuilder().setId(id).setParentId(parent).setName(name).setLogicalType(type).setNullable(nullable).build();
    }

    static final List<Field> FIELDS = List.of(
            field(0, -1, "s", "string", true),
            field(1, -1, "r", "string", false),
            field(2, -1, "l", "list", true),
            field(3, 2, "item", "int32", true),
            field(4, -1, "st", "struct", true),
            field(5, 4, "a", "int64", true),
            field(6, 4, "flag", "bool", true),
            field(7, -1, "v", "fixed_size_list:float:2", true));

    /** Writes a legacy file the way upstream's legacy writer lays it out: pages, page table, manifest, Metadata, footer. */
    static final class Builder {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final Map<Long, long[]> pages = new HashMap<>();

        long write(byte[] b) {
            long at = out.size();
            out.writeBytes(b);
            return at;
        }

        void page(int field, int batch, long position, long length) {
            pages.put(((long) field << 32) | batch, new long[] {position, length});
        }

        static byte[] le(int width, long... v) {
            ByteBuffer b = ByteBuffer.allocate(v.length * width).order(ByteOrder.LITTLE_ENDIAN);
            for (long x : v) {
                if (width == 8) {
                    b.putLong(x);
                } else {
                    b.putInt((int) x);
                }
            }
            return b.array();
        }

        void strings(int field, int batch, String... values) {
            long[] pos = new long[values.length + 1];
            pos[0] = out.size();
            for (int i = 0; i < values.length; i++) {
                write(values[i].getBytes(StandardCharsets.UTF_8));
                pos[i + 1] = out.size();
            }
            page(field, batch, write(le(8, pos)), values.length);
        }

        byte[] finish(List<Integer> batchOffsets, int minId, int maxId, List<Field> embedded) {
            int batches = batchOffsets.size() - 1;
            long table = out.size();
            for (int f = minId; f <= maxId; f++) {
                for (int b = 0; b < batches; b++) {
                    long[] p = pages.getOrDefault(((long) f << 32) | b, new long[] {0, 0});
                    write(le(8, p[0], p[1]));
                }
            }
            long manifest = 0;
            if (embedded != null) {
                manifest = framed(EmbeddedManifestSchema.newBuilder().addAllFields(embedded).build().toByteArray());
            }
            long meta = framed(Metadata.newBuilder().addAllBatchOffsets(batchOffsets).setPageTablePosition(table)
                    .setManifestPosition(manifest).build().toByteArray());
            write(le(8, meta));
            write(new byte[] {0, 0, 2, 0, 'L', 'A', 'N', 'C'});
            return out.toByteArray();
        }

        long framed(byte[] proto) {
            long at = write(le(4, proto.length));
            write(proto);
            return at;
        }
    }

    /** Two batches (3 + 2 rows) of strings, a list, a struct of int64 and bool, and a fixed-size list. */
    static byte[] nestedFile(boolean embed) {
        Builder w = new Builder();
        w.strings(0, 0, "a", "", "b");
        w.strings(0, 1, "", "c");
        w.strings(1, 0, "a", "", "b");
        w.strings(1, 1, "", "c");
        w.page(3, 0, w.write(Builder.le(4, 1, 2, 3)), 3);
        w.page(2, 0, w.write(Builder.le(4, 0, 2, 2, 3)), 4);
        w.page(3, 1, w.write(Builder.le(4, 4, 5, 6)), 3);
        w.page(2, 1, w.write(Builder.le(4, 0, 1, 3)), 3);
        w.page(5, 0, w.write(Builder.le(8, 10, 11, 12)), 3);
        w.page(5, 1, w.write(Builder.le(8, 13, 14)), 2);
        w.page(6, 0, w.write(new byte[] {0b101}), 3);
        w.page(6, 1, w.write(new byte[] {0b10}), 2);
        ByteBuffer f = ByteBuffer.allocate(40).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < 10; i++) {
            f.putFloat(i + 0.5f);
        }
        w.page(7, 0, w.write(Arrays.copyOf(f.array(), 24)), 3);
        w.page(7, 1, w.write(Arrays.copyOfRange(f.array(), 24, 40)), 2);
        return w.finish(List.of(0, 3, 5), 0, 7, embed ? FIELDS : null);
    }

    static final List<String> NESTED_ROWS = List.of(
            "a a [1,2] {\"a\":10,\"flag\":true} [0.5,1.5]",
            "null  [] {\"a\":11,\"flag\":false} [2.5,3.5]",
            "b b [3] {\"a\":12,\"flag\":true} [4.5,5.5]",
            "null  [4] {\"a\":13,\"flag\":false} [6.5,7.5]",
            "c c [5,6] {\"a\":14,\"flag\":true} [8.5,9.5]");

    @Test
    void stringsListsStructsBooleansAndFixedSizeLists() {
        try (LanceFileReader r = LanceFileReader.open(new MemorySource("nested", nestedFile(true))).block()) {
            assertThat(r.numRows()).isEqualTo(5);
            // nullable strings have no validity in legacy files: empty reads as null; required ones stay empty
            assertThat(scan(r, 2)).isEqualTo(NESTED_ROWS);
            assertThat(scan(r, 5)).isEqualTo(NESTED_ROWS);
            try (VectorSchemaRoot t = r.take(new long[] {4, 0, 3, 3, 1}, List.of("l", "st", "s"), alloc).block()) {
                assertThat(t.getSchema().getFields()).extracting(org.apache.arrow.vector.types.pojo.Field::getName)
                        .containsExactly("l", "st", "s");
                assertThat(rows(t)).containsExactly("[5,6] {\"a\":14,\"flag\":true} c", "[1,2] {\"a\":10,\"flag\":true} a",
                        "[4] {\"a\":13,\"flag\":false} null", "[4] {\"a\":13,\"flag\":false} null", "[] {\"a\":11,\"flag\":false} null");
            }
        }
    }

    @Test
    void datasetSchemaReadsAFileWithoutEmbeddedManifest() {
        byte[] file = nestedFile(false);
        assertThatThrownBy(() -> LanceFileReader.open(new MemorySource("bare", file)).block())
                .isInstanceOf(UnsupportedEncodingException.class).hasMessageContaining("through its dataset");
        // the dataset's schema, cut to the file's fields: here a dataset field 9 lives in another file
        List<Field> dataset = new ArrayList<>(FIELDS);
        dataset.add(field(9, -1, "other", "int64", true));
        V1Schema schema = new V1Schema(dataset, Map.of(), List.of(0, 1, 2, 3, 4, 5, 6, 7));
        try (LanceFileReader r = LanceFileReader.open(new MemorySource("bare", file),
                io.javelin.encoding.file.DecodeOptions.DEFAULT, schema).block()) {
            assertThat(r.schema().getFields()).hasSize(5);
            assertThat(scan(r, 3)).isEqualTo(NESTED_ROWS);
        }
    }

    /** A dictionary field: int8 keys in the page, the values in the embedded manifest's dictionary (offset, length). */
    static byte[] dictionaryFile(int badKey) {
        Builder w = new Builder();
        long[] pos = new long[4];
        pos[0] = w.out.size();
        String[] values = {"red", "green", "blue"};
        for (int i = 0; i < 3; i++) {
            w.write(values[i].getBytes(StandardCharsets.UTF_8));
            pos[i + 1] = w.out.size();
        }
        long dict = w.write(Builder.le(8, pos));
        w.page(0, 0, w.write(new byte[] {2, 0, (byte) badKey, 2}), 4);
        w.page(0, 1, w.write(new byte[] {1}), 1);
        Field d = field(0, -1, "d", "dict:string:int8:false", true).toBuilder()
                .setDictionary(io.javelin.encoding.pb.file.Dictionary.newBuilder().setOffset(dict).setLength(3)).build();
        return w.finish(List.of(0, 4, 5), 0, 0, List.of(d));
    }

    @Test
    void dictionaryFieldsReadAsTheirValues() {
        try (LanceFileReader r = LanceFileReader.open(new MemorySource("dict", dictionaryFile(1))).block()) {
            var f = r.schema().getFields().get(0);
            assertThat(f.getType()).isEqualTo(org.apache.arrow.vector.types.pojo.ArrowType.Utf8.INSTANCE);
            assertThat(f.getDictionary().getIndexType().getBitWidth()).isEqualTo(8);
            assertThat(scan(r, 3)).containsExactly("blue", "red", "green", "blue", "green");
            try (VectorSchemaRoot t = r.take(new long[] {4, 0, 0}, null, alloc).block()) {
                assertThat(rows(t)).containsExactly("green", "blue", "blue");
            }
        }
        try (LanceFileReader r = LanceFileReader.open(new MemorySource("badkey", dictionaryFile(3))).block()) {
            assertThatThrownBy(() -> r.scan(LanceFileReader.ScanOptions.all(8), alloc).doOnNext(VectorSchemaRoot::close).blockLast())
                    .isInstanceOf(CorruptFileException.class).hasMessageContaining("outside its 3 values");
        }
    }

    /** Opens and scans; must end normally or with a CorruptFileException naming the file. */
    void readAll(String name, byte[] bytes) {
        try (LanceFileReader r = LanceFileReader.open(new MemorySource(name, bytes)).block()) {
            r.scan(LanceFileReader.ScanOptions.all(2), alloc).doOnNext(VectorSchemaRoot::close).blockLast();
            r.take(new long[] {r.numRows() - 1, 0}, null, alloc).doOnNext(VectorSchemaRoot::close).block();
        } catch (CorruptFileException e) {
            assertThat(e.resource()).isEqualTo(name);
            assertThat(e.getMessage()).contains(name);
        } catch (Throwable t) {
            fail("not a CorruptFileException: " + t, t);
        }
    }

    @Test
    void truncatedFilesAreCorrupt() throws Exception {
        for (byte[] full : List.of(fixture("v0.7.5-int64-100rows.lance"), nestedFile(true))) {
            for (int len = 0; len < full.length; len++) {
                byte[] t = Arrays.copyOf(full, len);
                assertThatThrownBy(() -> LanceFileReader.open(new MemorySource("trunc", t)).block())
                        .as("truncated to %d bytes", len).isInstanceOf(CorruptFileException.class);
            }
        }
    }

    @Test
    void badPageTableEntriesAreCorrupt() throws Exception {
        byte[] b = fixture("v0.7.5-int64-100rows.lance");
        int table = 800; // the page table of this file: (position 0, length 100) for field 0, batch 0
        assertThat(ByteBuffer.wrap(b, table, 16).order(ByteOrder.LITTLE_ENDIAN).getLong(table + 8)).isEqualTo(100);
        byte[] farAway = patch(b, table, 1L << 40);
        assertThatThrownBy(() -> LanceFileReader.open(new MemorySource("far", farAway)).block())
                .isInstanceOf(CorruptFileException.class).hasMessageContaining("outside the file");
        byte[] late = patch(b, table, 700); // 100 values from 700 run past the end
        try (LanceFileReader r = LanceFileReader.open(new MemorySource("late", late)).block()) {
            assertThatThrownBy(() -> r.scan(LanceFileReader.ScanOptions.all(10), alloc).doOnNext(VectorSchemaRoot::close).blockLast())
                    .isInstanceOf(CorruptFileException.class).hasMessageContaining("outside the file");
        }
        byte[] shortPage = patch(b, table + 8, 5); // fewer values than the batch has rows
        try (LanceFileReader r = LanceFileReader.open(new MemorySource("short", shortPage)).block()) {
            assertThatThrownBy(() -> r.take(new long[] {50}, null, alloc).block())
                    .isInstanceOf(CorruptFileException.class).hasMessageContaining("holds 5 values");
        }
        byte[] badMeta = patch(b, b.length - 16, b.length); // metadata position at the footer
        assertThatThrownBy(() -> LanceFileReader.open(new MemorySource("meta", badMeta)).block())
                .isInstanceOf(CorruptFileException.class).hasMessageContaining("metadata position");
    }

    @Test
    void badStringPositionsAndListOffsetsAreCorrupt() {
        byte[] file = nestedFile(true);
        try (LanceFileReader r = LanceFileReader.open(new MemorySource("nested", file)).block()) {
            assertThat(r.numRows()).isEqualTo(5);
        }
        // the first string page's positions start at byte 3 ("a", "", "b" before them): make them descend
        byte[] desc = patch(file, 3 + 8, 0);
        assertThatThrownBy(() -> LanceFileReader.open(new MemorySource("desc", desc)).block()
                .scan(LanceFileReader.ScanOptions.all(5), alloc).doOnNext(VectorSchemaRoot::close).blockLast())
                .isInstanceOf(CorruptFileException.class).hasMessageContaining("not ascending");
    }

    @Test
    void randomlyDamagedFilesFailOnlyAsCorrupt() throws Exception {
        Random rnd = new Random(21);
        for (byte[] full : List.of(fixture("v0.7.5-int64-100rows.lance"), fixture("v0.15.0-int64-stats.lance"), nestedFile(true),
                dictionaryFile(1))) {
            for (int i = 0; i < 300; i++) {
                byte[] x = full.clone();
                for (int k = 0; k < 1 + rnd.nextInt(3); k++) {
                    x[rnd.nextInt(x.length)] = (byte) rnd.nextInt(256);
                }
                readAll("damaged", x);
            }
        }
    }

    static byte[] patch(byte[] b, int at, long value) {
        byte[] x = b.clone();
        ByteBuffer.wrap(x).order(ByteOrder.LITTLE_ENDIAN).putLong(at, value);
        return x;
    }
}
