package io.javelin.interop.maintenance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.javelin.engine.Dataset;
import io.javelin.engine.DatasetNotFoundException;
import io.javelin.engine.MergeInsertOptions;
import io.javelin.engine.MergeInsertResult;
import io.javelin.engine.WriteMode;
import io.javelin.engine.WriteParams;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.util.List;
import java.util.Map;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.junit.jupiter.api.Test;
import org.lance.Ref;

/**
 * Issue 30's table operations across engines: a spilled streaming merge-insert, max_bytes_per_file, tag
 * metadata and tags on branch versions, delete by _rowid, truncate and drop, each written by one engine
 * and read (or continued) by the other.
 */
class TableOpsInteropTest extends InteropSupport {

    @Test
    void lanceCoreReadsASpilledStreamingMergeInsert() throws Exception {
        String uri = dir.resolve("merge.lance").toString();
        Dataset.write(uri, ours(0, 20_000), SCHEMA, WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(5000)).block().close();
        try (Dataset ds = Dataset.open(uri).block()) {
            // ids 10000 .. 109999: the first 10000 update (v = id * 3 as written, so the same values), the rest insert
            MergeInsertResult r = ds.mergeInsert(List.of("id")).whenMatchedUpdateAll().whenNotMatchedInsertAll()
                    .whenNotMatchedBySourceDelete("id < 1000")
                    .execute(ours(10_000, 100_000), MergeInsertOptions.budget(1 << 20).withFanOut(4)
                            .withSpillDirectory(dir.resolve("spill"))).block();
            try (Dataset after = r.dataset()) {
                assertThat(r.updated()).isEqualTo(10_000);
                assertThat(r.inserted()).isEqualTo(90_000);
                assertThat(r.deleted()).isEqualTo(1000);
                assertThat(after.count().block()).isEqualTo(20_000 - 1000 + 90_000);
            }
        }
        sameInBothEngines(uri);
        try (org.lance.Dataset l = org.lance.Dataset.open(uri, alloc)) {
            assertThat(l.countRows()).isEqualTo(109_000);
        }
    }

    @Test
    void maxBytesPerFileBothWays() throws Exception {
        String ours = dir.resolve("bytes-ours.lance").toString();
        try (Dataset ds = Dataset.write(ours, ours(0, 5000), SCHEMA, WriteParams.of(WriteMode.CREATE).withMaxBytesPerFile(8 * 1024))
                .block()) {
            assertThat(ds.fragments().size()).isGreaterThan(3);
            try (org.lance.Dataset l = org.lance.Dataset.open(ours, alloc)) {
                assertThat(l.getFragments()).hasSize(ds.fragments().size());
            }
        }
        sameInBothEngines(ours);
        String theirs = dir.resolve("bytes-theirs.lance").toString();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, alloc); ArrowStreamWriter w = new ArrowStreamWriter(root, null, out)) {
            w.start();
            for (int b = 0; b < 10; b++) {
                fill(root, b * 500L, 500);
                w.writeBatch();
            }
            w.end();
        }
        try (ArrowReader reader = new ArrowStreamReader(new ByteArrayInputStream(out.toByteArray()), alloc);
             ArrowArrayStream stream = ArrowArrayStream.allocateNew(alloc)) {
            Data.exportArrayStream(alloc, reader, stream);
            org.lance.Dataset.create(alloc, stream, theirs, new org.lance.WriteParams.Builder()
                    .withMode(org.lance.WriteParams.WriteMode.CREATE).withMaxBytesPerFile(8 * 1024).build()).close();
        }
        try (Dataset ds = Dataset.open(theirs).block(); org.lance.Dataset l = org.lance.Dataset.open(theirs, alloc)) {
            // lance-core counts bytes its writer has flushed, so tiny files stay whole there; ours counts Arrow bytes
            assertThat(ds.fragments()).hasSize(l.getFragments().size());
            assertThat(ds.count().block()).isEqualTo(5000);
        }
        sameInBothEngines(theirs);
    }

    @Test
    void tagMetadataAndBranchTagsBothWays() throws Exception {
        String uri = dir.resolve("tags.lance").toString();
        long branchVersion;
        try (Dataset v1 = Dataset.write(uri, ours(0, 100), SCHEMA, WriteParams.of(WriteMode.CREATE)).block();
             Dataset b = v1.createBranch("dev").block(); Dataset b2 = b.append(ours(1000, 10), SCHEMA).block()) {
            branchVersion = b2.version();
            v1.createTag("ours", 1, Map.of("owner", "javelin")).block();
            v1.createTag("ours-dev", "dev", branchVersion, Map.of("k", "v")).block();
        }
        try (org.lance.Dataset l = org.lance.Dataset.open(uri, alloc)) {
            var byName = new java.util.HashMap<String, org.lance.Tag>();
            l.tags().list().forEach(t -> byName.put(t.getName(), t));
            assertThat(byName.get("ours").getMetadata()).containsEntry("owner", "javelin");
            assertThat(byName.get("ours-dev").getBranch()).contains("dev");
            assertThat(byName.get("ours-dev").getVersion()).isEqualTo(branchVersion);
            assertThat(byName.get("ours-dev").getMetadata()).containsEntry("k", "v");
            try (org.lance.Dataset at = l.checkout(Ref.ofTag("ours-dev"))) {
                assertThat(at.countRows()).isEqualTo(110);
            }
            // lance-core's own: a branch tag and metadata
            l.tags().create("theirs-dev", Ref.ofBranch("dev", branchVersion));
            l.tags().replaceMetadata("theirs-dev", Map.of("by", "lance"));
        }
        try (Dataset ds = Dataset.open(uri).block(); Dataset at = ds.checkout("theirs-dev").block()) {
            var t = ds.tags().block().get("theirs-dev");
            assertThat(t.branch()).isEqualTo("dev");
            assertThat(t.metadata()).containsEntry("by", "lance");
            assertThat(at.count().block()).isEqualTo(110);
        }
    }

    @Test
    void deleteByRowIdTruncateAndDropBothWays() throws Exception {
        String uri = dir.resolve("life.lance").toString();
        lanceWrite(uri, 0, 1000, org.lance.WriteParams.WriteMode.CREATE, true);
        try (Dataset ds = Dataset.open(uri).block(); Dataset d = ds.deleteRows(new long[] {0, 5, 999}).block()) {
            assertThat(d.count().block()).isEqualTo(997);
        }
        sameInBothEngines(uri);
        try (Dataset ds = Dataset.open(uri).block(); Dataset t = ds.truncate().block()) {
            assertThat(t.count().block()).isZero();
        }
        try (org.lance.Dataset l = org.lance.Dataset.open(uri, alloc)) {
            assertThat(l.countRows()).isZero();
        }
        lanceWrite(uri, 5000, 10, org.lance.WriteParams.WriteMode.APPEND, true);
        try (org.lance.Dataset l = org.lance.Dataset.open(uri, alloc)) {
            l.truncateTable();
        }
        try (Dataset ds = Dataset.open(uri).block()) {
            assertThat(ds.count().block()).isZero();
            assertThat(ds.schema().getFields()).extracting(f -> f.getName()).containsExactly("id", "v");
        }
        Dataset.drop(uri, Map.of()).block();
        assertThatThrownBy(() -> org.lance.Dataset.open(uri, alloc).close()).isInstanceOf(Exception.class);
        String theirs = dir.resolve("theirs.lance").toString();
        lanceWrite(theirs, 0, 10, org.lance.WriteParams.WriteMode.CREATE, false);
        org.lance.Dataset.drop(theirs, Map.of());
        assertThatThrownBy(() -> Dataset.open(theirs).block()).isInstanceOf(DatasetNotFoundException.class);
    }

    /** lance-core writes a history with stable row ids; Javelin's change feed reports it as the ledger says. */
    @Test
    void changeFeedOverALanceCoreHistory() throws Exception {
        String uri = dir.resolve("cdf.lance").toString();
        lanceWrite(uri, 0, 1000, org.lance.WriteParams.WriteMode.CREATE, true); // v1: ids 0..999
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, alloc); ArrowStreamWriter w = new ArrowStreamWriter(root, null, out)) {
            w.start();
            fill(root, 0, 50); // matched: updated (same values, a new last-updated version)
            w.writeBatch();
            fill(root, 2000, 10); // not matched: inserted
            w.writeBatch();
            w.end();
        }
        try (org.lance.Dataset l = org.lance.Dataset.open(uri, alloc);
             ArrowReader reader = new ArrowStreamReader(new ByteArrayInputStream(out.toByteArray()), alloc);
             ArrowArrayStream stream = ArrowArrayStream.allocateNew(alloc)) {
            Data.exportArrayStream(alloc, reader, stream);
            l.mergeInsert(new org.lance.merge.MergeInsertParams(List.of("id")).withMatchedUpdateAll()
                    .withNotMatched(org.lance.merge.MergeInsertParams.WhenNotMatched.InsertAll), stream).dataset().close(); // v2
        }
        try (org.lance.Dataset l = org.lance.Dataset.open(uri, alloc)) {
            l.delete("id >= 900 AND id < 1000"); // v3
        }
        java.util.Set<String> expected = new java.util.HashSet<>();
        for (long id = 0; id < 50; id++) {
            expected.add("update|" + id + "|2");
        }
        for (long id = 2000; id < 2010; id++) {
            expected.add("insert|" + id + "|2");
        }
        for (long id = 900; id < 1000; id++) {
            expected.add("delete|" + id + "|3");
        }
        java.util.Set<String> got = new java.util.HashSet<>();
        try (Dataset ds = Dataset.open(uri).block()) {
            assertThat(ds.version()).isEqualTo(3);
            for (VectorSchemaRoot b : ds.changes(1, 3, alloc).publishOn(reactor.core.scheduler.Schedulers.boundedElastic(), 1).toIterable(1)) {
                try (b) {
                    for (int i = 0; i < b.getRowCount(); i++) {
                        long id = (Long) b.getVector("id").getObject(i);
                        Object v = b.getVector("v").getObject(i);
                        assertThat(v).as("v of %d", id).isEqualTo(id % 9 == 0 ? null : id * 3);
                        got.add(b.getVector("_change_type").getObject(i) + "|" + id + "|"
                                + ((org.apache.arrow.vector.UInt8Vector) b.getVector("_change_version")).get(i));
                    }
                }
            }
        }
        assertThat(got).isEqualTo(expected);
        // from version 2: only the deletes; rows inserted and deleted in between never show
        try (Dataset ds = Dataset.open(uri).block()) {
            assertThat(ds.changes(2, 3, alloc).collectList().block().stream().mapToInt(b -> {
                try (b) {
                    return b.getRowCount();
                }
            }).sum()).isEqualTo(100);
        }
    }
}
