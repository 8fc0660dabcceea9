package io.javelin.engine;

import static io.javelin.engine.DatasetTestSupport.collect;
import static io.javelin.engine.DatasetTestSupport.rows;
import static io.javelin.engine.DatasetTestSupport.schema;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.javelin.tx.pb.DataFile;
import io.javelin.tx.pb.DataFragment;
import io.javelin.tx.pb.Transaction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;

/** Add / drop / rename / alter columns: field ids, data-file layout and what scans return afterwards. */
class SchemaEvolutionTest {

    @TempDir
    Path tmp;

    final BufferAllocator alloc = new RootAllocator();

    @AfterEach
    void noArrowLeaks() {
        alloc.close();
    }

    /** 3 fragments of 1000 rows (ids 0..2999), rows with id % 10 == 3 deleted. */
    private Dataset base() {
        try (Dataset v1 = Dataset.write(tmp.resolve("ds.lance").toString(), rows(alloc, 0, 3000, 700), schema(),
                WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(1000)).block()) {
            return v1.delete("id % 10 = 3").block();
        }
    }

    private static Transaction.OperationCase op(Dataset ds) {
        return ds.snapshot().manifestFile().transaction().getOperationCase();
    }

    @Test
    void addColumnsFromExpressionsAndAllNulls() {
        try (Dataset v2 = base();
             Dataset v3 = v2.addColumns(List.of(new Field("note", FieldType.nullable(ArrowType.Utf8.INSTANCE), null))).block();
             Dataset v4 = v3.addColumns(new LinkedHashMap<>(Map.of("double_id", "id * 2"))).block();
             Dataset v5 = v4.addColumns(Map.of("big", "score > 0.5 AND s.a = 1")).block()) {
            assertThat(op(v3)).isEqualTo(Transaction.OperationCase.MERGE);
            assertThat(op(v4)).isEqualTo(Transaction.OperationCase.MERGE);
            // ids: id,name,score,s,s.a,s.b = 0..5; note 6; double_id 7; big 8
            assertThat(v5.lanceSchema().field("note").id()).isEqualTo(6);
            assertThat(v5.lanceSchema().field("double_id").id()).isEqualTo(7);
            assertThat(v5.lanceSchema().field("big").id()).isEqualTo(8);
            assertThat(v5.schema().findField("double_id").getType()).isEqualTo(new ArrowType.Int(64, true));
            assertThat(v5.schema().findField("double_id").isNullable()).isFalse();
            assertThat(v5.schema().findField("big").getType()).isEqualTo(ArrowType.Bool.INSTANCE);
            for (DataFragment f : v5.snapshot().manifestFile().manifest().getFragmentsList()) {
                assertThat(f.getFilesList()).extracting(DataFile::getFieldsList)
                        .containsExactly(List.of(0, 1, 2, 3, 4, 5), List.of(7), List.of(8));
                assertThat(f.getFiles(1).getFileMajorVersion()).isEqualTo(f.getFiles(0).getFileMajorVersion());
            }
            List<List<String>> r = collect(v5.scanner().columns("id", "note", "double_id", "big").filter("id < 5 OR id = 2999").scan(alloc));
            assertThat(r).containsExactly(
                    List.of("0", "null", "0", "null"), // score null (0 % 11 == 0)
                    List.of("1", "null", "2", String.valueOf(DatasetTestSupport.score(1) > 0.5 && 1 % 7 == 1)),
                    List.of("2", "null", "4", "false"),
                    List.of("4", "null", "8", "false"),
                    List.of("2999", "null", "5998", "false"));
            assertThat(v5.count("double_id >= 5000").block()).isEqualTo(v5.count("id >= 2500").block());
            // late materialization across files; take by address across files
            assertThat(collect(v5.scanner().columns("name", "double_id").filter("double_id = 2000").scan(alloc)))
                    .containsExactly(List.of("n1000", "2000"));
            assertThatThrownBy(() -> v5.addColumns(Map.of("id", "1")).block()).isInstanceOf(SchemaEvolutionException.class)
                    .hasMessageContaining("already exists");
            assertThatThrownBy(() -> v5.addColumns(Map.of("x", "nope + 1")).block()).isInstanceOf(InvalidScanException.class)
                    .hasMessageContaining("nope");
            assertThatThrownBy(() -> v5.addColumns(List.of(new Field("nn", FieldType.notNullable(ArrowType.Utf8.INSTANCE), null))).block())
                    .isInstanceOf(SchemaEvolutionException.class).hasMessageContaining("nullable");
        }
    }

    @Test
    void addColumnsFromAStreamAlignedWithLiveRows() {
        try (Dataset v2 = base()) {
            long live = v2.count().block();
            Schema cols = new Schema(List.of(new Field("seq", FieldType.notNullable(new ArrowType.Int(32, true)), null)));
            Flux<VectorSchemaRoot> data = Flux.range(0, (int) ((live + 999) / 1000)).map(b -> {
                VectorSchemaRoot r = VectorSchemaRoot.create(cols, alloc);
                int n = (int) Math.min(1000, live - b * 1000L);
                IntVector v = (IntVector) r.getVector(0);
                v.allocateNew(n);
                for (int i = 0; i < n; i++) {
                    v.set(i, b * 1000 + i);
                }
                r.setRowCount(n);
                return r;
            });
            try (Dataset v3 = v2.addColumns(data, cols).block()) {
                List<List<String>> r = collect(v3.scanner().columns("id", "seq").scan(alloc));
                assertThat(r).hasSize((int) live);
                for (int i = 0; i < r.size(); i++) {
                    assertThat(r.get(i).get(1)).isEqualTo(String.valueOf(i));
                }
            }
            Flux<VectorSchemaRoot> tooFew = Flux.just(1).map(x -> {
                VectorSchemaRoot r = VectorSchemaRoot.create(cols, alloc);
                ((IntVector) r.getVector(0)).allocateNew(5);
                r.setRowCount(5);
                return r;
            });
            assertThatThrownBy(() -> v2.addColumns(tooFew, cols).block()).isInstanceOf(SchemaEvolutionException.class)
                    .hasMessageContaining("ended before");
        }
    }

    @Test
    void dropRenameNullabilityAndCast() {
        try (Dataset v2 = base();
             Dataset v3 = v2.addColumns(Map.of("twice", "id * 2")).block();
             Dataset v4 = v3.dropColumns(List.of("score", "s.b")).block();
             Dataset v5 = v4.renameColumn("name", "label").block();
             Dataset v6 = v5.renameColumn("s.a", "alpha").block();
             Dataset v7 = v6.alterColumns(List.of(ColumnAlteration.nullable("id", true))).block();
             Dataset v8 = v7.alterColumns(List.of(ColumnAlteration.cast("twice", new ArrowType.Int(32, true)))).block();
             Dataset v9 = v8.addColumns(Map.of("later", "id + 1")).block()) {
            assertThat(op(v4)).isEqualTo(Transaction.OperationCase.PROJECT);
            assertThat(op(v5)).isEqualTo(Transaction.OperationCase.PROJECT);
            assertThat(op(v8)).isEqualTo(Transaction.OperationCase.MERGE);
            assertThat(v9.schema().getFields()).extracting(Field::getName).containsExactly("id", "label", "s", "twice", "later");
            assertThat(v9.schema().findField("s").getChildren()).extracting(Field::getName).containsExactly("alpha");
            assertThat(v9.schema().findField("id").isNullable()).isTrue();
            assertThat(v9.schema().findField("twice").getType()).isEqualTo(new ArrowType.Int(32, true));
            // dropped ids stay listed in the data files (no tombstones), so new ids never reuse them
            DataFragment f0 = v9.snapshot().manifestFile().manifest().getFragments(0);
            assertThat(f0.getFiles(0).getFieldsList()).containsExactly(0, 1, 2, 3, 4, 5);
            // the cast moved "twice" (id 6) to id 7 in a new file; the old file had nothing left and is gone
            assertThat(f0.getFilesList()).extracting(DataFile::getFieldsList)
                    .containsExactly(List.of(0, 1, 2, 3, 4, 5), List.of(7), List.of(8));
            assertThat(v9.lanceSchema().field("later").id()).isEqualTo(8);
            List<List<String>> r = collect(v9.scanner().columns("id", "label", "s", "twice", "later").filter("label = 'n1002'").scan(alloc));
            assertThat(r).containsExactly(List.of("1002", "n1002", "{\"alpha\":1}", "2004", "1003"));
            assertThat(collect(v9.scanner().columns("id", "s.alpha").filter("s.alpha = 6 AND id < 30").scan(alloc)))
                    .containsExactly(List.of("6", "{\"alpha\":6}"), List.of("20", "{\"alpha\":6}"), List.of("27", "{\"alpha\":6}")); // 13 is a null struct
            assertThat(v9.count().block()).isEqualTo(2700);
            // the old version still reads under its own schema
            assertThat(collect(v3.scanner().columns("name", "score").filter("id = 1").scan(alloc)))
                    .containsExactly(List.of("n1", String.valueOf(DatasetTestSupport.score(1))));
            assertThatThrownBy(() -> v9.alterColumns(List.of(ColumnAlteration.nullable("label", false))).block())
                    .isInstanceOf(SchemaEvolutionException.class).hasMessageContaining("cannot be made non-nullable");
            assertThatThrownBy(() -> v9.alterColumns(List.of(ColumnAlteration.cast("label", new ArrowType.Int(32, true)))).block())
                    .isInstanceOf(SchemaEvolutionException.class).hasMessageContaining("Cannot cast");
            assertThatThrownBy(() -> v9.renameColumn("label", "id").block()).isInstanceOf(SchemaEvolutionException.class);
            assertThatThrownBy(() -> v9.dropColumns(List.of("nope")).block()).isInstanceOf(SchemaEvolutionException.class)
                    .hasMessageContaining("does not exist");
            assertThatThrownBy(() -> v9.dropColumns(List.of("id", "label", "s", "twice", "later")).block())
                    .isInstanceOf(SchemaEvolutionException.class).hasMessageContaining("all columns");
        }
    }

    @Test
    void lossyCastIsAnError() {
        try (Dataset v2 = base(); Dataset v3 = v2.addColumns(Map.of("huge", "id * 10000000")).block()) {
            assertThatThrownBy(() -> v3.alterColumns(List.of(ColumnAlteration.cast("huge", new ArrowType.Int(16, true)))).block())
                    .isInstanceOf(DatasetException.class).hasMessageContaining("out of range");
            assertThat(v3.checkoutLatest().map(d -> {
                long v = d.version();
                d.close();
                return v;
            }).block()).isEqualTo(v3.version());
        }
    }

    // ------------------------------------------------------------------ update and merge-insert

    @Test
    void updateRewritesMatchingRows() {
        try (Dataset v2 = base()) {
            UpdateResult u = v2.update("id < 100 AND id % 2 = 0", Map.of("name", "'even'", "score", "score * 2")).block();
            try (Dataset v3 = u.dataset()) {
                assertThat(u.rowsUpdated()).isEqualTo(50 - 0); // ids 0..98 even, none end in 3
                assertThat(op(v3)).isEqualTo(Transaction.OperationCase.UPDATE);
                assertThat(v3.count().block()).isEqualTo(2700);
                assertThat(v3.fragments()).hasSize(4);
                assertThat(v3.count("name = 'even'").block()).isEqualTo(50);
                List<List<String>> r = collect(v3.scanner().columns("id", "name", "score", "s").filter("id = 2 OR id = 1").scan(alloc));
                assertThat(r).containsExactlyInAnyOrder(
                        List.of("1", "n1", String.valueOf(DatasetTestSupport.score(1)), "{\"a\":1,\"b\":\"b1\"}"),
                        List.of("2", "even", String.valueOf(DatasetTestSupport.score(2) * 2), "{\"a\":2,\"b\":\"b2\"}"));
                UpdateResult none = v3.update("id < 0", Map.of("name", "'x'")).block();
                try (Dataset same = none.dataset()) {
                    assertThat(none.rowsUpdated()).isZero();
                    assertThat(same.version()).isEqualTo(v3.version());
                }
                assertThatThrownBy(() -> v3.update("id = 1", Map.of("nope", "1")).block()).isInstanceOf(SchemaEvolutionException.class);
            }
        }
    }

    static final Schema KV = new Schema(List.of(
            new Field("k", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
            new Field("k2", FieldType.notNullable(new ArrowType.Int(64, true)), null),
            new Field("v", FieldType.nullable(new ArrowType.Int(64, true)), null)));

    private VectorSchemaRoot kv(String[] k, long[] k2, long[] v) {
        VectorSchemaRoot r = VectorSchemaRoot.create(KV, alloc);
        r.allocateNew();
        for (int i = 0; i < k.length; i++) {
            if (k[i] == null) {
                ((VarCharVector) r.getVector(0)).setNull(i);
            } else {
                ((VarCharVector) r.getVector(0)).setSafe(i, k[i].getBytes(StandardCharsets.UTF_8));
            }
            ((BigIntVector) r.getVector(1)).setSafe(i, k2[i]);
            ((BigIntVector) r.getVector(2)).setSafe(i, v[i]);
        }
        r.setRowCount(k.length);
        return r;
    }

    private static List<String> sorted(List<List<String>> rows) {
        List<String> out = new ArrayList<>();
        rows.forEach(r -> out.add(String.join(",", r)));
        out.sort(null);
        return out;
    }

    @Test
    void mergeInsertWithCompositeKeysAndNullKeys() {
        String uri = tmp.resolve("kv.lance").toString();
        try (Dataset v1 = Dataset.write(uri, Flux.just(1).map(x -> kv(new String[] {"a", "a", "b", null, "c"},
                new long[] {1, 2, 1, 1, 1}, new long[] {10, 20, 30, 40, 50})), KV, WriteParams.of(WriteMode.CREATE)).block()) {
            MergeInsertResult res = v1.mergeInsert(List.of("k", "k2")).whenMatchedUpdateAll().whenNotMatchedInsertAll()
                    .whenNotMatchedBySourceDelete("k = 'c'")
                    .execute(Flux.just(1).map(x -> kv(new String[] {"a", "b", null, "d"}, new long[] {2, 2, 1, 1},
                            new long[] {200, 300, 400, 500}))).block();
            try (Dataset v2 = res.dataset()) {
                assertThat(op(v2)).isEqualTo(Transaction.OperationCase.UPDATE);
                assertThat(res.updated()).isEqualTo(1); // (a,2)
                assertThat(res.inserted()).isEqualTo(3); // (b,2), (null,1) never matches, (d,1)
                assertThat(res.deleted()).isEqualTo(1); // (c,1) not in source and k = 'c'
                assertThat(sorted(collect(v2.scanner().scan(alloc)))).containsExactly(
                        "a,1,10", "a,2,200", "b,1,30", "b,2,300", "d,1,500", "null,1,40", "null,1,400");
                // conditional update reading source and target; do-nothing for unmatched
                MergeInsertResult r2 = v2.mergeInsert(List.of("k", "k2")).whenMatchedUpdateAll("source.v > target.v")
                        .whenNotMatchedDoNothing()
                        .execute(Flux.just(1).map(x -> kv(new String[] {"a", "b", "zz"}, new long[] {1, 1, 9}, new long[] {5, 99, 1})))
                        .block();
                try (Dataset v3 = r2.dataset()) {
                    assertThat(r2.updated()).isEqualTo(1);
                    assertThat(r2.inserted()).isZero();
                    assertThat(sorted(collect(v3.scanner().scan(alloc)))).containsExactly(
                            "a,1,10", "a,2,200", "b,1,99", "b,2,300", "d,1,500", "null,1,40", "null,1,400");
                    // two source rows for one target row: Lance's error
                    assertThatThrownBy(() -> v3.mergeInsert(List.of("k", "k2")).whenMatchedUpdateAll()
                            .execute(Flux.just(1).map(x -> kv(new String[] {"a", "a"}, new long[] {1, 1}, new long[] {1, 2}))).block())
                            .isInstanceOf(SchemaEvolutionException.class).hasMessageContaining("Ambiguous merge insert");
                    assertThatThrownBy(() -> v3.mergeInsert(List.of("nope")).execute(Flux.empty()).block())
                            .isInstanceOf(SchemaEvolutionException.class);
                }
            }
        }
    }
}
