package io.javelin.interop.index;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.engine.Dataset;
import io.javelin.engine.index.IndexInfo;
import io.javelin.engine.index.IndexKind;
import io.javelin.engine.index.IndexParams;
import io.javelin.engine.maintenance.CompactionOptions;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.index.IndexDescription;
import org.lance.index.IndexType;
import org.lance.index.scalar.ScalarIndexParams;

/**
 * Index maintenance both ways with lance-core 7.0.0: indexes Javelin remapped during compaction and
 * merged by {@code optimizeIndexes} are listed by Lance with the right row counts and give Lance's
 * queries the same results as ours; a dataset Lance compacted (its own remap) is queried by us with
 * Lance's results.
 */
class IndexMaintenanceInteropTest {

    static final List<String> FILTERS = List.of("id = 1234", "id >= 100 AND id < 120", "cat = 'c3'", "cat IS NULL",
            "id IN (5, 2999, 1500, 3100) OR cat = 'c1'", "num < -400 AND id > 2000", "id BETWEEN 990 AND 1010 AND cat = 'c2'");

    @TempDir
    Path dir;
    final IndexInteropTest data = new IndexInteropTest();
    final BufferAllocator alloc = new RootAllocator();

    @AfterEach
    void closeAllocators() {
        data.closeAllocator();
        alloc.close();
    }

    String create(String name) {
        data.dir = dir.resolve(name);
        return data.create();
    }

    Map<String, Long> lanceRowsIndexed(String uri) {
        Map<String, Long> out = new TreeMap<>();
        try (org.lance.Dataset lance = org.lance.Dataset.open(uri, alloc)) {
            for (IndexDescription d : lance.describeIndices()) {
                out.put(d.getName() + ":" + d.getIndexType(), d.getRowsIndexed());
            }
            for (String name : List.of("id_idx", "cat_idx")) {
                assertThat(lance.getIndexStatistics(name)).as(name).isNotEmpty();
            }
        }
        return out;
    }

    @Test
    void javelinRemappedAndOptimizedIndexesAreUsedByLance() throws Exception {
        String uri = create("ours");
        try (Dataset v1 = Dataset.open(uri).block();
             Dataset v2 = v1.createIndex(List.of("id"), IndexKind.BTREE, IndexParams.defaults()).block();
             Dataset v3 = v2.createIndex(List.of("cat"), IndexKind.BITMAP, IndexParams.defaults()).block();
             Dataset v4 = v3.delete("id % 5 = 2").block();
             Dataset v5 = v4.compact(CompactionOptions.defaults().withTargetRowsPerFragment(10_000)).block().dataset()) {
            long live = v5.count().block();
            assertThat(v5.fragments()).hasSize(1);
            assertThat(v5.listIndexes()).allSatisfy(i -> assertThat(i.fragments().getCardinality()).isEqualTo(1));
            assertThat(lanceRowsIndexed(uri)).isEqualTo(Map.of("id_idx:BTree", live, "cat_idx:Bitmap", live));
            for (String f : FILTERS) {
                assertThat(data.lanceIds(uri, f)).as("after remap: " + f).isEqualTo(IndexInteropTest.ourIds(v5, f, alloc));
            }
            try (Dataset v6 = v5.append(data.rows(3000, 500, 500), IndexInteropTest.SCHEMA).block();
                 Dataset v7 = v6.optimizeIndexes(null).block()) {
                long all = v7.count().block();
                assertThat(v7.listIndexes()).hasSize(2).allSatisfy(i -> assertThat(i.fragments().getCardinality()).isEqualTo(2));
                assertThat(lanceRowsIndexed(uri)).isEqualTo(Map.of("id_idx:BTree", all, "cat_idx:Bitmap", all));
                for (String f : FILTERS) {
                    assertThat(data.lanceIds(uri, f)).as("after optimize: " + f).isEqualTo(IndexInteropTest.ourIds(v7, f, alloc));
                }
            }
        }
    }

    @Test
    void lanceCompactedIndexesAreUsedByJavelin() throws Exception {
        String uri = create("lance");
        try (org.lance.Dataset lance = org.lance.Dataset.open(uri, alloc)) {
            lance.createIndex(List.of("id"), IndexType.BTREE, Optional.of("id_idx"), org.lance.index.IndexParams.builder()
                    .setScalarIndexParams(ScalarIndexParams.create("btree")).build(), true);
            lance.createIndex(List.of("cat"), IndexType.BITMAP, Optional.of("cat_idx"), org.lance.index.IndexParams.builder()
                    .setScalarIndexParams(ScalarIndexParams.create("bitmap")).build(), true);
            lance.delete("id % 5 = 2");
            lance.compact();
        }
        try (Dataset ours = Dataset.open(uri).block()) {
            System.out.println("[maintenance-interop] after lance-core compaction: fragments " + ours.fragments().size() + ", indexes "
                    + ours.listIndexes().stream().map(IndexInfo::toString).toList());
            for (String f : FILTERS) {
                assertThat(IndexInteropTest.ourIds(ours, f, alloc)).as(f).isEqualTo(data.lanceIds(uri, f));
            }
        }
    }
}
