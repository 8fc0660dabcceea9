package io.javelin.interop.blob;

import static io.javelin.interop.blob.BlobFixtures.array;
import static io.javelin.interop.blob.BlobFixtures.bytes;
import static io.javelin.interop.blob.BlobFixtures.sha256;
import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.encoding.writer.LanceFileVersion;
import io.javelin.engine.Blob;
import io.javelin.engine.BlobHandling;
import io.javelin.engine.BlobWriteOptions;
import io.javelin.engine.Dataset;
import io.javelin.engine.WriteMode;
import io.javelin.engine.WriteParams;
import io.javelin.engine.maintenance.CompactionOptions;
import io.javelin.interop.blob.BlobFixtures.Ext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.LargeVarBinaryVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;

/**
 * Blob v2 through the dataset lifecycle: {@code all_binary} scans, deletes plus compaction (payloads
 * re-placed into the new fragments' sidecars, external references kept), cleanup deleting exactly the
 * sidecars of unreachable data files; lance-core reads the result identically.
 */
class BlobLifecycleInteropTest {

    @TempDir
    Path dir;

    final BufferAllocator alloc = new RootAllocator();

    @AfterEach
    void close() {
        alloc.close();
    }

    /** Row i of the dataset: id i, a payload whose size cycles through the placements. */
    List<Object> rows(int from, int n, String extUri) {
        List<Object> out = new ArrayList<>();
        for (int i = from; i < from + n; i++) {
            out.add(switch (i % 6) {
                case 0 -> bytes(50 + i, i);            // inline
                case 1 -> bytes(100_000 + i, i);       // packed
                case 2 -> bytes(4_300_000 + i, i);     // dedicated
                case 3 -> null;
                case 4 -> new Ext(extUri, i, 10);      // external slice
                default -> new byte[0];
            });
        }
        return out;
    }

    byte[] expected(Object v, byte[] ext) {
        return v == null ? null : v instanceof byte[] b ? b
                : Arrays.copyOfRange(ext, (int) ((Ext) v).position(), (int) (((Ext) v).position() + ((Ext) v).size()));
    }

    VectorSchemaRoot batch(List<Object> values, long firstId) {
        VectorSchemaRoot root = VectorSchemaRoot.create(BlobFixtures.schema(), alloc);
        BlobFixtures.fill(root, values);
        var id = (org.apache.arrow.vector.BigIntVector) root.getVector("id");
        for (int i = 0; i < values.size(); i++) {
            id.set(i, firstId + i);
        }
        return root;
    }

    @Test
    void allBinaryScanDeletesCompactionAndCleanup() throws Exception {
        byte[] ext = bytes(1000, 42);
        Path extFile = dir.resolve("ext.bin");
        Files.write(extFile, ext);
        String uri = dir.resolve("ds").toString();
        List<Object> all = new ArrayList<>();
        WriteParams p = WriteParams.of(WriteMode.CREATE).withDataStorageVersion(LanceFileVersion.V2_2)
                .withBlobs(new BlobWriteOptions(true, 250_000));
        Dataset ds = null;
        for (int f = 0; f < 3; f++) {
            List<Object> vals = rows(f * 12, 12, extFile.toUri().toString());
            all.addAll(vals);
            Dataset next = Dataset.write(uri, Flux.just(batch(vals, f * 12L)), BlobFixtures.schema(),
                    p.withMode(f == 0 ? WriteMode.CREATE : WriteMode.APPEND)).block();
            if (ds != null) {
                ds.close();
            }
            ds = next;
        }
        assertThat(ds.fragments()).hasSize(3);

        // all_binary: payloads as large_binary, nulls as nulls
        List<String> scanned = new ArrayList<>();
        for (VectorSchemaRoot b : ds.scanner().scan(alloc, BlobHandling.ALL_BINARY).publishOn(Schedulers.boundedElastic(), 1).toIterable(1)) {
            try (b) {
                LargeVarBinaryVector v = (LargeVarBinaryVector) b.getVector("blob");
                for (int i = 0; i < b.getRowCount(); i++) {
                    scanned.add(v.isNull(i) ? "null" : sha256(v.get(i)));
                }
            }
        }
        assertThat(scanned).isEqualTo(all.stream().map(v -> hash(expected(v, ext))).toList());

        // delete a third of the rows, compact into one fragment
        Dataset deleted = ds.delete("id % 4 = 1").block();
        ds.close();
        List<String> live = new ArrayList<>();
        for (int i = 0; i < all.size(); i++) {
            if (i % 4 != 1) {
                live.add(hash(expected(all.get(i), ext)));
            }
        }
        Set<String> sidecarsBefore = sidecars(uri);
        var result = deleted.compact(CompactionOptions.defaults().withTargetRowsPerFragment(1000)).block();
        deleted.close();
        Dataset compacted = result.dataset();
        assertThat(compacted.fragments()).hasSize(1);
        assertThat(read(compacted, live.size())).isEqualTo(live);
        assertThat(lanceRead(uri, live.size())).isEqualTo(live.stream().filter(s -> !s.equals("null")).toList());
        // the external slices stayed references (no copy into a sidecar): live row 3 is id 4
        assertThat(String.valueOf(compacted.takeBlobs("blob", new long[] {3}).blockLast().location())).contains("ext.bin");

        // cleanup: the old fragments' sidecars go, the new fragment's stay
        Set<String> newSidecars = new HashSet<>(sidecars(uri));
        newSidecars.removeAll(sidecarsBefore);
        assertThat(newSidecars).isNotEmpty();
        Thread.sleep(20);
        var stats = compacted.cleanupOldVersions(Instant.now(), true).block();
        assertThat(stats).isNotNull();
        assertThat(sidecars(uri)).isEqualTo(newSidecars);
        compacted.close();
        try (Dataset reopened = Dataset.open(uri).block()) {
            assertThat(read(reopened, live.size())).isEqualTo(live);
        }
        assertThat(lanceRead(uri, live.size())).isEqualTo(live.stream().filter(s -> !s.equals("null")).toList());
    }

    static String hash(byte[] b) {
        return b == null ? "null" : sha256(b);
    }

    static List<String> read(Dataset ds, int n) {
        long[] rows = new long[n];
        Arrays.setAll(rows, i -> i);
        List<Blob> blobs = new ArrayList<>(ds.readBlobs("blob", rows).collectList().block());
        blobs.sort(Comparator.comparingInt(Blob::index));
        return blobs.stream().map(b -> b.isNull() ? "null" : sha256(array(b.data()))).toList();
    }

    List<String> lanceRead(String uri, int n) throws Exception {
        List<String> out = new ArrayList<>();
        try (org.lance.Dataset lds = org.lance.Dataset.open(uri, alloc)) {
            List<Long> idx = new ArrayList<>();
            for (long i = 0; i < n; i++) {
                idx.add(i);
            }
            for (var b : lds.takeBlobsByIndices(idx, "blob")) {
                out.add(sha256(b.read()));
            }
        }
        return out;
    }

    static Set<String> sidecars(String uri) throws Exception {
        try (Stream<Path> s = Files.walk(Path.of(uri, "data"))) {
            Set<String> out = new HashSet<>();
            s.filter(x -> x.toString().endsWith(".blob")).forEach(x -> out.add(Path.of(uri).relativize(x).toString()));
            return out;
        }
    }
}
