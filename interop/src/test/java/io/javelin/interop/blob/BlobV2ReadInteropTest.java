package io.javelin.interop.blob;

import static io.javelin.interop.blob.BlobFixtures.array;
import static io.javelin.interop.blob.BlobFixtures.bytes;
import static io.javelin.interop.blob.BlobFixtures.sha256;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.javelin.engine.Blob;
import io.javelin.engine.BlobHandle;
import io.javelin.engine.CorruptBlobException;
import io.javelin.engine.Dataset;
import io.javelin.interop.blob.BlobFixtures.Ext;
import io.javelin.objectstore.memory.OffHeap;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;
import reactor.core.scheduler.Schedulers;

/**
 * Blob v2 datasets written by lance-core 7.0.0 (format 2.2) read by Javelin: every placement (inline,
 * empty, null, packed sidecar, dedicated sidecar, external object, external slice) gives the bytes
 * written (sha256 per row, also against lance-core's own {@code takeBlobs}), scans return lance-core's
 * descriptors, large blobs stream in bounded memory, and corrupt descriptors are typed errors.
 */
class BlobV2ReadInteropTest {

    @TempDir
    Path dir;

    final BufferAllocator alloc = new RootAllocator();

    @AfterEach
    void close() {
        alloc.close();
    }

    /** Rows of every placement; returns the expected payload of each (null for null rows). */
    List<byte[]> everyPlacement(List<Object> values) throws Exception {
        byte[] ext = bytes(10_000, 99);
        Path extFile = dir.resolve("ext").resolve("object.bin");
        Files.createDirectories(extFile.getParent());
        Files.write(extFile, ext);
        String extUri = extFile.toUri().toString();
        values.addAll(Arrays.asList(bytes(100, 1), new byte[0], null, bytes(200_000, 2), bytes(150_000, 3),
                bytes(5_000_000, 4), new Ext(extUri, 0, -1), new Ext(extUri, 4096, 50), bytes(70_000, 5), bytes(3, 6)));
        List<byte[]> expected = new ArrayList<>();
        for (Object v : values) {
            expected.add(v == null ? null : v instanceof byte[] b ? b
                    : ((Ext) v).size() < 0 ? ext : Arrays.copyOfRange(ext, 4096, 4096 + 50));
        }
        return expected;
    }

    @Test
    void everyPlacementWrittenByLanceCoreReadsIdentically() throws Exception {
        List<Object> values = new ArrayList<>();
        List<byte[]> expected = everyPlacement(values);
        String uri = dir.resolve("ds").toString();
        // a small pack threshold: the three packed blobs roll over two sidecar files
        BlobFixtures.lanceWrite(alloc, uri, values, 300_000);
        long[] rows = new long[values.size()];
        Arrays.setAll(rows, i -> i);
        List<String> want = expected.stream().map(b -> b == null ? "null" : sha256(b)).toList();

        // lance-core's own view: takeBlobs drops null rows
        List<String> theirs = new ArrayList<>();
        try (org.lance.Dataset lds = org.lance.Dataset.open(uri, alloc)) {
            for (var b : lds.takeBlobsByIndices(Arrays.stream(rows).boxed().toList(), "blob")) {
                theirs.add(sha256(b.read()));
            }
        }
        assertThat(theirs).isEqualTo(want.stream().filter(s -> !s.equals("null")).toList());

        try (Dataset ds = Dataset.open(uri).block()) {
            // readBlobs: whole payloads, one per row
            List<Blob> blobs = new ArrayList<>(ds.readBlobs("blob", rows).collectList().block());
            blobs.sort(java.util.Comparator.comparingInt(Blob::index));
            assertThat(blobs).hasSize(rows.length);
            assertThat(blobs.stream().map(b -> b.isNull() ? "null" : sha256(array(b.data()))).toList()).isEqualTo(want);
            assertThat(blobs.get(1).data().remaining()).isZero(); // empty stays a non-null empty payload

            // takeBlobs: sizes, ranged reads, streams
            List<BlobHandle> handles = ds.takeBlobs("blob", rows).collectList().block();
            assertThat(handles).hasSize(rows.length);
            for (int i = 0; i < rows.length; i++) {
                BlobHandle h = handles.get(i);
                byte[] e = expected.get(i);
                assertThat(h.index()).isEqualTo(i);
                assertThat(h.isNull()).as("row %d", i).isEqualTo(e == null);
                if (e == null) {
                    assertThat(h.read(0, 0).blockOptional()).isEmpty();
                    continue;
                }
                assertThat(h.size()).as("row %d", i).isEqualTo(e.length);
                int from = e.length / 3;
                int len = e.length / 2;
                assertThat(array(h.read(from, len).block())).isEqualTo(Arrays.copyOfRange(e, from, from + len));
                assertThat(sha256(concat(h.stream(64 * 1024).collectList().block()))).isEqualTo(sha256(e));
                try (var in = h.inputStream()) {
                    assertThat(in.readAllBytes()).isEqualTo(e); // a blocking consumer on a thread that may block
                }
            }
            assertThatThrownBy(() -> handles.get(0).read(50, 51).block()).isInstanceOf(io.javelin.engine.InvalidScanException.class)
                    .hasMessageContaining("outside the blob of 100 bytes");

            // readBlobRanges: one result per request, nulls as null, empty ranges without I/O
            List<io.javelin.engine.BlobRange> reqs = List.of(new io.javelin.engine.BlobRange(5, 1000, 500),
                    new io.javelin.engine.BlobRange(5, 4_000_000, 1000), new io.javelin.engine.BlobRange(0, 10, 20),
                    new io.javelin.engine.BlobRange(2, 0, 0), new io.javelin.engine.BlobRange(1, 0, 0),
                    new io.javelin.engine.BlobRange(6, 100, 200), new io.javelin.engine.BlobRange(7, 0, 50),
                    new io.javelin.engine.BlobRange(3, 199_000, 1000));
            List<io.javelin.engine.BlobRange.Result> res = new ArrayList<>(ds.readBlobRanges("blob", reqs).collectList().block());
            res.sort(java.util.Comparator.comparingInt(io.javelin.engine.BlobRange.Result::requestIndex));
            assertThat(res).hasSize(reqs.size());
            for (int i = 0; i < reqs.size(); i++) {
                var q = reqs.get(i);
                byte[] e = expected.get((int) q.row());
                if (e == null) {
                    assertThat(res.get(i).data()).isNull();
                } else {
                    assertThat(array(res.get(i).data())).as("request %d", i)
                            .isEqualTo(Arrays.copyOfRange(e, (int) q.offset(), (int) (q.offset() + q.length())));
                }
            }
            assertThatThrownBy(() -> ds.readBlobRanges("blob", List.of(new io.javelin.engine.BlobRange(0, 90, 11))).blockLast())
                    .isInstanceOf(io.javelin.engine.InvalidScanException.class).hasMessageContaining("outside the blob of 100 bytes");

            // a default scan returns lance-core's descriptors; lance-core's scan shows a null blob as the
            // all-zero inline descriptor the file stores under it, ours as a null struct
            assertThat(ds.scanner().outputSchema().findField("blob").getChildren().stream().map(f -> f.getName()).toList())
                    .containsExactly("kind", "position", "size", "blob_id", "blob_uri");
            List<String> ours = ourDescriptors(ds);
            List<String> lance = lanceDescriptors(uri);
            assertThat(ours).hasSameSizeAs(lance);
            for (int i = 0; i < ours.size(); i++) {
                if (expected.get(i) == null) {
                    assertThat(ours.get(i)).isEqualTo("null");
                    assertThat(lance.get(i)).isEqualTo("{\"kind\":0,\"position\":0,\"size\":0,\"blob_id\":0,\"blob_uri\":\"\"}");
                } else {
                    assertThat(ours.get(i)).as("descriptor of row %d", i).isEqualTo(lance.get(i));
                }
            }
        }
        // the placements really differ: packed sidecars (two, rolled), one dedicated sidecar
        try (Stream<Path> s = Files.walk(dir.resolve("ds/data"))) {
            List<Long> sidecars = s.filter(p -> p.toString().endsWith(".blob")).map(p -> p.toFile().length()).sorted().toList();
            assertThat(sidecars).containsExactly(200_000L, 150_000L + 70_000L, 5_000_000L);
        }
    }

    @Test
    void legacyAndNonBlobColumns() throws Exception {
        List<Object> values = new ArrayList<>();
        everyPlacement(values);
        String uri = dir.resolve("ds").toString();
        BlobFixtures.lanceWrite(alloc, uri, values, 0);
        try (Dataset ds = Dataset.open(uri).block()) {
            assertThatThrownBy(() -> ds.takeBlobs("id", new long[] {0}).blockLast())
                    .isInstanceOf(io.javelin.engine.InvalidScanException.class).hasMessageContaining("not a blob column");
            assertThatThrownBy(() -> ds.readBlobs("nope", new long[] {0}).blockLast())
                    .isInstanceOf(io.javelin.engine.InvalidScanException.class).hasMessageContaining("No top-level column");
            assertThatThrownBy(() -> ds.readBlobs("blob", new long[] {values.size()}).blockLast())
                    .isInstanceOf(io.javelin.engine.InvalidScanException.class).hasMessageContaining("out of range");
        }
    }

    @Test
    void largeBlobStreamsInBoundedMemoryAndCancelReleasesEverything() throws Exception {
        int size = 100 << 20;
        byte[] big = bytes(size, 7);
        String uri = dir.resolve("ds").toString();
        BlobFixtures.lanceWrite(alloc, uri, new ArrayList<>(List.of(bytes(10, 1), big)), 0);
        String want = sha256(big);
        big = null;
        try (Dataset ds = Dataset.open(uri).block()) {
            BlobHandle h = ds.takeBlobs("blob", new long[] {1}).blockLast();
            assertThat(h.size()).isEqualTo(size);
            long base = OffHeap.liveBytes();
            AtomicLong peak = new AtomicLong();
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            int chunk = 1 << 20;
            // a slow consumer on another thread: demand, not the store, paces the reads
            h.stream(chunk).publishOn(Schedulers.boundedElastic(), 1).doOnNext(b -> {
                peak.accumulateAndGet(OffHeap.liveBytes() - base, Math::max);
                md.update(b);
            }).blockLast();
            assertThat(HexFormat.of().formatHex(md.digest())).isEqualTo(want);
            System.out.println("blob stream peak off-heap bytes: " + peak.get());
            assertThat(peak.get()).as("off-heap bytes held while streaming 100 MiB").isLessThan(8L * chunk);

            // ranged read near the end
            ByteBuffer tail = h.read(size - 1000, 1000).block();
            assertThat(tail.remaining()).isEqualTo(1000);

            // cancel mid-stream: nothing stays allocated
            List<ByteBuffer> got = h.stream(chunk).take(5).collectList().block();
            assertThat(got).hasSize(5);
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (OffHeap.liveBytes() > base && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(OffHeap.liveBytes()).isLessThanOrEqualTo(base);
        }
    }

    @Test
    void corruptDescriptorsAreTypedErrors() throws Exception {
        List<Object> values = new ArrayList<>();
        everyPlacement(values);
        String uri = dir.resolve("ds").toString();
        BlobFixtures.lanceWrite(alloc, uri, values, 0);
        Path file;
        try (Stream<Path> s = Files.list(dir.resolve("ds/data"))) {
            file = s.filter(p -> p.toString().endsWith(".lance")).findFirst().orElseThrow();
        }
        byte[] all = Files.readAllBytes(file);
        var page = io.javelin.interop.writer.FileInspect.columns(file).get(1).getPages(0);
        int at = (int) page.getBufferOffsets(0);
        // row 0: control word (1 byte), value length (4 bytes), then kind
        assertThat(all[at + 5]).isZero();
        all[at + 5] = 9;
        Files.write(file, all);
        try (Dataset ds = Dataset.open(uri).block()) {
            assertThatThrownBy(() -> ds.readBlobs("blob", new long[] {0}).blockLast())
                    .isInstanceOf(CorruptBlobException.class).hasMessageContaining("unknown blob kind 9");
            // the value length of row 0 pointing past the page
            all[at + 5] = 0;
            all[at + 4] = (byte) 0x7F;
            Files.write(file, all);
        }
        try (Dataset ds = Dataset.open(uri).block()) {
            assertThatThrownBy(() -> ds.readBlobs("blob", new long[] {0}).blockLast())
                    .isInstanceOf(io.javelin.engine.DatasetException.class).hasMessageContaining("past the page");
        }
        // a missing sidecar: a typed error naming it, not an empty payload
        all[at + 4] = 0;
        Files.write(file, all);
        try (Stream<Path> s = Files.walk(dir.resolve("ds/data"))) {
            for (Path p : s.filter(p -> p.toString().endsWith(".blob")).toList()) {
                Files.delete(p);
            }
        }
        try (Dataset ds = Dataset.open(uri).block()) {
            assertThatThrownBy(() -> ds.readBlobs("blob", new long[] {3}).blockLast())
                    .isInstanceOf(io.javelin.engine.DatasetException.class).hasMessageContaining(".blob");
        }
    }

    static byte[] concat(List<ByteBuffer> parts) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (ByteBuffer b : parts) {
            out.writeBytes(array(b));
        }
        return out.toByteArray();
    }

    List<String> ourDescriptors(Dataset ds) {
        List<String> out = new ArrayList<>();
        for (VectorSchemaRoot b : ds.scanner().scan(alloc).publishOn(Schedulers.boundedElastic(), 1).toIterable(1)) {
            try (b) {
                for (int i = 0; i < b.getRowCount(); i++) {
                    out.add(String.valueOf(b.getVector("blob").getObject(i)));
                }
            }
        }
        return out;
    }

    List<String> lanceDescriptors(String uri) throws Exception {
        List<String> out = new ArrayList<>();
        try (org.lance.Dataset lds = org.lance.Dataset.open(uri, alloc);
             LanceScanner sc = lds.newScan(new ScanOptions.Builder().batchSize(1000).build());
             ArrowReader r = sc.scanBatches()) {
            while (r.loadNextBatch()) {
                VectorSchemaRoot root = r.getVectorSchemaRoot();
                for (int i = 0; i < root.getRowCount(); i++) {
                    out.add(String.valueOf(root.getVector("blob").getObject(i)));
                }
            }
        }
        return out;
    }
}
