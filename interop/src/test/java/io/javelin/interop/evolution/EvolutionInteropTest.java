package io.javelin.interop.evolution;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.encoding.writer.LanceFileVersion;
import io.javelin.engine.ColumnAlteration;
import io.javelin.engine.Dataset;
import io.javelin.engine.MergeInsertResult;
import io.javelin.engine.UpdateResult;
import io.javelin.engine.WriteMode;
import io.javelin.engine.WriteParams;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;
import org.lance.merge.MergeInsertParams;
import org.lance.schema.SqlExpressions;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;

/**
 * Schema evolution, update and merge-insert both ways with lance-core 7.0.0: after every operation one
 * engine commits, the other reads the same rows, and can keep committing (append + delete) on top.
 */
class EvolutionInteropTest {

    static final Schema SCHEMA = new Schema(List.of(
            new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
            new Field("name", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
            new Field("score", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), null),
            new Field("s", FieldType.nullable(ArrowType.Struct.INSTANCE), List.of(
                    new Field("a", FieldType.nullable(new ArrowType.Int(32, true)), null),
                    new Field("b", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)))));

    @TempDir
    Path dir;

    final BufferAllocator alloc = new RootAllocator();

    @AfterEach
    void closeAllocator() {
        alloc.close();
    }

    static void fill(VectorSchemaRoot root, long from, int n) {
        root.allocateNew();
        BigIntVector id = (BigIntVector) root.getVector("id");
        VarCharVector name = (VarCharVector) root.getVector("name");
        Float8Vector score = (Float8Vector) root.getVector("score");
        StructVector s = (StructVector) root.getVector("s");
        IntVector a = (IntVector) s.getChild("a");
        VarCharVector b = (VarCharVector) s.getChild("b");
        for (int i = 0; i < n; i++) {
            long v = from + i;
            id.setSafe(i, v);
            if (v % 7 == 0) {
                name.setNull(i);
            } else {
                name.setSafe(i, ("r" + v).getBytes(StandardCharsets.UTF_8));
            }
            score.setSafe(i, ((v * 31) % 100) / 100.0);
            if (v % 13 == 0) {
                s.setNull(i);
            } else {
                s.setIndexDefined(i);
                a.setSafe(i, (int) (v % 9));
                b.setSafe(i, ("b" + v % 4).getBytes(StandardCharsets.UTF_8));
            }
        }
        a.setValueCount(n);
        b.setValueCount(n);
        root.setRowCount(n);
    }

    Flux<VectorSchemaRoot> ours(long from, int n, int batch) {
        return Flux.range(0, (n + batch - 1) / batch).map(b -> {
            VectorSchemaRoot r = VectorSchemaRoot.create(SCHEMA, alloc);
            fill(r, from + (long) b * batch, Math.min(batch, n - b * batch));
            return r;
        });
    }

    static List<String> rows(VectorSchemaRoot r) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < r.getRowCount(); i++) {
            StringBuilder sb = new StringBuilder();
            for (FieldVector v : r.getFieldVectors()) {
                sb.append(v.getField().getName()).append('=').append(v.getObject(i)).append('|');
            }
            out.add(sb.toString());
        }
        return out;
    }

    List<String> lanceRows(String uri) throws Exception {
        List<String> out = new ArrayList<>();
        try (org.lance.Dataset ds = org.lance.Dataset.open(uri, alloc);
             LanceScanner s = ds.newScan(new ScanOptions.Builder().batchSize(1000).build());
             ArrowReader r = s.scanBatches()) {
            while (r.loadNextBatch()) {
                out.addAll(rows(r.getVectorSchemaRoot()));
            }
        }
        return out;
    }

    List<String> ourRows(String uri) {
        List<String> out = new ArrayList<>();
        try (Dataset ds = Dataset.open(uri).block()) {
            for (VectorSchemaRoot b : ds.scanner().scan(alloc).publishOn(Schedulers.boundedElastic(), 1).toIterable(1)) {
                try (b) {
                    out.addAll(rows(b));
                }
            }
        }
        return out;
    }

    long lanceVersion(String uri) {
        try (org.lance.Dataset ds = org.lance.Dataset.open(uri, alloc)) {
            return ds.version();
        }
    }

    /** Rows of our scan (filtered) re-encoded as an Arrow stream: data with exactly the dataset's current schema. */
    byte[] ipcOf(String uri, String filter, Function<VectorSchemaRoot, VectorSchemaRoot> edit) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (Dataset ds = Dataset.open(uri).block()) {
            List<VectorSchemaRoot> batches = ds.scanner().filter(filter).scan(alloc).collectList().block();
            try (VectorSchemaRoot root = VectorSchemaRoot.create(ds.schema(), alloc);
                 ArrowStreamWriter w = new ArrowStreamWriter(root, null, out)) {
                w.start();
                for (VectorSchemaRoot b : batches) {
                    try (b) {
                        VectorSchemaRoot e = edit.apply(b);
                        try (var rb = new org.apache.arrow.vector.VectorUnloader(e).getRecordBatch()) {
                            new org.apache.arrow.vector.VectorLoader(root).load(rb);
                        }
                        w.writeBatch();
                    }
                }
                w.end();
            }
        }
        return out.toByteArray();
    }

    void lanceAppend(String uri, byte[] ipc) throws Exception {
        try (ArrowReader reader = new ArrowStreamReader(new ByteArrayInputStream(ipc), alloc);
             ArrowArrayStream stream = ArrowArrayStream.allocateNew(alloc)) {
            Data.exportArrayStream(alloc, reader, stream);
            org.lance.WriteParams p = new org.lance.WriteParams.Builder().withMode(org.lance.WriteParams.WriteMode.APPEND).build();
            org.lance.Dataset.create(alloc, stream, uri, p).close();
        }
    }

    Flux<VectorSchemaRoot> ipcFlux(byte[] ipc) {
        return Flux.defer(() -> {
            List<VectorSchemaRoot> out = new ArrayList<>();
            try (ArrowReader reader = new ArrowStreamReader(new ByteArrayInputStream(ipc), alloc)) {
                while (reader.loadNextBatch()) {
                    VectorSchemaRoot src = reader.getVectorSchemaRoot();
                    VectorSchemaRoot copy = VectorSchemaRoot.create(src.getSchema(), alloc);
                    try (var rb = new org.apache.arrow.vector.VectorUnloader(src).getRecordBatch()) {
                        new org.apache.arrow.vector.VectorLoader(copy).load(rb);
                    }
                    out.add(copy);
                }
            } catch (Exception e) {
                return Flux.error(e);
            }
            return Flux.fromIterable(out);
        });
    }

    private void sameEverywhere(String uri, String step) throws Exception {
        List<String> theirs = lanceRows(uri);
        List<String> mine = ourRows(uri);
        assertThat(mine).as(step).isNotEmpty().isEqualTo(theirs);
        // and every batch we emit is labelled as lance-core labels it (names, nullability, metadata)
        io.javelin.interop.engine.BatchSchemaInteropTest.check(dir, uri);
    }

    /** Adds 100000 to the id of every other row (so a merge-insert inserts those). */
    static VectorSchemaRoot shiftHalf(VectorSchemaRoot b) {
        BigIntVector id = (BigIntVector) b.getVector("id");
        for (int i = 0; i < b.getRowCount(); i += 2) {
            id.set(i, id.get(i) + 100_000);
        }
        return b;
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"2.0", "2.1", "2.2"})
    void lanceCoreReadsAndContinuesEveryEvolutionWeCommit(String storage) throws Exception {
        String uri = dir.resolve("ours.lance").toString();
        Dataset.write(uri, ours(0, 2000, 700), SCHEMA, WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(700)
                .withDataStorageVersion(LanceFileVersion.parse(storage))).flatMap(d -> {
                    Dataset v = d.delete("id % 10 = 3").block();
                    d.close();
                    return reactor.core.publisher.Mono.just(v);
                }).block().close();
        List<Map.Entry<String, Function<Dataset, Dataset>>> steps = new ArrayList<>();
        steps.add(Map.entry("add expression column", d -> d.addColumns(new LinkedHashMap<>(Map.of("twice", "id * 2"))).block()));
        steps.add(Map.entry("add all-null column", d -> d.addColumns(List.of(new Field("note", FieldType.nullable(ArrowType.Utf8.INSTANCE), null))).block()));
        steps.add(Map.entry("add column from a stream", d -> {
            long live = d.count().block();
            Schema seq = new Schema(List.of(new Field("seq", FieldType.notNullable(new ArrowType.Int(32, true)), null)));
            Flux<VectorSchemaRoot> data = Flux.range(0, (int) ((live + 299) / 300)).map(b -> {
                VectorSchemaRoot r = VectorSchemaRoot.create(seq, alloc);
                int n = (int) Math.min(300, live - b * 300L);
                IntVector v = (IntVector) r.getVector(0);
                v.allocateNew(n);
                for (int i = 0; i < n; i++) {
                    v.set(i, b * 300 + i);
                }
                r.setRowCount(n);
                return r;
            });
            return d.addColumns(data, seq).block();
        }));
        steps.add(Map.entry("drop columns", d -> d.dropColumns(List.of("score", "s.b")).block()));
        steps.add(Map.entry("rename", d -> d.renameColumn("name", "label").block()));
        steps.add(Map.entry("rename nested", d -> d.renameColumn("s.a", "alpha").block()));
        steps.add(Map.entry("nullability", d -> d.alterColumns(List.of(ColumnAlteration.nullable("id", true))).block()));
        steps.add(Map.entry("cast", d -> d.alterColumns(List.of(ColumnAlteration.cast("twice", new ArrowType.Int(32, true)))).block()));
        steps.add(Map.entry("update", d -> {
            UpdateResult u = d.update("id < 50", Map.of("label", "'u'", "twice", "twice + 1")).block();
            assertThat(u.rowsUpdated()).isEqualTo(45);
            return u.dataset();
        }));
        steps.add(Map.entry("merge-insert", d -> {
            try {
                byte[] src = ipcOf(uri, "id >= 1990", EvolutionInteropTest::shiftHalf);
                MergeInsertResult r = d.mergeInsert(List.of("id")).whenMatchedUpdateAll().whenNotMatchedInsertAll()
                        .whenNotMatchedBySourceDelete("id < 10").execute(ipcFlux(src)).block();
                assertThat(r.inserted()).isEqualTo(5);
                assertThat(r.updated()).isEqualTo(4);
                assertThat(r.deleted()).isEqualTo(9);
                return r.dataset();
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        }));
        for (var step : steps) {
            try (Dataset d = Dataset.open(uri).block(); Dataset next = step.getValue().apply(d)) {
                assertThat(next.version()).isEqualTo(d.version() + 1);
                assertThat(lanceVersion(uri)).as(step.getKey()).isEqualTo(next.version());
            }
            sameEverywhere(uri, step.getKey());
        }
        // lance-core keeps committing on top: append, delete, and its own add-column
        lanceAppend(uri, ipcOf(uri, "id >= 100 AND id < 110", b -> shiftHalf(shiftHalf(b))));
        try (org.lance.Dataset ds = org.lance.Dataset.open(uri, alloc)) {
            ds.delete("id % 10 = 5");
            ds.addColumns(new SqlExpressions.Builder().withExpression("plus", "id + 7").build(), java.util.Optional.empty());
        }
        sameEverywhere(uri, "lance-core append + delete + add column after ours");
    }

    @Test
    void weReadAndContinueEveryEvolutionLanceCoreCommits() throws Exception {
        String uri = dir.resolve("theirs.lance").toString();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, alloc);
             ArrowStreamWriter w = new ArrowStreamWriter(root, null, out)) {
            w.start();
            for (int b = 0; b < 3; b++) {
                fill(root, b * 700L, 700);
                w.writeBatch();
            }
            w.end();
        }
        try (ArrowReader reader = new ArrowStreamReader(new ByteArrayInputStream(out.toByteArray()), alloc);
             ArrowArrayStream stream = ArrowArrayStream.allocateNew(alloc)) {
            Data.exportArrayStream(alloc, reader, stream);
            org.lance.WriteParams p = new org.lance.WriteParams.Builder().withMaxRowsPerFile(700).withDataStorageVersion("2.1").build();
            org.lance.Dataset.create(alloc, stream, uri, p).close();
        }
        List<Map.Entry<String, java.util.function.Consumer<org.lance.Dataset>>> steps = new ArrayList<>();
        steps.add(Map.entry("delete", ds -> ds.delete("id % 10 = 3")));
        steps.add(Map.entry("add expression column", ds -> ds.addColumns(
                new SqlExpressions.Builder().withExpression("twice", "id * 2").build(), java.util.Optional.empty())));
        steps.add(Map.entry("add all-null column", ds -> ds.addColumns(List.of(new Field("note", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)))));
        steps.add(Map.entry("add column from a stream", ds -> {
            long live = ds.countRows();
            Schema seq = new Schema(List.of(new Field("seq", FieldType.nullable(new ArrowType.Int(64, true)), null)));
            ByteArrayOutputStream buf = new ByteArrayOutputStream();
            try (VectorSchemaRoot root = VectorSchemaRoot.create(seq, alloc); ArrowStreamWriter w = new ArrowStreamWriter(root, null, buf)) {
                w.start();
                for (long at = 0; at < live; at += 500) {
                    int n = (int) Math.min(500, live - at);
                    BigIntVector v = (BigIntVector) root.getVector(0);
                    v.allocateNew(n);
                    for (int i = 0; i < n; i++) {
                        v.set(i, at + i);
                    }
                    root.setRowCount(n);
                    w.writeBatch();
                }
                w.end();
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
            try (ArrowReader reader = new ArrowStreamReader(new ByteArrayInputStream(buf.toByteArray()), alloc);
                 ArrowArrayStream stream = ArrowArrayStream.allocateNew(alloc)) {
                Data.exportArrayStream(alloc, reader, stream);
                ds.addColumns(stream, java.util.Optional.empty());
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        }));
        steps.add(Map.entry("drop columns", ds -> ds.dropColumns(List.of("score"))));
        steps.add(Map.entry("rename + nullability", ds -> ds.alterColumns(List.of(
                new org.lance.schema.ColumnAlteration.Builder("name").rename("label").build(),
                new org.lance.schema.ColumnAlteration.Builder("id").nullable(true).build()))));
        steps.add(Map.entry("rename nested", ds -> ds.alterColumns(List.of(
                new org.lance.schema.ColumnAlteration.Builder("s.a").rename("alpha").build()))));
        steps.add(Map.entry("cast", ds -> ds.alterColumns(List.of(
                new org.lance.schema.ColumnAlteration.Builder("twice").castTo(new ArrowType.Int(32, true)).build()))));
        steps.add(Map.entry("merge-insert", ds -> {
            try (ArrowReader reader = new ArrowStreamReader(new ByteArrayInputStream(ipcOf(uri, "id >= 2090", EvolutionInteropTest::shiftHalf)), alloc);
                 ArrowArrayStream stream = ArrowArrayStream.allocateNew(alloc)) {
                Data.exportArrayStream(alloc, reader, stream);
                var r = ds.mergeInsert(new MergeInsertParams(List.of("id")).withMatchedUpdateAll()
                        .withNotMatched(MergeInsertParams.WhenNotMatched.InsertAll).withNotMatchedBySourceDeleteIf("id < 10"), stream);
                r.dataset().close();
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        }));
        for (var step : steps) {
            try (org.lance.Dataset ds = org.lance.Dataset.open(uri, alloc)) {
                step.getValue().accept(ds);
            }
            try (Dataset d = Dataset.open(uri).block()) {
                assertThat(d.version()).as(step.getKey()).isEqualTo(lanceVersion(uri));
            }
            sameEverywhere(uri, step.getKey());
        }
        // and we keep committing on lance-core's evolved dataset: append, delete, update, our own evolution
        byte[] more = ipcOf(uri, "id >= 200 AND id < 220", b -> shiftHalf(shiftHalf(b)));
        try (Dataset d = Dataset.open(uri).block();
             Dataset a = d.append(ipcFlux(more), d.schema()).block();
             Dataset b = a.delete("id % 10 = 5").block();
             Dataset c = b.update("id < 300", Map.of("twice", "twice - 1")).block().dataset();
             Dataset e = c.addColumns(Map.of("plus", "id + 7")).block();
             Dataset f = e.renameColumn("label", "name2").block()) {
            assertThat(f.version()).isEqualTo(d.version() + 5);
        }
        sameEverywhere(uri, "our append + delete + update + evolution after lance-core's");
        try (org.lance.Dataset ds = org.lance.Dataset.open(uri, alloc)) {
            ds.delete("id = 201");
        }
        sameEverywhere(uri, "lance-core delete after ours");
    }
}
