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

/**
 * Maintenance operations across engines (one JVM with lance-core 7.0.0): what Javelin compacts, cleans up
 * and restores, lance-core reads identically at every retained version and keeps committing to; what
 * lance-core compacts, cleans up and restores, Javelin reads identically. Plus the table-level two-way
 * interop of append / delete / overwrite / tags and 8 Javelin + 2 lance-core concurrent writers.
 */
class MaintenanceInteropTest extends InteropSupport {

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void lanceCoreReadsWhatWeCompactCleanUpAndRestoreAndKeepsCommitting(boolean stable) throws Exception {
        String uri = dir.resolve("ours.lance").toString();
        try (Dataset v1 = Dataset.write(uri, ours(0, 1000), SCHEMA, WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(200)
                .withEnableStableRowIds(stable)).block();
             Dataset v2 = v1.delete("id % 3 = 0").block();
             Dataset v3 = v2.append(ours(1000, 100), SCHEMA).block()) {
            v3.createTag("before-compaction", 3).block();
            var r = v3.compact(CompactionOptions.defaults().withTargetRowsPerFragment(500)).block();
            try (Dataset v4 = r.dataset()) {
                assertThat(v4.version()).isEqualTo(4);
                assertThat(v4.fragments().size()).isLessThan(v3.fragments().size());
            }
        }
        sameInBothEngines(uri);
        try (org.lance.Dataset ds = org.lance.Dataset.open(uri, alloc)) {
            assertThat(ds.hasStableRowIds()).isEqualTo(stable);
            assertThat(ds.tags().getVersion("before-compaction")).isEqualTo(3);
            ds.delete("id >= 1050");
        }
        lanceWrite(uri, 2000, 50, org.lance.WriteParams.WriteMode.APPEND, stable);
        try (Dataset latest = Dataset.open(uri).block()) {
            assertThat(latest.version()).isEqualTo(6);
            assertThat(latest.count().block()).isEqualTo(666 + 100 - 50 + 50);
            // cleanup keeps the tagged v3 and the latest; restore v3 as v7
            var stats = latest.cleanupOldVersions(CleanupPolicy.beforeVersion(6).withDeleteUnverified(true)).block();
            assertThat(stats.oldVersions()).isEqualTo(4);
            try (Dataset t = latest.checkout("before-compaction").block(); Dataset v7 = t.restore().block()) {
                assertThat(v7.version()).isEqualTo(7);
            }
        }
        assertThat(versions(uri)).containsExactly(3L, 6L, 7L);
        sameInBothEngines(uri);
        try (org.lance.Dataset ds = org.lance.Dataset.open(uri, alloc)) {
            assertThat(ds.countRows()).isEqualTo(766); // v3 restored: 666 + 100
            ds.delete("id < 10");
            assertThat(ds.countRows()).isEqualTo(766 - 6);
        }
        lanceWrite(uri, 3000, 10, org.lance.WriteParams.WriteMode.APPEND, stable);
        assertThat(ourRows(uri, 9)).hasSize(766 - 6 + 10).isEqualTo(lanceRows(uri, 9));
        if (stable) {
            try (Dataset d = Dataset.open(uri).block(); org.lance.Dataset l = org.lance.Dataset.open(uri, alloc)) {
                assertThat(d.snapshot().manifestFile().manifest().getNextRowId()).isEqualTo(1000 + 100 + 50 + 10);
                assertThat(l.hasStableRowIds()).isTrue();
            }
        }
    }

    @Test
    void weReadWhatLanceCoreCompactsCleansUpAndRestores() throws Exception {
        String uri = dir.resolve("theirs.lance").toString();
        lanceWrite(uri, 0, 1000, org.lance.WriteParams.WriteMode.CREATE, true);
        try (org.lance.Dataset ds = org.lance.Dataset.open(uri, alloc)) {
            ds.delete("id % 4 = 1");
            ds.tags().create("t2", 2);
            ds.compact(org.lance.compaction.CompactionOptions.builder().withTargetRowsPerFragment(600).build());
        }
        sameInBothEngines(uri);
        long latest;
        try (org.lance.Dataset ds = org.lance.Dataset.open(uri, alloc)) {
            latest = ds.version();
            ds.cleanupWithPolicy(org.lance.cleanup.CleanupPolicy.builder().withBeforeVersion(latest)
                    .withDeleteUnverified(true).withErrorIfTaggedOldVersions(false).build());
            try (org.lance.Dataset v1 = ds.checkoutVersion(2)) {
                v1.restore();
            }
        }
        sameInBothEngines(uri);
        try (Dataset d = Dataset.open(uri).block()) {
            assertThat(d.version()).isEqualTo(latest + 1);
            assertThat(d.count().block()).isEqualTo(750);
            assertThat(d.hasStableRowIds()).isTrue();
            // lance-core's stable row ids read through our _rowid, and our append continues next_row_id
            try (Dataset after = d.append(ours(5000, 10), SCHEMA).block()) {
                assertThat(after.snapshot().manifestFile().manifest().getNextRowId()).isEqualTo(1010);
            }
        }
        try (org.lance.Dataset ds = org.lance.Dataset.open(uri, alloc)) {
            assertThat(ds.countRows()).isEqualTo(760);
            assertThat(lanceRows(ds)).isEqualTo(ourRows(uri, ds.version()));
        }
    }

    @Test
    void appendDeleteOverwriteAndTagsBothWays() throws Exception {
        String uri = dir.resolve("both.lance").toString();
        // ours: create, append, delete (arrow and bitmap deletion files), tag
        try (Dataset v1 = Dataset.write(uri, ours(0, 12000), SCHEMA, WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(6000)).block();
             Dataset v2 = v1.append(ours(12000, 500), SCHEMA).block();
             Dataset v3 = v2.delete("id < 5500 OR id % 100 = 7").block()) {
            v3.createTag("ours", 2).block();
        }
        try (org.lance.Dataset ds = org.lance.Dataset.open(uri, alloc)) {
            assertThat(ds.tags().getVersion("ours")).isEqualTo(2);
            ds.delete("id >= 12400");
            ds.tags().create("theirs", 4);
        }
        lanceWrite(uri, 20000, 300, org.lance.WriteParams.WriteMode.APPEND, false);
        sameInBothEngines(uri);
        // lance-core overwrites; we append and delete on top; lance-core reads every version
        lanceWrite(uri, 50000, 400, org.lance.WriteParams.WriteMode.OVERWRITE, false);
        try (Dataset d = Dataset.open(uri).block(); Dataset a = d.append(ours(60000, 100), SCHEMA).block();
             Dataset x = a.delete("id % 2 = 0").block(); Dataset tagged = x.checkout("theirs").block()) {
            assertThat(x.count().block()).isEqualTo(250);
            assertThat(tagged.version()).isEqualTo(4);
        }
        try (Dataset d = Dataset.open(uri).block();
             Dataset o = d.overwrite(ours(70000, 120), SCHEMA, WriteParams.of(WriteMode.OVERWRITE)).block()) {
            assertThat(o.count().block()).isEqualTo(120);
        }
        sameInBothEngines(uri);
        try (org.lance.Dataset ds = org.lance.Dataset.open(uri, alloc)) {
            assertThat(ds.countRows()).isEqualTo(120);
            assertThat(ds.tags().list()).hasSize(2);
            ds.delete("id < 70010");
            assertThat(ds.countRows()).isEqualTo(110);
        }
        assertThat(ourRows(uri, versions(uri).getLast())).hasSize(110);
    }

    @Test
    void eightJavelinAndTwoLanceCoreWritersAppendAndDeleteConcurrently() throws Exception {
        String uri = dir.resolve("race.lance").toString();
        try (Dataset v1 = Dataset.write(uri, ours(0, 100), SCHEMA, WriteParams.of(WriteMode.CREATE)).block()) {
            assertThat(v1.version()).isEqualTo(1);
        }
        int rounds = Integer.getInteger("javelin.interop.race.rounds", 1);
        ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
        // writer w appends ids [base, base+100) each round, then deletes the first 10 of them
        List<Thread> lance = new ArrayList<>();
        for (int w = 8; w < 10; w++) {
            int writer = w;
            Thread t = new Thread(() -> {
                try {
                    for (int r = 0; r < rounds; r++) {
                        long base = 1_000_000L * (writer + 1) + 1000L * r;
                        lanceWrite(uri, base, 100, org.lance.WriteParams.WriteMode.APPEND, false);
                        try (org.lance.Dataset ds = org.lance.Dataset.open(uri, alloc)) {
                            ds.delete("id >= " + base + " AND id < " + (base + 10));
                        }
                    }
                } catch (Throwable e) {
                    errors.add(e);
                }
            });
            t.start();
            lance.add(t);
        }
        Flux.range(0, 8).flatMap(writer -> Flux.range(0, rounds).concatMap(r -> {
            long base = 1_000_000L * (writer + 1) + 1000L * r;
            return Mono.usingWhen(Dataset.open(uri), ds -> ds.append(ours(base, 100), SCHEMA)
                            .flatMap(a -> a.delete("id >= " + base + " AND id < " + (base + 10)).doFinally(s -> a.close()))
                            .doOnNext(Dataset::close),
                    ds -> Mono.fromRunnable(ds::close));
        }), 8).subscribeOn(Schedulers.boundedElastic()).blockLast();
        for (Thread t : lance) {
            t.join();
        }
        assertThat(errors).isEmpty();
        List<String> expected = new ArrayList<>();
        for (long i = 0; i < 100; i++) {
            expected.add(i + "|" + (i % 9 == 0 ? "null" : String.valueOf(i * 3)));
        }
        for (int w = 0; w < 10; w++) {
            for (int r = 0; r < rounds; r++) {
                long base = 1_000_000L * (w + 1) + 1000L * r;
                for (long i = base + 10; i < base + 100; i++) {
                    expected.add(i + "|" + (i % 9 == 0 ? "null" : String.valueOf(i * 3)));
                }
            }
        }
        Collections.sort(expected);
        List<Long> vs = versions(uri);
        assertThat(vs).hasSize(1 + 10 * rounds * 2); // every acknowledged commit is one version, none lost
        long last = vs.getLast();
        assertThat(ourRows(uri, last)).isEqualTo(expected); // each row exactly once, deleted ones gone
        assertThat(lanceRows(uri, last)).isEqualTo(expected);
        for (long v : vs) {
            try (Dataset d = Dataset.open(uri, Map.of(), v).block();
                 org.lance.Dataset l = org.lance.Dataset.open(uri, alloc); org.lance.Dataset at = l.checkoutVersion(v)) {
                assertThat(d.count().block()).as("version %d", v).isEqualTo(at.countRows());
            }
        }
    }

    /** Re-runs {@code op} on the latest version while it fails with a retryable conflict (Lance's contract). */
    static void retrying(java.util.concurrent.Callable<?> op) throws Exception {
        for (int attempt = 0; ; attempt++) {
            try {
                op.call();
                return;
            } catch (Exception e) {
                boolean retryable = e instanceof io.javelin.engine.DatasetCommitConflictException
                        || String.valueOf(e.getMessage()).toLowerCase(java.util.Locale.ROOT).contains("retry")
                        || String.valueOf(e.getMessage()).toLowerCase(java.util.Locale.ROOT).contains("conflict");
                if (!retryable || attempt >= 30) {
                    throw e;
                }
                Thread.sleep(5 + attempt * 3L);
            }
        }
    }

    @Test
    void concurrentCompactionAppendsAndDeletesLoseAndResurrectNothing() throws Exception {
        String uri = dir.resolve("compact-race.lance").toString();
        try (Dataset v1 = Dataset.write(uri, ours(0, 1000), SCHEMA, WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(50)).block()) {
            assertThat(v1.fragments()).hasSize(10); // 100-row batches: files close after >= 50 rows
        }
        ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
        java.util.concurrent.atomic.AtomicInteger compactions = new java.util.concurrent.atomic.AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        threads.add(new Thread(() -> { // lance-core: appends 10000.. and deletes from even 50-row blocks
            try {
                for (int k = 0; k < 3; k++) {
                    lanceWrite(uri, 10_000 + 100L * k, 50, org.lance.WriteParams.WriteMode.APPEND, false);
                    long from = 100L * k * 2;
                    retrying(() -> {
                        try (org.lance.Dataset ds = org.lance.Dataset.open(uri, alloc)) {
                            ds.delete("id >= " + from + " AND id < " + (from + 5));
                        }
                        return null;
                    });
                }
            } catch (Throwable e) {
                errors.add(e);
            }
        }));
        threads.add(new Thread(() -> { // javelin: appends 20000.. and deletes from odd blocks
            try {
                for (int k = 0; k < 3; k++) {
                    long base = 20_000 + 100L * k;
                    try (Dataset ds = Dataset.open(uri).block(); Dataset a = ds.append(ours(base, 50), SCHEMA).block()) {
                        assertThat(a.version()).isPositive();
                    }
                    long from = 100L * k * 2 + 50;
                    retrying(() -> {
                        try (Dataset ds = Dataset.open(uri).block(); Dataset d = ds.delete("id >= " + from + " AND id < " + (from + 5)).block()) {
                            return d;
                        }
                    });
                }
            } catch (Throwable e) {
                errors.add(e);
            }
        }));
        threads.add(new Thread(() -> { // javelin compactor
            try {
                for (int k = 0; k < 3; k++) {
                    retrying(() -> {
                        try (Dataset ds = Dataset.open(uri).block();
                             Dataset c = ds.compact(CompactionOptions.defaults().withTargetRowsPerFragment(300)).block().dataset()) {
                            if (c.version() != ds.version()) {
                                compactions.incrementAndGet();
                            }
                            return c;
                        }
                    });
                }
            } catch (Throwable e) {
                errors.add(e);
            }
        }));
        threads.forEach(Thread::start);
        for (Thread t : threads) {
            t.join();
        }
        assertThat(errors).isEmpty();
        assertThat(compactions.get()).isPositive();
        // lance-core compacts the result once more
        try (org.lance.Dataset ds = org.lance.Dataset.open(uri, alloc)) {
            ds.compact(org.lance.compaction.CompactionOptions.builder().withTargetRowsPerFragment(2000).build());
        }
        List<String> expected = new ArrayList<>();
        for (long i = 0; i < 1000; i++) {
            long m = i % 200;
            boolean deleted = i < 600 && (m < 5 || (m >= 50 && m < 55)); // lance-core: blocks 0/200/400, ours: 50/250/450
            if (!deleted) {
                expected.add(i + "|" + (i % 9 == 0 ? "null" : String.valueOf(i * 3)));
            }
        }
        for (long base : new long[] {10_000, 10_100, 10_200, 20_000, 20_100, 20_200}) {
            for (long i = base; i < base + 50; i++) {
                expected.add(i + "|" + (i % 9 == 0 ? "null" : String.valueOf(i * 3)));
            }
        }
        Collections.sort(expected);
        long last = versions(uri).getLast();
        assertThat(ourRows(uri, last)).isEqualTo(expected);
        assertThat(lanceRows(uri, last)).isEqualTo(expected);
        sameInBothEngines(uri);
    }

    /** "id|_rowid" of every live row, sorted, as each engine reports it. */
    List<String> lanceRowIds(String uri) throws Exception {
        List<String> out = new ArrayList<>();
        try (org.lance.Dataset ds = org.lance.Dataset.open(uri, alloc);
             LanceScanner s = ds.newScan(new ScanOptions.Builder().columns(List.of("id")).withRowId(true).batchSize(1000).build());
             ArrowReader r = s.scanBatches()) {
            while (r.loadNextBatch()) {
                VectorSchemaRoot b = r.getVectorSchemaRoot();
                for (int i = 0; i < b.getRowCount(); i++) {
                    out.add(b.getVector("id").getObject(i) + "|" + Long.toUnsignedString(((org.apache.arrow.vector.UInt8Vector) b.getVector("_rowid")).getObjectNoOverflow(i).longValue()));
                }
            }
        }
        Collections.sort(out);
        return out;
    }

    List<String> ourRowIds(String uri) {
        List<String> out = new ArrayList<>();
        try (Dataset ds = Dataset.open(uri).block()) {
            for (VectorSchemaRoot b : ds.scanner().columns("id").withRowId(true).scan(alloc).publishOn(Schedulers.boundedElastic(), 1).toIterable(1)) {
                try (b) {
                    for (int i = 0; i < b.getRowCount(); i++) {
                        out.add(b.getVector("id").getObject(i) + "|" + Long.toUnsignedString(((org.apache.arrow.vector.UInt8Vector) b.getVector("_rowid")).getObjectNoOverflow(i).longValue()));
                    }
                }
            }
        }
        Collections.sort(out);
        return out;
    }

    @Test
    void stableRowIdsAgreeAcrossEnginesThroughBothEnginesCompactions() throws Exception {
        String uri = dir.resolve("rowids.lance").toString();
        lanceWrite(uri, 0, 1000, org.lance.WriteParams.WriteMode.CREATE, true);
        try (org.lance.Dataset ds = org.lance.Dataset.open(uri, alloc)) {
            ds.delete("id % 7 = 0");
        }
        List<String> before = lanceRowIds(uri);
        assertThat(before).contains("1|1", "999|999");
        assertThat(ourRowIds(uri)).isEqualTo(before);
        try (Dataset d = Dataset.open(uri).block(); Dataset c = d.compact(CompactionOptions.defaults().withTargetRowsPerFragment(300)).block().dataset()) {
            assertThat(c.version()).isEqualTo(3);
        }
        assertThat(lanceRowIds(uri)).isEqualTo(before);
        assertThat(ourRowIds(uri)).isEqualTo(before);
        try (org.lance.Dataset ds = org.lance.Dataset.open(uri, alloc)) {
            ds.compact(org.lance.compaction.CompactionOptions.builder().withTargetRowsPerFragment(5000).build());
            ds.delete("id < 3");
        }
        try (Dataset d = Dataset.open(uri).block(); Dataset a = d.append(ours(5000, 3), SCHEMA).block()) {
            try (VectorSchemaRoot t = a.takeRowIds(new long[] {1000, 500, 1002}, List.of("id"), alloc).block()) {
                assertThat(List.of(t.getVector("id").getObject(0), t.getVector("id").getObject(1), t.getVector("id").getObject(2)))
                        .containsExactly(5000L, 500L, 5002L);
            }
        }
        List<String> after = lanceRowIds(uri);
        assertThat(after).contains("5000|1000", "5002|1002", "500|500").doesNotContain("1|1");
        assertThat(ourRowIds(uri)).isEqualTo(after);
    }
}
