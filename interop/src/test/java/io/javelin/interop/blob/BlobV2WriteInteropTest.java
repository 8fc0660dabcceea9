package io.javelin.interop.blob;

import static io.javelin.interop.blob.BlobFixtures.array;
import static io.javelin.interop.blob.BlobFixtures.bytes;
import static io.javelin.interop.blob.BlobFixtures.sha256;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.javelin.encoding.writer.LanceFileVersion;
import io.javelin.engine.Blob;
import io.javelin.engine.BlobWriteOptions;
import io.javelin.engine.Dataset;
import io.javelin.engine.InvalidScanException;
import io.javelin.engine.WriteMode;
import io.javelin.engine.WriteParams;
import io.javelin.interop.blob.BlobFixtures.Ext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;

/**
 * Blob v2 datasets written by Javelin (format 2.2) read by lance-core 7.0.0 with identical bytes per row
 * for every placement, the same descriptors and sidecar layout lance-core produces for the same rows,
 * and the write-side validation rules of spec 001.
 */
class BlobV2WriteInteropTest {

    @TempDir
    Path dir;

    final BufferAllocator alloc = new RootAllocator();

    @AfterEach
    void close() {
        alloc.close();
    }

    List<Object> values = new ArrayList<>();
    List<byte[]> expected = new ArrayList<>();

    void everyPlacement() throws Exception {
        byte[] ext = bytes(10_000, 99);
        Path extFile = dir.resolve("ext").resolve("object.bin");
        Files.createDirectories(extFile.getParent());
        Files.write(extFile, ext);
        String extUri = extFile.toUri().toString();
        values.addAll(Arrays.asList(bytes(100, 1), new byte[0], null, bytes(200_000, 2), bytes(150_000, 3),
                bytes(5_000_000, 4), new Ext(extUri, 0, -1), new Ext(extUri, 4096, 50), bytes(70_000, 5), bytes(3, 6)));
        for (Object v : values) {
            expected.add(v == null ? null : v instanceof byte[] b ? b
                    : ((Ext) v).size() < 0 ? ext : Arrays.copyOfRange(ext, 4096, 4096 + 50));
        }
    }

    Dataset javelinWrite(String uri, Schema schema, List<Object> rows, BlobWriteOptions blobs) {
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, alloc);
        BlobFixtures.fill(root, rows);
        WriteParams p = WriteParams.of(WriteMode.CREATE).withDataStorageVersion(LanceFileVersion.V2_2).withBlobs(blobs);
        try {
            return Dataset.write(uri, Flux.just(root), schema, p).block();
        } finally {
            root.close(); // a write refused before reading its input leaves the batch to the caller
        }
    }

    @Test
    void everyPlacementWrittenByJavelinReadsIdenticallyInLanceCore() throws Exception {
        everyPlacement();
        String ours = dir.resolve("ours").toString();
        String theirs = dir.resolve("theirs").toString();
        javelinWrite(ours, BlobFixtures.schema(), values, new BlobWriteOptions(true, 300_000)).close();
        BlobFixtures.lanceWrite(alloc, theirs, values, 300_000);
        long[] rows = new long[values.size()];
        Arrays.setAll(rows, i -> i);
        List<String> want = expected.stream().map(b -> b == null ? "null" : sha256(b)).toList();

        try (org.lance.Dataset lds = org.lance.Dataset.open(ours, alloc)) {
            List<String> got = new ArrayList<>();
            for (var b : lds.takeBlobsByIndices(Arrays.stream(rows).boxed().toList(), "blob")) {
                got.add(sha256(b.read()));
            }
            assertThat(got).as("lance-core reads Javelin's blobs").isEqualTo(want.stream().filter(s -> !s.equals("null")).toList());
            assertThat(lds.countRows()).isEqualTo(values.size());
        }
        // lance-core scans the same descriptors from both datasets (positions of inline bytes aside)
        BlobV2ReadInteropTest reader = new BlobV2ReadInteropTest();
        List<String> a = withoutInlinePositions(lanceDescriptors(reader, ours));
        List<String> b = withoutInlinePositions(lanceDescriptors(reader, theirs));
        assertThat(a).isEqualTo(b);
        // the same sidecar files (sizes) in both
        assertThat(sidecars(ours)).isEqualTo(sidecars(theirs)).containsExactly(200_000L, 220_000L, 5_000_000L);

        try (Dataset ds = Dataset.open(ours).block()) {
            List<Blob> blobs = new ArrayList<>(ds.readBlobs("blob", rows).collectList().block());
            blobs.sort(Comparator.comparingInt(Blob::index));
            assertThat(blobs.stream().map(x -> x.isNull() ? "null" : sha256(array(x.data()))).toList()).isEqualTo(want);
            assertThat(ds.schema().findField("blob").getMetadata()).containsEntry("ARROW:extension:name", "lance.blob.v2");
        }
    }

    List<String> lanceDescriptors(BlobV2ReadInteropTest r, String uri) throws Exception {
        List<String> out = new ArrayList<>();
        try (org.lance.Dataset lds = org.lance.Dataset.open(uri, alloc);
             var sc = lds.newScan(new org.lance.ipc.ScanOptions.Builder().batchSize(1000).build());
             var rd = sc.scanBatches()) {
            while (rd.loadNextBatch()) {
                VectorSchemaRoot root = rd.getVectorSchemaRoot();
                for (int i = 0; i < root.getRowCount(); i++) {
                    out.add(String.valueOf(root.getVector("blob").getObject(i)));
                }
            }
        }
        return out;
    }

    static List<String> withoutInlinePositions(List<String> d) {
        return d.stream().map(s -> s.startsWith("{\"kind\":0,") ? s.replaceAll("\"position\":\\d+", "\"position\":_") : s).toList();
    }

    static List<Long> sidecars(String uri) throws Exception {
        try (Stream<Path> s = Files.walk(Path.of(uri, "data"))) {
            return s.filter(p -> p.toString().endsWith(".blob")).map(p -> p.toFile().length()).sorted().toList();
        }
    }

    @Test
    void writeValidationFollowsSpec001() throws Exception {
        Schema schema = BlobFixtures.schema();
        String uri = dir.resolve("bad").toString();
        // exactly one of data and uri
        assertThatThrownBy(() -> javelinWrite(uri, schema, List.of(new Ext("file:///x/y", 0, -1), bytes(1, 1)),
                BlobWriteOptions.DEFAULTS)).isInstanceOf(InvalidScanException.class)
                .hasMessageContaining("outside registered external bases");
        // a range needs size > 0
        assertThatThrownBy(() -> javelinWrite(uri, schema, List.of(new Ext("file:///x/y", 5, 0)),
                new BlobWriteOptions(true, 0))).isInstanceOf(InvalidScanException.class).hasMessageContaining("size > 0");
        // legacy blob metadata is refused for 2.2, blob v2 for 2.1
        Schema legacy = new Schema(List.of(new Field("b", new FieldType(true, ArrowType.LargeBinary.INSTANCE, null,
                Map.of("lance-encoding:blob", "true")), null)));
        VectorSchemaRoot r = VectorSchemaRoot.create(legacy, alloc);
        r.setRowCount(0);
        assertThatThrownBy(() -> Dataset.write(uri, Flux.just(r), legacy, WriteParams.of(WriteMode.CREATE)
                .withDataStorageVersion(LanceFileVersion.V2_2)).block()).isInstanceOf(InvalidScanException.class)
                .hasMessageContaining("legacy blob metadata");
        r.close();
        VectorSchemaRoot v = VectorSchemaRoot.create(schema, alloc);
        BlobFixtures.fill(v, List.of(bytes(3, 3)));
        assertThatThrownBy(() -> Dataset.write(uri, Flux.just(v), schema, WriteParams.of(WriteMode.CREATE)
                .withDataStorageVersion(LanceFileVersion.V2_1)).block()).isInstanceOf(InvalidScanException.class)
                .hasMessageContaining("needs data_storage_version 2.2");
        v.close();
        // a bad threshold in the schema
        Field odd = new Field("blob", new FieldType(true, ArrowType.Struct.INSTANCE, null, Map.of("ARROW:extension:name",
                "lance.blob.v2", "lance-encoding:blob-dedicated-size-threshold", "0")), BlobFixtures.blobField("blob").getChildren());
        Schema oddSchema = new Schema(List.of(BlobFixtures.schema().getFields().get(0), odd));
        assertThatThrownBy(() -> javelinWrite(uri, oddSchema, List.of(bytes(3, 3)), BlobWriteOptions.DEFAULTS))
                .isInstanceOf(InvalidScanException.class).hasMessageContaining("positive integer");
    }

    static Schema withDedicated(String threshold) {
        Map<String, String> md = new java.util.HashMap<>(Map.of("ARROW:extension:name", "lance.blob.v2"));
        if (threshold != null) {
            md.put("lance-encoding:blob-dedicated-size-threshold", threshold);
        }
        Field f = new Field("blob", new FieldType(true, ArrowType.Struct.INSTANCE, null, md), BlobFixtures.blobField("blob").getChildren());
        return new Schema(List.of(BlobFixtures.schema().getFields().get(0), f));
    }

    @Test
    void thresholdsAreStoredInTheSchemaAndAppendsCannotChangeThem() throws Exception {
        String uri = dir.resolve("thr").toString();
        javelinWrite(uri, withDedicated("1000"), List.of(bytes(1500, 1)), BlobWriteOptions.DEFAULTS).close();
        assertThat(sidecars(uri)).containsExactly(1500L); // 1500 > 1000: dedicated
        WriteParams append = WriteParams.of(WriteMode.APPEND).withDataStorageVersion(LanceFileVersion.V2_2);
        VectorSchemaRoot other = VectorSchemaRoot.create(withDedicated("2000"), alloc);
        BlobFixtures.fill(other, List.of(bytes(1500, 2)));
        assertThatThrownBy(() -> Dataset.write(uri, Flux.just(other), withDedicated("2000"), append).block())
                .isInstanceOf(InvalidScanException.class).hasMessageContaining("cannot change it");
        other.close();
        // an append without threshold metadata uses the stored one
        VectorSchemaRoot plain = VectorSchemaRoot.create(withDedicated(null), alloc);
        BlobFixtures.fill(plain, List.of(bytes(1600, 3)));
        Dataset.write(uri, Flux.just(plain), withDedicated(null), append).block().close();
        assertThat(sidecars(uri)).containsExactly(1500L, 1600L);
        try (org.lance.Dataset lds = org.lance.Dataset.open(uri, alloc)) {
            List<String> got = new ArrayList<>();
            for (var b : lds.takeBlobsByIndices(List.of(0L, 1L), "blob")) {
                got.add(sha256(b.read()));
            }
            assertThat(got).containsExactly(sha256(bytes(1500, 1)), sha256(bytes(1600, 3)));
        }
    }
}
