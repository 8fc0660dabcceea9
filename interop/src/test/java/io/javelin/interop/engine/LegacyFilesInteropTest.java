package io.javelin.interop.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.javelin.engine.Dataset;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryEncoder;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;
import reactor.core.scheduler.Schedulers;

/**
 * Legacy data files (format 0.1 / 0.2) read as lance-core 7.0.0 reads them: the upstream datasets of old
 * writers (deletions, mixed 0.1 + 2.0 fragments) and legacy datasets lance-core writes with every type the
 * legacy encodings store. Schema and values of full, projected and filtered scans, takes and exports.
 */
class LegacyFilesInteropTest {

    @TempDir
    Path dir;

    final BufferAllocator alloc = new RootAllocator();

    @AfterEach
    void closeAllocator() {
        alloc.close();
    }

    Path copy(String name) throws Exception {
        return OldDatasetsInteropTest.copyFixture(dir, name);
    }

    @ParameterizedTest
    @ValueSource(strings = {"v0.7.5/with_deletions", "v0.8.0/migrated_from_v0.7.5", "v0.15.0/v1_with_files.lance",
            "v0.15.0/v2_with_files.lance", "v0.16.0/wrong_data_version_can_fix.lance", "v0.16.0/wrong_data_version_no_fix.lance"})
    void oldWritersDatasetsReadAsLanceCoreReadsThem(String name) throws Exception {
        String uri = copy(name).toString();
        BatchSchemaInteropTest.check(dir, uri);
        String column;
        try (org.lance.Dataset lance = org.lance.Dataset.open(uri, alloc)) {
            column = lance.getSchema().getFields().get(0).getName();
        }
        List<String> all = lanceRows(uri, List.of(column), null);
        // a threshold inside the data: some rows pass, not all
        long[] sorted = all.stream().mapToLong(r -> Long.parseLong(r.replace("|", ""))).sorted().toArray();
        long pivot = sorted[sorted.length / 2];
        String filter = pivot == sorted[0] ? column + " > " + pivot : column + " >= " + pivot;
        assertQueriesMatch(uri, List.of(column), filter, all.size());
    }

    static final Schema TYPES = new Schema(List.of(
            new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
            new Field("flag", FieldType.nullable(ArrowType.Bool.INSTANCE), null),
            new Field("f64", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), null),
            new Field("s", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
            new Field("s_required", FieldType.notNullable(ArrowType.Utf8.INSTANCE), null),
            new Field("ls", FieldType.nullable(ArrowType.LargeUtf8.INSTANCE), null),
            new Field("bin", FieldType.nullable(ArrowType.Binary.INSTANCE), null),
            new Field("day", FieldType.nullable(new ArrowType.Date(DateUnit.DAY)), null),
            new Field("ts", FieldType.nullable(new ArrowType.Timestamp(TimeUnit.MICROSECOND, null)), null),
            new Field("dec", FieldType.nullable(new ArrowType.Decimal(12, 3, 128)), null),
            new Field("fsb", FieldType.nullable(new ArrowType.FixedSizeBinary(3)), null)));

    static void fillTypes(VectorSchemaRoot root, int n) {
        for (var v : root.getFieldVectors()) {
            v.setInitialCapacity(n);
            v.allocateNew();
        }
        for (int i = 0; i < n; i++) {
            ((BigIntVector) root.getVector("id")).setSafe(i, i);
            if (i % 5 == 0) {
                ((BitVector) root.getVector("flag")).setNull(i);
            } else {
                ((BitVector) root.getVector("flag")).setSafe(i, i % 3 == 0 ? 1 : 0);
            }
            ((Float8Vector) root.getVector("f64")).setSafe(i, i * 1.5);
            VarCharVector s = (VarCharVector) root.getVector("s");
            if (i % 7 == 0) {
                s.setNull(i);
            } else {
                // empty values too: a legacy file cannot tell them from nulls
                s.setSafe(i, (i % 7 == 1 ? "" : "s" + i).getBytes(StandardCharsets.UTF_8));
            }
            ((VarCharVector) root.getVector("s_required")).setSafe(i, (i % 4 == 0 ? "" : "r" + i).getBytes(StandardCharsets.UTF_8));
            ((LargeVarCharVector) root.getVector("ls")).setSafe(i, ("large-" + i).getBytes(StandardCharsets.UTF_8));
            ((VarBinaryVector) root.getVector("bin")).setSafe(i, new byte[] {(byte) i, (byte) (i * 3), 7});
            ((DateDayVector) root.getVector("day")).setSafe(i, 19000 + i);
            ((TimeStampMicroVector) root.getVector("ts")).setSafe(i, 1_700_000_000_000_000L + i);
            ((DecimalVector) root.getVector("dec")).setSafe(i, BigDecimal.valueOf(i * 1001L, 3));
            ((FixedSizeBinaryVector) root.getVector("fsb")).setSafe(i, new byte[] {(byte) i, 1, 2});
        }
        root.setRowCount(n);
        for (var v : root.getFieldVectors()) {
            v.setValueCount(n);
        }
    }

    /** Writes {@code n} rows with lance-core as a legacy dataset of files of at most 20 rows. */
    String writeLegacy(String name, Schema schema, java.util.function.BiConsumer<VectorSchemaRoot, Integer> fill, int n)
            throws Exception {
        String uri = write(name, schema, fill, n, "legacy");
        assertLegacyFiles(dir.resolve(name));
        return uri;
    }

    /** Writes {@code n} rows with lance-core in data storage version {@code storage}, files of at most 20 rows. */
    String write(String name, Schema schema, java.util.function.BiConsumer<VectorSchemaRoot, Integer> fill, int n, String storage)
            throws Exception {
        String uri = dir.resolve(name).toString();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, alloc);
             ArrowStreamWriter w = new ArrowStreamWriter(root, null, out)) {
            w.start();
            fill.accept(root, n);
            w.writeBatch();
            w.end();
        }
        try (ArrowReader reader = new ArrowStreamReader(new ByteArrayInputStream(out.toByteArray()), alloc);
             ArrowArrayStream stream = ArrowArrayStream.allocateNew(alloc)) {
            Data.exportArrayStream(alloc, reader, stream);
            var p = new org.lance.WriteParams.Builder().withDataStorageVersion(storage).withMaxRowsPerFile(20).build();
            org.lance.Dataset.create(alloc, stream, uri, p).close();
        }
        return uri;
    }

    /** Every data file of the dataset at {@code root} has a legacy footer (version 0.1 or 0.2). */
    static void assertLegacyFiles(Path root) throws Exception {
        try (Stream<Path> files = Files.list(root.resolve("data"))) {
            List<Path> all = files.toList();
            assertThat(all).isNotEmpty();
            for (Path f : all) {
                byte[] b = Files.readAllBytes(f);
                assertThat(b[b.length - 8]).as("legacy footer major of %s", f).isZero();
                assertThat(b[b.length - 6]).as("legacy footer minor of %s", f).isBetween((byte) 1, (byte) 2);
            }
        }
    }

    @Test
    void scalarAndStringTypesInLegacyFiles() throws Exception {
        String uri = writeLegacy("types.lance", TYPES, LegacyFilesInteropTest::fillTypes, 57);
        BatchSchemaInteropTest.check(dir, uri);
        assertQueriesMatch(uri, List.of("s", "flag", "dec"), "id >= 23", 57);
        assertQueriesMatch(uri, List.of("id", "s_required", "bin", "fsb"), "s IS NULL", 57);
    }

    @Test
    void nestedTypesInLegacyFiles() throws Exception {
        Schema nested = new Schema(BatchSchemaInteropTest.NESTED.getFields().stream()
                .filter(f -> !f.getName().equals("m")).toList());
        String uri = writeLegacy("nested.lance", nested, BatchSchemaInteropTest::fillNested, 50);
        BatchSchemaInteropTest.check(dir, uri);
        assertQueriesMatch(uri, List.of("tags", "st", "pts"), "id < 31", 50);
        assertQueriesMatch(uri, List.of("vec", "big"), "id % 3 = 1", 50);
    }

    @Test
    void legacyDatasetWithDeletions() throws Exception {
        String uri = writeLegacy("mixed.lance", TYPES, LegacyFilesInteropTest::fillTypes, 45);
        try (org.lance.Dataset lance = org.lance.Dataset.open(uri, alloc)) {
            lance.delete("id % 4 = 2");
        }
        BatchSchemaInteropTest.check(dir, uri);
        assertQueriesMatch(uri, List.of("id", "s", "ts"), "f64 > 20", 45 - 11);
    }

    /**
     * A dictionary-encoded string column (keys in the file, values in the manifests): the same values as
     * lance-core. Javelin reads a dictionary field as its values (the field keeps its {@code DictionaryEncoding}),
     * lance-core's Java batches carry the keys and the dictionary: values are compared decoded.
     */
    @Test
    void dictionaryColumnInLegacyFiles() throws Exception {
        String uri = dir.resolve("dict.lance").toString();
        DictionaryEncoding enc = new DictionaryEncoding(1, false, new ArrowType.Int(32, true));
        String[] colors = {"red", "green", "blue", "ultraviolet-\u00e4"};
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (VarCharVector values = new VarCharVector("colors", alloc)) {
            values.allocateNew();
            for (int i = 0; i < colors.length; i++) {
                values.setSafe(i, colors[i].getBytes(StandardCharsets.UTF_8));
            }
            values.setValueCount(colors.length);
            var provider = new DictionaryProvider.MapDictionaryProvider();
            provider.put(new Dictionary(values, enc));
            Schema schema = new Schema(List.of(new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
                    new Field("color", new FieldType(true, new ArrowType.Int(32, true), enc), null)));
            try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, alloc);
                 ArrowStreamWriter w = new ArrowStreamWriter(root, provider, out)) {
                BigIntVector id = (BigIntVector) root.getVector("id");
                IntVector keys = (IntVector) root.getVector("color");
                id.allocateNew(41);
                keys.allocateNew(41);
                for (int i = 0; i < 41; i++) {
                    id.set(i, i);
                    keys.set(i, (i * 7) % colors.length);
                }
                id.setValueCount(41);
                keys.setValueCount(41);
                root.setRowCount(41);
                w.start();
                w.writeBatch();
                w.end();
            }
        }
        try (ArrowReader reader = new ArrowStreamReader(new ByteArrayInputStream(out.toByteArray()), alloc);
             ArrowArrayStream stream = ArrowArrayStream.allocateNew(alloc)) {
            Data.exportArrayStream(alloc, reader, stream);
            var p = new org.lance.WriteParams.Builder().withDataStorageVersion("legacy").withMaxRowsPerFile(20).build();
            org.lance.Dataset.create(alloc, stream, uri, p).close();
        }
        assertLegacyFiles(Path.of(uri));
        List<String> theirs = new ArrayList<>();
        try (org.lance.Dataset lance = org.lance.Dataset.open(uri, alloc);
             LanceScanner s = lance.newScan(new ScanOptions.Builder().batchSize(16).build()); ArrowReader r = s.scanBatches()) {
            while (r.loadNextBatch()) {
                VectorSchemaRoot b = r.getVectorSchemaRoot();
                var keys = b.getVector("color");
                long dictId = keys.getField().getDictionary().getId();
                try (var decoded = DictionaryEncoder.decode(keys, r.getDictionaryVectors().get(dictId))) {
                    for (int i = 0; i < b.getRowCount(); i++) {
                        theirs.add(b.getVector("id").getObject(i) + "|" + decoded.getObject(i) + "|");
                    }
                }
            }
        }
        assertThat(theirs).hasSize(41).contains("1|ultraviolet-\u00e4|");
        assertThat(ours(uri, List.of("id", "color"), null)).isEqualTo(theirs);
        List<String> filtered = new ArrayList<>(theirs.stream().filter(r -> r.contains("|green|")).toList());
        assertThat(ours(uri, List.of("id", "color"), "color = 'green'")).isEqualTo(filtered).isNotEmpty();
        try (Dataset ds = Dataset.open(uri).block();
             VectorSchemaRoot t = ds.take(new long[] {40, 1, 21, 21}, List.of("id", "color"), alloc).block()) {
            assertThat(ds.schema().findField("color").getDictionary()).isNotNull();
            assertThat(GoldenExportInteropTest.rows(t, Set.of()))
                    .containsExactly(theirs.get(40), theirs.get(1), theirs.get(21), theirs.get(21));
        }
    }

    /**
     * Upstream's {@code corrupt_schema} history (Lance 0.10.5 datagen) on files written by lance-core:
     * columns added in files of two columns, one of them dropped, more added. A data file then holds more
     * columns than its fragment's field list names; rows are read by the fragment's field ids.
     */
    @ParameterizedTest
    @ValueSource(strings = {"legacy", "2.0", "2.1"})
    void filesHoldingDroppedColumns(String storage) throws Exception {
        String uri = write("evolved.lance", TYPES, LegacyFilesInteropTest::fillTypes, 45, storage);
        try (org.lance.Dataset lance = org.lance.Dataset.open(uri, alloc)) {
            lance.addColumns(new org.lance.schema.SqlExpressions.Builder().withExpression("y", "id * 2")
                    .withExpression("z", "id * 3").build(), java.util.Optional.empty());
            lance.addColumns(new org.lance.schema.SqlExpressions.Builder().withExpression("a", "-id").build(), java.util.Optional.empty());
            lance.dropColumns(List.of("a", "z", "f64"));
            lance.addColumns(new org.lance.schema.SqlExpressions.Builder().withExpression("b", "id * 4")
                    .withExpression("c", "id * 5").build(), java.util.Optional.empty());
        }
        if (storage.equals("legacy")) {
            assertLegacyFiles(Path.of(uri));
        }
        BatchSchemaInteropTest.check(dir, uri);
        assertQueriesMatch(uri, List.of("id", "y", "b", "c", "s"), "c > 100", 45);
    }

    /**
     * Writes to a legacy dataset are refused by name (lance-core would add legacy files, Javelin writes only
     * 2.x): the dataset is left as it was and still reads as lance-core reads it.
     */
    @Test
    void writesToLegacyDatasetsAreRefusedByName() throws Exception {
        String uri = writeLegacy("readonly.lance", TYPES, LegacyFilesInteropTest::fillTypes, 57);
        try (org.lance.Dataset lance = org.lance.Dataset.open(uri, alloc)) {
            lance.delete("id % 5 = 3");
        }
        try (Dataset ds = Dataset.open(uri).block()) {
            assertThatThrownBy(() -> ds.compact(io.javelin.engine.maintenance.CompactionOptions.defaults()).block())
                    .isInstanceOf(io.javelin.engine.DatasetException.class).hasMessageContaining("legacy (0.1)")
                    .hasCauseInstanceOf(io.javelin.tx.UnsupportedFeatureException.class);
            assertThatThrownBy(() -> ds.addColumns(java.util.Map.of("twice", "id * 2")).block())
                    .isInstanceOf(io.javelin.engine.DatasetException.class).hasMessageContaining("legacy (0.1)")
                    .hasCauseInstanceOf(io.javelin.tx.UnsupportedFeatureException.class);
            assertThat(ds.count().block()).isEqualTo(57 - 11);
        }
        try (org.lance.Dataset lance = org.lance.Dataset.open(uri, alloc)) {
            assertThat(lance.version()).isEqualTo(2);
        }
        BatchSchemaInteropTest.check(dir, uri);
    }

    /** Projected and filtered scans and a take (any order, repeats) give lance-core's rows. */
    void assertQueriesMatch(String uri, List<String> columns, String filter, int rows) throws Exception {
        assertThat(ours(uri, columns, null)).as("projected scan %s", columns).isEqualTo(lanceRows(uri, columns, null))
                .hasSize(rows);
        List<String> filtered = lanceRows(uri, columns, filter);
        assertThat(filtered).as("filter %s passes some rows, not all", filter).isNotEmpty().hasSizeLessThan(rows);
        assertThat(ours(uri, columns, filter)).as("filtered scan %s", filter).isEqualTo(filtered);
        List<Long> idx = List.of((long) rows - 1, 0L, (long) rows / 2, 1L, (long) rows / 2, (long) rows - 2);
        List<String> theirs = new ArrayList<>();
        try (org.lance.Dataset lance = org.lance.Dataset.open(uri, alloc); ArrowReader r = lance.take(idx, columns)) {
            while (r.loadNextBatch()) {
                theirs.addAll(GoldenExportInteropTest.rows(r.getVectorSchemaRoot(), Set.of()));
            }
        }
        try (Dataset ds = Dataset.open(uri).block();
             VectorSchemaRoot t = ds.take(idx.stream().mapToLong(Long::longValue).toArray(), columns, alloc).block()) {
            assertThat(t.getSchema().getFields()).as("take schema")
                    .isEqualTo(columns.stream().map(c -> ds.schema().findField(c)).toList());
            assertThat(GoldenExportInteropTest.rows(t, Set.of())).as("take %s", idx).isEqualTo(theirs).hasSize(idx.size());
        }
    }

    List<String> lanceRows(String uri, List<String> columns, String filter) throws Exception {
        List<String> out = new ArrayList<>();
        ScanOptions.Builder b = new ScanOptions.Builder().columns(columns).batchSize(16);
        if (filter != null) {
            b.filter(filter);
        }
        try (org.lance.Dataset lance = org.lance.Dataset.open(uri, alloc); LanceScanner s = lance.newScan(b.build());
             ArrowReader r = s.scanBatches()) {
            while (r.loadNextBatch()) {
                out.addAll(GoldenExportInteropTest.rows(r.getVectorSchemaRoot(), Set.of()));
            }
        }
        return out;
    }

    List<String> ours(String uri, List<String> columns, String filter) {
        List<String> out = new ArrayList<>();
        try (Dataset ds = Dataset.open(uri).block()) {
            var scanner = ds.scanner().columns(columns.toArray(String[]::new)).batchSize(16);
            if (filter != null) {
                scanner = scanner.filter(filter);
            }
            for (VectorSchemaRoot b : scanner.scan(alloc).publishOn(Schedulers.boundedElastic(), 1).toIterable(1)) {
                try (b) {
                    out.addAll(GoldenExportInteropTest.rows(b, Set.of()));
                }
            }
        }
        return out;
    }
}
