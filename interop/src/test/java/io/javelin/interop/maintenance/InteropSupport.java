package io.javelin.interop.maintenance;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.engine.Dataset;
import io.javelin.engine.WriteMode;
import io.javelin.engine.WriteParams;
import io.javelin.engine.maintenance.CompactionOptions;
import io.javelin.tx.maintenance.CleanupPolicy;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/** Shared fixture of the maintenance interop tests: rows, writes and scans in both engines. */
abstract class InteropSupport {



    static final Schema SCHEMA = new Schema(List.of(
            new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
            new Field("v", FieldType.nullable(new ArrowType.Int(64, true)), null)));

    @TempDir
    protected Path dir;

    final BufferAllocator alloc = new RootAllocator();

    @AfterEach
    void closeAllocator() {
        alloc.close();
    }

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

    Flux<VectorSchemaRoot> ours(long from, int n) {
        int batch = 100;
        return Flux.range(0, (n + batch - 1) / batch).map(b -> {
            VectorSchemaRoot r = VectorSchemaRoot.create(SCHEMA, alloc);
            fill(r, from + (long) b * batch, Math.min(batch, n - b * batch));
            return r;
        });
    }

    void lanceWrite(String uri, long from, int n, org.lance.WriteParams.WriteMode mode, boolean stable) throws Exception {
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
                    .withMaxRowsPerFile(200).withEnableStableRowIds(stable).build();
            org.lance.Dataset.create(alloc, stream, uri, p).close();
        }
    }

    static List<String> rows(VectorSchemaRoot r, List<String> acc) {
        for (int i = 0; i < r.getRowCount(); i++) {
            acc.add(r.getVector(0).getObject(i) + "|" + r.getVector(1).getObject(i));
        }
        return acc;
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

    List<String> lanceRows(String uri, long version) throws Exception {
        try (org.lance.Dataset ds = org.lance.Dataset.open(uri, alloc); org.lance.Dataset at = ds.checkoutVersion(version)) {
            return lanceRows(at);
        }
    }

    List<String> ourRows(String uri, long version) {
        try (Dataset ds = Dataset.open(uri, Map.of(), version).block()) {
            List<String> out = new ArrayList<>();
            for (VectorSchemaRoot b : ds.scanner().columns("id", "v").scan(alloc).publishOn(Schedulers.boundedElastic(), 1).toIterable(1)) {
                try (b) {
                    rows(b, out);
                }
            }
            Collections.sort(out);
            return out;
        }
    }

    List<Long> versions(String uri) {
        try (Dataset ds = Dataset.open(uri).block()) {
            return ds.versions().block().stream().map(io.javelin.engine.VersionInfo::version).toList();
        }
    }

    void sameInBothEngines(String uri) throws Exception {
        for (long v : versions(uri)) {
            assertThat(ourRows(uri, v)).as("version %d", v).isEqualTo(lanceRows(uri, v));
        }
    }
}
