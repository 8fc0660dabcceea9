package io.javelin.interop.index;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.engine.Dataset;
import io.javelin.engine.index.IndexInfo;
import io.javelin.engine.index.IndexKind;
import io.javelin.engine.index.IndexParams;
import io.javelin.index.LanceIndexFileSource;
import io.javelin.index.IndexReaders;
import io.javelin.index.scalar.ZoneMapIndex;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.index.IndexDescription;
import org.lance.index.IndexType;
import org.lance.index.scalar.ScalarIndexParams;
import org.lance.index.scalar.ZoneMapIndexParams;
import org.lance.index.scalar.ZoneStats;

/**
 * ZoneMap and Bloom filter indexes both ways with lance-core 7.0.0: built by Lance (also after deletions,
 * with small zones) they are opened and used by Javelin's planner with Lance's results; built by Javelin
 * they are listed by {@code describeIndices}, read by {@code getZonemapStats} with the zones we wrote,
 * and used by Lance's queries with identical results.
 */
class ZoneIndexInteropTest {

    static final List<String> FILTERS = List.of("id = 1234", "id >= 100 AND id < 120", "cat = 'c3'", "cat IS NULL", "num = 17",
            "num < -400 AND id > 2000", "id IN (5, 2999, 1500) OR cat = 'c1'", "num IS NULL AND id < 200", "cat IN ('c2', 'c4') AND num > 300");

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

    static org.lance.index.IndexParams scalar(ScalarIndexParams p) {
        return org.lance.index.IndexParams.builder().setScalarIndexParams(p).build();
    }

    @Test
    void lanceBuiltZoneMapAndBloomFilterAreUsedByJavelin() throws Exception {
        String uri = create("lance");
        try (org.lance.Dataset lance = org.lance.Dataset.open(uri, alloc)) {
            lance.delete("id % 7 = 3"); // zones are trained over live rows only
            lance.createIndex(List.of("id"), IndexType.ZONEMAP, Optional.of("id_zm"),
                    scalar(ZoneMapIndexParams.builder().rowsPerZone(256).build()), true);
            lance.createIndex(List.of("num"), IndexType.ZONEMAP, Optional.of("num_zm"), scalar(ScalarIndexParams.create("zonemap")), true);
            lance.createIndex(List.of("cat"), IndexType.BLOOM_FILTER, Optional.of("cat_bf"),
                    scalar(ScalarIndexParams.create("bloomfilter")), true);
        }
        List<ZoneStats> stats;
        try (org.lance.Dataset lance = org.lance.Dataset.open(uri, alloc)) {
            stats = lance.getZonemapStats("id");
        }
        try (Dataset ours = Dataset.open(uri).block()) {
            assertThat(ours.listIndexes()).extracting(IndexInfo::indexType).containsExactly("ZoneMap", "ZoneMap", "BloomFilter");
            // the zones as we read them are Lance's zones
            IndexInfo idZm = ours.listIndexes().get(0);
            try (LanceIndexFileSource src = LanceIndexFileSource.forSegment(ours.objectStore(), "", idZm.uuid(), alloc)) {
                ZoneMapIndex zm = IndexReaders.openZoneMap(src, "id_zm").block();
                assertThat(zm.zones()).hasSize(stats.size());
                List<String> lanceZones = new ArrayList<>();
                List<String> ourZones = new ArrayList<>();
                for (int i = 0; i < stats.size(); i++) {
                    ZoneStats s = stats.get(i);
                    ZoneMapIndex.Zone z = zm.zones().get(i);
                    lanceZones.add(s.getFragmentId() + ":" + s.getZoneStart() + "+" + s.getZoneLength() + "[" + s.getMin() + "," + s.getMax() + "]");
                    ourZones.add(z.fragmentId() + ":" + z.zoneStart() + "+" + z.zoneLength() + "[" + z.min() + "," + z.max() + "]");
                }
                assertThat(ourZones).isEqualTo(lanceZones);
                System.out.println("[zone-interop] lance-core zones after deleting id % 7 = 3, rows_per_zone 256: " + lanceZones.subList(0, 5));
            }
            for (String f : FILTERS) {
                assertThat(IndexInteropTest.ourIds(ours, f, alloc)).as(f).isEqualTo(data.lanceIds(uri, f));
            }
        }
    }

    @Test
    void javelinBuiltZoneMapAndBloomFilterAreUsedByLance() throws Exception {
        String uri = create("ours");
        try (Dataset v1 = Dataset.open(uri).block();
             Dataset v2 = v1.delete("id % 7 = 3").block();
             Dataset v3 = v2.createIndex(List.of("num"), IndexKind.ZONEMAP, IndexParams.defaults()).block();
             Dataset v4 = v3.createIndex(List.of("cat"), IndexKind.BLOOM_FILTER, IndexParams.defaults()).block();
             Dataset v5 = v4.createIndex(List.of("id"), IndexKind.BLOOM_FILTER, IndexParams.defaults()).block()) {
            long live = v5.count().block();
            try (org.lance.Dataset lance = org.lance.Dataset.open(uri, alloc)) {
                Map<String, String> types = new java.util.TreeMap<>();
                for (IndexDescription d : lance.describeIndices()) {
                    types.put(d.getName(), d.getIndexType());
                    assertThat(d.getRowsIndexed()).as(d.getName()).isEqualTo(live); // live rows of the covered fragments
                }
                System.out.println("[zone-interop] lance-core describeIndices on javelin-built: " + types + ", live rows " + live);
                assertThat(types).containsOnlyKeys("num_idx", "cat_idx", "id_idx");
                for (String name : List.of("num_idx", "cat_idx", "id_idx")) {
                    assertThat(lance.getIndexStatistics(name)).as(name).isNotEmpty();
                }
                List<ZoneStats> stats = lance.getZonemapStats("num");
                List<ZoneMapIndex.Zone> ours = new ArrayList<>();
                try (LanceIndexFileSource src = LanceIndexFileSource.forSegment(v5.objectStore(), "", v5.listIndexes().get(0).uuid(), alloc)) {
                    ours.addAll(IndexReaders.openZoneMap(src, "num_idx").block().zones());
                }
                assertThat(stats).hasSameSizeAs(ours);
                for (int i = 0; i < stats.size(); i++) {
                    assertThat(stats.get(i).getFragmentId()).isEqualTo((int) ours.get(i).fragmentId());
                    assertThat(stats.get(i).getZoneStart()).isEqualTo(ours.get(i).zoneStart());
                    assertThat(stats.get(i).getZoneLength()).isEqualTo(ours.get(i).zoneLength());
                    assertThat(((Number) stats.get(i).getMin()).longValue()).isEqualTo(((Number) ours.get(i).min()).longValue());
                    assertThat(stats.get(i).getNullCount()).isEqualTo(ours.get(i).nullCount());
                }
            }
            for (String f : FILTERS) {
                assertThat(data.lanceIds(uri, f)).as(f).isEqualTo(IndexInteropTest.ourIds(v5, f, alloc));
            }
        }
    }
}
