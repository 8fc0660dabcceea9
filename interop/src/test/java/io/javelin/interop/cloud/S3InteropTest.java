package io.javelin.interop.cloud;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.engine.Dataset;
import io.javelin.engine.VersionInfo;
import io.javelin.engine.WriteMode;
import io.javelin.engine.WriteParams;
import io.javelin.objectstore.servers.S3ProxyServer;
import io.javelin.tx.FragmentInfo;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lance.ReadOptions;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;

/**
 * Both interop directions of issue #6 on an S3-compatible server: S3Proxy 4.1.0 (in-memory backend,
 * started on 127.0.0.1 by the objectstore test-jar's {@link S3ProxyServer}). Both engines get the same
 * Lance storage options ({@code aws_endpoint}, {@code aws_region}, {@code aws_access_key_id},
 * {@code aws_secret_access_key}, {@code allow_http}); lance-core commits with its default S3 commit
 * handler (conditional PUT, {@code If-None-Match: *}), which S3Proxy honours, as does Javelin's
 * create-if-absent. Every version and every tag is compared row by row between the two engines.
 *
 * <p>{@link SdkClientCloseBlockHoundIntegration} keeps each S3 client close from waiting out the SDK's
 * pool-close timeout under BlockHound.
 */
@Timeout(120)
class S3InteropTest {

    static {
        // The s3proxy jar is copied by the objectstore module's build; fall back to the local Maven repository.
        if (System.getProperty("javelin.s3proxy.jar") == null) {
            Path built = Path.of("../objectstore/target/test-servers/s3proxy.jar");
            Path repo = Path.of(System.getProperty("user.home"),
                    ".m2/repository/org/gaul/s3proxy/4.1.0/s3proxy-4.1.0-jar-with-dependencies.jar");
            System.setProperty("javelin.s3proxy.jar", (Files.isRegularFile(built) ? built : repo).toString());
        }
    }

    static final String BUCKET = "interop";

    static final Schema SCHEMA = new Schema(List.of(
            new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
            new Field("v", FieldType.nullable(new ArrowType.Int(64, true)), null)));

    static Map<String, String> options;

    final BufferAllocator alloc = new RootAllocator();

    @BeforeAll
    static void startServer() {
        S3ProxyServer s = S3ProxyServer.get();
        s.createBucket(BUCKET);
        options = Map.copyOf(s.options());
    }

    @AfterEach
    void closeAllocator() {
        alloc.close();
    }

    static String uri(String name) {
        return "s3://" + BUCKET + "/" + name + "-" + System.nanoTime() + ".lance";
    }

    // ------------------------------------------------------------------ lance-core writes, Javelin reads

    @Test
    void javelinReadsEveryVersionAndTagLanceCoreWritesOnS3() throws Exception {
        String uri = uri("theirs");
        lanceWrite(uri, 0, 3000, org.lance.WriteParams.WriteMode.CREATE);               // v1
        try (org.lance.Dataset ds = lanceOpen(uri)) {
            ds.delete("id % 5 = 0 OR (id >= 1000 AND id < 1100)");                      // v2
            ds.tags().create("after-delete", 2);
        }
        lanceWrite(uri, 10_000, 1500, org.lance.WriteParams.WriteMode.OVERWRITE);       // v3
        lanceWrite(uri, 20_000, 500, org.lance.WriteParams.WriteMode.APPEND);           // v4
        try (org.lance.Dataset ds = lanceOpen(uri)) {
            ds.delete("id >= 20400 OR id % 7 = 3");                                     // v5
            ds.tags().create("after-append", 4);
            ds.tags().create("first", 1);
            assertThat(ds.version()).isEqualTo(5);
        }

        // one store client per test, opened through the static tag entry point; the rest are checkouts
        try (Dataset tagged = Dataset.open(uri, options, "after-delete").block();
             Dataset latest = tagged.checkoutLatest().block()) {
            assertThat(tagged.version()).isEqualTo(2);
            assertThat(scan(tagged)).isEqualTo(lanceRows(uri, 2));
            assertThat(latest.version()).isEqualTo(5);
            assertThat(javelinVersions(latest)).containsExactly(1L, 2L, 3L, 4L, 5L);
            assertSameVersions(uri, latest);
            assertSameTags(uri, latest, Map.of("after-delete", 2L, "after-append", 4L, "first", 1L));
            // spot counts, so the comparison is not between two equally wrong readers
            assertThat(rowsAt(latest, 1)).hasSize(3000);
            assertThat(rowsAt(latest, 2)).hasSize(3000 - 600 - 80);
            assertThat(rowsAt(latest, 3)).hasSize(1500);
            assertThat(rowsAt(latest, 4)).hasSize(2000);
            assertThat(latest.count().block()).isEqualTo(lanceCount(uri));
        }
    }

    // ------------------------------------------------------------------ Javelin writes, lance-core reads and writes on top

    @Test
    void lanceCoreReadsEveryVersionAndTagJavelinWritesOnS3ThenWritesOnTop() throws Exception {
        String uri = uri("ours");
        // v1 keeps the test's one store client open throughout; the later reads are checkouts from it
        try (Dataset v1 = Dataset.write(uri, options, ours(0, 12_000), SCHEMA,
                WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(6000)).block()) {
            try (Dataset v2 = v1.append(ours(12_000, 500), SCHEMA).block();
                 // fragment 0 loses 5500+ rows (bitmap deletion file), the others a few (Arrow IPC deletion files)
                 Dataset v3 = v2.delete("id < 5500 OR id % 100 = 7").block()) {
                assertThat(v3.version()).isEqualTo(3);
                assertThat(deletionKinds(v3)).containsExactly("BITMAP", "ARROW_ARRAY", "ARROW_ARRAY");
                v3.createTag("ours-appended", 2).block();
                try (Dataset v4 = v3.overwrite(ours(30_000, 800), SCHEMA, WriteParams.of(WriteMode.OVERWRITE)).block();
                     Dataset v5 = v4.append(ours(40_000, 200), SCHEMA).block()) {
                    assertThat(v5.version()).isEqualTo(5);
                    v5.createTag("ours-overwritten", 4).block();
                    v5.createTag("ours-deleted", 3).block();
                }
            }

            Map<String, Long> tags = Map.of("ours-appended", 2L, "ours-overwritten", 4L, "ours-deleted", 3L);
            try (Dataset latest = v1.checkoutLatest().block()) {
                assertThat(javelinVersions(latest)).containsExactly(1L, 2L, 3L, 4L, 5L);
                assertSameVersions(uri, latest);
                assertSameTags(uri, latest, tags);
            }
            try (org.lance.Dataset ds = lanceOpen(uri)) {
                assertThat(ds.version()).isEqualTo(5);
                assertThat(ds.countRows()).isEqualTo(1000);
                try (org.lance.Dataset v3 = ds.checkoutVersion(3)) {
                    assertThat(v3.countRows()).isEqualTo(12_500 - 5500 - 65 - 5);
                }
            }

            // lance-core appends and deletes on our dataset; we read the result (and every version again)
            lanceWrite(uri, 50_000, 300, org.lance.WriteParams.WriteMode.APPEND);       // v6
            try (org.lance.Dataset ds = lanceOpen(uri)) {
                ds.delete("id % 2 = 1");                                                // v7
                ds.tags().create("theirs-on-ours", 6);
                assertThat(ds.version()).isEqualTo(7);
            }
            try (Dataset latest = v1.checkoutLatest().block()) {
                assertThat(latest.version()).isEqualTo(7);
                assertThat(javelinVersions(latest)).containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L);
                assertThat(latest.count().block()).isEqualTo(650);
                assertThat(scan(latest)).hasSize(650)
                        .allMatch(r -> Long.parseLong(r.substring(0, r.indexOf('|'))) % 2 == 0);
                assertSameVersions(uri, latest);
                Map<String, Long> all = new TreeMap<>(tags);
                all.put("theirs-on-ours", 6L);
                assertSameTags(uri, latest, all);
                // and we keep committing after lance-core did: lance-core reads it
                try (Dataset v8 = latest.delete("id >= 50000").block()) {
                    assertThat(v8.version()).isEqualTo(8);
                }
            }
        }
        assertThat(lanceCount(uri)).isEqualTo(500);
        assertThat(lanceRows(uri, 8)).hasSize(500).isEqualTo(lanceRows(uri, 7).subList(0, 500));
    }

    // ------------------------------------------------------------------ comparisons

    /** Every version Javelin lists reads the same rows in both engines. */
    void assertSameVersions(String uri, Dataset latest) throws Exception {
        for (long v : javelinVersions(latest)) {
            assertThat(rowsAt(latest, v)).as("version %d", v).isEqualTo(lanceRows(uri, v));
        }
    }

    /** Both engines list exactly {@code expected} and read the same rows through each tag. */
    void assertSameTags(String uri, Dataset latest, Map<String, Long> expected) throws Exception {
        Map<String, Long> ours = new TreeMap<>();
        latest.tags().block().forEach((name, tag) -> ours.put(name, tag.version()));
        Map<String, Long> theirs = new TreeMap<>();
        try (org.lance.Dataset ds = lanceOpen(uri)) {
            ds.tags().list().forEach(t -> theirs.put(t.getName(), t.getVersion()));
            assertThat(ours).isEqualTo(new TreeMap<>(expected)).isEqualTo(theirs);
            for (String name : expected.keySet()) {
                List<String> lanceRows;
                try (org.lance.Dataset at = ds.checkoutTag(name)) {
                    lanceRows = lanceRows(at);
                }
                try (Dataset at = latest.checkout(name).block()) {
                    assertThat(at.version()).as(name).isEqualTo(expected.get(name));
                    assertThat(scan(at)).as("tag %s", name).isEqualTo(lanceRows);
                }
            }
        }
    }

    static List<Long> javelinVersions(Dataset ds) {
        return ds.versions().block().stream().map(VersionInfo::version).toList();
    }

    static List<String> deletionKinds(Dataset ds) {
        return ds.fragments().stream().map(FragmentInfo::fragment)
                .map(f -> f.hasDeletionFile() ? f.getDeletionFile().getFileType().name() : "NONE").toList();
    }

    // ------------------------------------------------------------------ Javelin side

    Flux<VectorSchemaRoot> ours(long from, int n) {
        int batch = 1000;
        return Flux.range(0, (n + batch - 1) / batch).map(b -> {
            VectorSchemaRoot r = VectorSchemaRoot.create(SCHEMA, alloc);
            fill(r, from + (long) b * batch, Math.min(batch, n - b * batch));
            return r;
        });
    }

    /** Rows of one version, checked out from an open dataset so that all reads share its store client. */
    List<String> rowsAt(Dataset latest, long version) {
        try (Dataset at = latest.checkout(version).block()) {
            return scan(at);
        }
    }

    List<String> scan(Dataset ds) {
        List<String> out = new ArrayList<>();
        for (VectorSchemaRoot b : ds.scanner().columns("id", "v").scan(alloc)
                .publishOn(Schedulers.boundedElastic(), 1).toIterable(1)) {
            try (b) {
                rows(b, out);
            }
        }
        Collections.sort(out);
        return out;
    }

    // ------------------------------------------------------------------ lance-core side

    org.lance.Dataset lanceOpen(String uri) {
        return org.lance.Dataset.open(alloc, uri, new ReadOptions.Builder().setStorageOptions(options).build());
    }

    long lanceCount(String uri) {
        try (org.lance.Dataset ds = lanceOpen(uri)) {
            return ds.countRows();
        }
    }

    List<String> lanceRows(String uri, long version) throws Exception {
        try (org.lance.Dataset ds = lanceOpen(uri); org.lance.Dataset at = ds.checkoutVersion(version)) {
            return lanceRows(at);
        }
    }

    List<String> lanceRows(org.lance.Dataset ds) throws Exception {
        List<String> out = new ArrayList<>();
        try (LanceScanner s = ds.newScan(new ScanOptions.Builder().columns(List.of("id", "v")).batchSize(1000).build());
             ArrowReader r = s.scanBatches()) {
            while (r.loadNextBatch()) {
                rows(r.getVectorSchemaRoot(), out);
            }
        }
        Collections.sort(out);
        return out;
    }

    void lanceWrite(String uri, long from, int n, org.lance.WriteParams.WriteMode mode) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, alloc);
             ArrowStreamWriter w = new ArrowStreamWriter(root, null, out)) {
            w.start();
            fill(root, from, n);
            w.writeBatch();
            w.end();
        }
        try (ArrowReader reader = new ArrowStreamReader(new ByteArrayInputStream(out.toByteArray()), alloc);
             ArrowArrayStream stream = ArrowArrayStream.allocateNew(alloc)) {
            Data.exportArrayStream(alloc, reader, stream);
            org.lance.WriteParams p = new org.lance.WriteParams.Builder().withMode(mode).withDataStorageVersion("2.1")
                    .withMaxRowsPerFile(1000).withStorageOptions(options).build();
            org.lance.Dataset.create(alloc, stream, uri, p).close();
        }
    }

    // ------------------------------------------------------------------ rows

    static void fill(VectorSchemaRoot root, long from, int n) {
        root.allocateNew();
        BigIntVector id = (BigIntVector) root.getVector("id");
        BigIntVector v = (BigIntVector) root.getVector("v");
        for (int i = 0; i < n; i++) {
            id.setSafe(i, from + i);
            if ((from + i) % 9 == 0) {
                v.setNull(i);
            } else {
                v.setSafe(i, (from + i) * 3);
            }
        }
        root.setRowCount(n);
    }

    static void rows(VectorSchemaRoot r, List<String> acc) {
        for (int i = 0; i < r.getRowCount(); i++) {
            acc.add(r.getVector(0).getObject(i) + "|" + r.getVector(1).getObject(i));
        }
    }
}
