package io.javelin.engine.index;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.engine.Dataset;
import io.javelin.engine.WriteMode;
import io.javelin.engine.WriteParams;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;

/**
 * Property: LabelList answers for array_has_any/array_has_all/array_has and BTree answers for
 * starts_with / LIKE 'p%' give exactly the rows of the same scan without indexes, on random data with
 * NULL lists, NULL elements, empty lists, Unicode and deletions.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FunctionIndexPropertyTest {

    static final String[] LABELS = {"a", "b", "c", "dog", "Ä", "", "日本"};
    static final String[] WORDS = {"apple", "apricot", "app", "b", "banana", "äpfel", "日本語", "日", "", "a%b", "ap\uFFFF", "z"};
    static final Schema SCHEMA = new Schema(List.of(
            new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
            new Field("s", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
            new Field("tags", FieldType.nullable(ArrowType.List.INSTANCE),
                    List.of(new Field("item", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)))));

    BufferAllocator setup;
    BufferAllocator alloc;
    Dataset ds;

    @BeforeAll
    void write() {
        setup = new RootAllocator();
        Random r = new Random(11);
        Flux<VectorSchemaRoot> data = Flux.range(0, 6).map(b -> {
            VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, setup);
            root.allocateNew();
            BigIntVector id = (BigIntVector) root.getVector("id");
            VarCharVector s = (VarCharVector) root.getVector("s");
            ListVector tags = (ListVector) root.getVector("tags");
            VarCharVector items = (VarCharVector) tags.getDataVector();
            int at = 0;
            for (int i = 0; i < 1000; i++) {
                id.setSafe(i, b * 1000L + i);
                if (r.nextInt(10) == 0) {
                    s.setNull(i);
                } else {
                    s.setSafe(i, WORDS[r.nextInt(WORDS.length)].getBytes(StandardCharsets.UTF_8));
                }
                if (r.nextInt(10) == 0) {
                    tags.setNull(i);
                } else {
                    tags.startNewValue(i);
                    int n = r.nextInt(4);
                    for (int k = 0; k < n; k++) {
                        if (r.nextInt(15) == 0) {
                            items.setNull(at++);
                        } else {
                            items.setSafe(at++, LABELS[r.nextInt(LABELS.length)].getBytes(StandardCharsets.UTF_8));
                        }
                    }
                    tags.endValue(i, n);
                }
            }
            items.setValueCount(at);
            root.setRowCount(1000);
            return root;
        });
        try (Dataset v1 = Dataset.write("memory://FunctionIndexPropertyTest-" + System.nanoTime() + "/ds.lance", data, SCHEMA,
                WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(2000)).block();
             Dataset v2 = v1.delete("id % 13 = 5").block();
             Dataset v3 = v2.createIndex(List.of("tags"), IndexKind.LABEL_LIST, IndexParams.defaults()).block()) {
            ds = v3.createIndex(List.of("s"), IndexKind.BTREE, IndexParams.defaults()).block();
        }
    }

    @AfterAll
    void close() {
        ds.close();
        setup.close();
    }

    @BeforeEach
    void allocator() {
        alloc = new RootAllocator();
    }

    @AfterEach
    void noLeaks() {
        alloc.close();
    }

    List<Long> ids(String filter, boolean pushdown) {
        List<Long> out = new ArrayList<>();
        for (VectorSchemaRoot b : ds.scanner().columns("id").filter(filter).pushdown(pushdown).scan(alloc)
                .publishOn(Schedulers.boundedElastic(), 1).toIterable(1)) {
            try (b) {
                BigIntVector v = (BigIntVector) b.getVector("id");
                for (int i = 0; i < b.getRowCount(); i++) {
                    out.add(v.get(i));
                }
            }
        }
        out.sort(Long::compare);
        return out;
    }

    @Test
    void indexedFunctionPredicatesEqualTheScan() {
        Random r = new Random(5);
        List<String> filters = new ArrayList<>(List.of("starts_with(s, 'ap')", "s LIKE 'ap%'", "s LIKE '日%'",
                "starts_with(s, 'ap\uFFFF')", "s LIKE 'a\\%%'", "array_has(tags, 'Ä')", "array_has_any(tags, [''])",
                "array_has_all(tags, ['a', 'b'])", "array_has_any(tags, ['dog', '日本']) AND starts_with(s, 'a')",
                "array_has_any(tags, ['c']) OR s LIKE 'b%'", "NOT array_has_any(tags, ['a'])", "array_has_all(tags, [])",
                "_rowaddr < 4294967396 AND array_has_any(tags, ['a'])", "_rowid % 3 = 1 AND starts_with(s, 'ap')"));
        for (int k = 0; k < 40; k++) {
            String a = LABELS[r.nextInt(LABELS.length)];
            String b = LABELS[r.nextInt(LABELS.length)];
            String w = WORDS[r.nextInt(WORDS.length)];
            String p = w.substring(0, Math.min(w.length(), r.nextInt(3)));
            filters.add(switch (k % 4) {
                case 0 -> "array_has_any(tags, ['" + a + "', '" + b + "'])";
                case 1 -> "array_has_all(tags, ['" + a + "', '" + b + "']) OR id < 10";
                case 2 -> "starts_with(s, '" + p + "') AND array_contains(tags, '" + a + "')";
                default -> "s LIKE '" + p.replace("%", "\\%") + "%'";
            });
        }
        long before = ScalarIndexScan.INDEXED_SCANS.get();
        for (String f : filters) {
            assertThat(ids(f, true)).as(f).isEqualTo(ids(f, false));
        }
        assertThat(ScalarIndexScan.INDEXED_SCANS.get() - before).as("filters answered through an index").isGreaterThan(30);
    }

    @Test
    void countsOfLabelPredicatesComeFromTheIndex() {
        for (String f : List.of("array_has_any(tags, ['a', 'dog'])", "array_has_all(tags, ['a', 'b'])", "array_has(tags, '')",
                "array_has_any(tags, ['c']) OR array_has(tags, 'Ä')")) {
            long before = IndexCount.INDEX_COUNTS.get();
            long counted = ds.count(f).block();
            assertThat(IndexCount.INDEX_COUNTS.get() - before).as("answered by the index: %s", f).isEqualTo(1);
            assertThat(counted).as(f).isEqualTo(ids(f, false).size());
        }
    }
}
