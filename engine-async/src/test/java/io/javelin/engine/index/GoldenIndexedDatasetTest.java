package io.javelin.engine.index;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.javelin.engine.Dataset;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * golden/indexed (Lance 7.0.0: BTree on id, Bitmap on category, FTS on text, IVF_PQ on vec) opened
 * through the Dataset API: its indexes are listed and the sidecar's filter and kNN queries return the
 * recorded rows, with the index (the planner's index path is taken) and without (pushdown off).
 */
class GoldenIndexedDatasetTest {

    static BufferAllocator alloc;
    static Dataset ds;
    static JsonNode expected;

    @BeforeAll
    static void open() throws Exception {
        alloc = new RootAllocator();
        ds = Dataset.open(Path.of(GoldenIndexedDatasetTest.class.getResource("/golden/indexed").toURI()).toString()).block();
        expected = new ObjectMapper().readTree(GoldenIndexedDatasetTest.class.getResource("/golden/indexed.expected.json"));
    }

    @AfterAll
    static void close() {
        ds.close();
        alloc.close();
    }

    static float[] row42() throws Exception {
        String[] parts = Files.readString(Path.of(GoldenIndexedDatasetTest.class.getResource("/golden/indexed.row42.vec.txt").toURI()))
                .trim().split(",");
        float[] v = new float[parts.length];
        for (int i = 0; i < v.length; i++) {
            v[i] = Float.parseFloat(parts[i]);
        }
        return v;
    }

    @Test
    void listsTheFourIndexes() {
        List<IndexInfo> idx = ds.listIndexes();
        assertThat(idx).extracting(IndexInfo::name).containsExactlyInAnyOrder("id_btree", "category_bitmap", "text_fts", "vec_ivfpq");
        for (JsonNode e : expected.get("layout").get("indices")) {
            IndexInfo i = idx.stream().filter(x -> x.name().equals(e.get("name").asText())).findFirst().orElseThrow();
            assertThat(i.indexType()).isEqualTo(e.get("index_type").asText());
            assertThat(i.metadata().getIndexDetails().getTypeUrl()).isEqualTo(e.get("type_url").asText());
            JsonNode seg = e.get("segments").get(0);
            assertThat(i.uuid().toString()).isEqualTo(seg.get("uuid").asText());
            assertThat(i.datasetVersion()).isEqualTo(seg.get("dataset_version").asLong());
            assertThat(i.indexVersion()).isEqualTo(seg.get("index_version").asInt());
            assertThat(i.fragments().toArray()).containsExactly(0, 1);
        }
        assertThat(idx.stream().filter(i -> i.name().equals("vec_ivfpq")).findFirst().orElseThrow().columns()).containsExactly("vec");
    }

    static long[] ids(io.javelin.engine.Scanner s) {
        List<Long> out = new ArrayList<>();
        for (VectorSchemaRoot b : s.columns("id").scan(alloc).collectList().block()) {
            try (b) {
                BigIntVector v = (BigIntVector) b.getVector("id");
                for (int i = 0; i < b.getRowCount(); i++) {
                    out.add(v.get(i));
                }
            }
        }
        return out.stream().mapToLong(Long::longValue).sorted().toArray();
    }

    @Test
    void filterQueriesUseTheIndexesAndMatchTheSidecar() {
        int checked = 0;
        for (JsonNode q : expected.get("queries")) {
            if (!q.get("type").asText().equals("filter")) {
                continue;
            }
            String filter = q.get("filter").asText();
            long before = ScalarIndexScan.INDEXED_SCANS.get();
            long[] got = ids(ds.scanner().filter(filter));
            assertThat(ScalarIndexScan.INDEXED_SCANS.get()).as("index used for %s", filter).isGreaterThan(before);
            assertThat(got).as(filter).hasSize(q.get("count").asInt());
            JsonNode want = q.has("sorted_ids") ? q.get("sorted_ids") : q.get("sorted_ids_first50");
            for (int i = 0; i < want.size(); i++) {
                assertThat(got[i]).as("%s row %d", filter, i).isEqualTo(want.get(i).asLong());
            }
            assertThat(ids(ds.scanner().filter(filter).pushdown(false))).as("without index: " + filter).containsExactly(got);
            checked++;
        }
        assertThat(checked).isEqualTo(4);
        // a predicate mixing an indexed and an unindexed column, OR of two indexes, IN, limit/offset
        assertThat(ids(ds.scanner().filter("id < 200 AND num > 10"))).containsExactly(ids(ds.scanner().filter("id < 200 AND num > 10").pushdown(false)));
        assertThat(ids(ds.scanner().filter("id IN (5, 7, 4999) OR category = 'cat_1'")))
                .containsExactly(ids(ds.scanner().filter("id IN (5, 7, 4999) OR category = 'cat_1'").pushdown(false)));
        assertThat(ids(ds.scanner().filter("id BETWEEN 2490 AND 2510").limit(5).offset(3))).containsExactly(2493, 2494, 2495, 2496, 2497);
    }

    @Test
    void knnWithAndWithoutTheIndexMatchesLance() throws Exception {
        float[] q = row42();
        for (JsonNode query : expected.get("queries")) {
            if (!query.get("type").asText().equals("knn")) {
                continue;
            }
            boolean useIndex = query.get("use_index").asBoolean();
            List<VectorSchemaRoot> out = ds.scanner().columns("id").nearest("vec", q, query.get("k").asInt())
                    .nprobes(query.get("nprobes").asInt()).useIndex(useIndex).scan(alloc).collectList().block();
            assertThat(out).hasSize(1);
            try (VectorSchemaRoot r = out.get(0)) {
                assertThat(r.getSchema().getFields()).extracting(f -> f.getName()).containsExactly("id", "_distance");
                JsonNode res = query.get("results");
                assertThat(r.getRowCount()).isEqualTo(res.size());
                BigIntVector id = (BigIntVector) r.getVector("id");
                Float4Vector d = (Float4Vector) r.getVector("_distance");
                for (int i = 0; i < res.size(); i++) {
                    assertThat(id.get(i)).as("useIndex=%s rank %d", useIndex, i).isEqualTo(res.get(i).get("id").asLong());
                    assertThat(d.get(i)).isCloseTo((float) res.get(i).get("distance").asDouble(), Offset.offset(2e-3f));
                }
            }
        }
        // refine re-ranks by exact distance: row 42 itself comes first at distance 0
        var nbs = ds.scanner().nearest("vec", q, 5).nprobes(4).refineFactor(10).neighbors().block();
        assertThat(nbs.get(0).rowId()).isEqualTo(42L);
        assertThat(nbs.get(0).distance()).isZero();
        // a prefilter on an indexed column: only matching rows are candidates
        var filtered = ds.scanner().filter("id >= 2500").nearest("vec", q, 10).nprobes(4).neighbors().block();
        assertThat(filtered).hasSize(10).allMatch(n -> (n.rowId() >>> 32) == 1);
        assertThat(Arrays.stream(new int[] {1})).isNotEmpty();
    }
}
