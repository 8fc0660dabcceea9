package io.javelin.engine.index;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.engine.Dataset;
import io.javelin.engine.WriteMode;
import io.javelin.engine.WriteParams;
import io.javelin.engine.maintenance.CompactionOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * ZoneMap and Bloom filter indexes through the planner (prune fragments, results equal a full scan, with
 * appends and deletions), scalar indexes on stable-row-id datasets (used, through compaction), and corrupt
 * zone index files falling back to a scan.
 */
class ZoneIndexesAndStableIdsTest {

    BufferAllocator alloc;
    @TempDir
    Path dir;

    @BeforeEach
    void open() {
        alloc = new RootAllocator();
    }

    @AfterEach
    void close() {
        alloc.close();
    }

    Dataset create(String name, int rows, boolean stable) {
        return Dataset.write(dir.resolve(name).toString(), IndexTestData.rows(alloc, 0, rows, 500), IndexTestData.schema(),
                WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(1000).withEnableStableRowIds(stable)).block();
    }

    /** id, cat, num only (compaction of the fixed_size_list column is covered elsewhere). */
    Dataset createScalar(String name, int rows, boolean stable) {
        org.apache.arrow.vector.types.pojo.Schema schema = new org.apache.arrow.vector.types.pojo.Schema(
                IndexTestData.schema().getFields().subList(0, 3));
        return Dataset.write(dir.resolve(name).toString(), IndexTestData.rows(alloc, 0, rows, 500).map(root -> {
            try (root) {
                List<org.apache.arrow.vector.FieldVector> vs = new java.util.ArrayList<>();
                for (String c : List.of("id", "cat", "num")) {
                    org.apache.arrow.vector.util.TransferPair tp = root.getVector(c).getTransferPair(alloc);
                    tp.transfer();
                    vs.add((org.apache.arrow.vector.FieldVector) tp.getTo());
                }
                return new org.apache.arrow.vector.VectorSchemaRoot(vs);
            }
        }), schema, WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(1000).withEnableStableRowIds(stable)).block();
    }

    void property(Dataset ds, int cases, long seed) {
        Random r = new Random(seed);
        for (int c = 0; c < cases; c++) {
            String f = IndexLifecycleTest.randomPredicate(r, 2);
            long[] indexed = IndexLifecycleTest.ids(ds.scanner().filter(f), alloc);
            long[] scanned = IndexLifecycleTest.ids(ds.scanner().filter(f).pushdown(false), alloc);
            assertThat(indexed).as(f).containsExactly(scanned);
        }
    }

    /** count(filter) from exact indexes (masking deletions) equals a scan's count; other filters scan. */
    void counts(Dataset ds) {
        for (String f : List.of("id < 100", "id < 100 AND cat = 'c1'", "cat IS NULL OR id IN (4, 5, 6, 2999)", "id BETWEEN 500 AND 1500",
                "cat = 'nope'")) {
            long before = IndexCount.INDEX_COUNTS.get();
            long scanned = IndexLifecycleTest.ids(ds.scanner().filter(f).pushdown(false), alloc).length;
            assertThat(ds.count(f).block()).as(f).isEqualTo(scanned);
            assertThat(IndexCount.INDEX_COUNTS.get()).as(f + " answered from the index").isEqualTo(before + 1);
        }
        long before = IndexCount.INDEX_COUNTS.get();
        assertThat(ds.count("id < 100 AND num > 0").block()).isEqualTo(IndexLifecycleTest.ids(ds.scanner().filter("id < 100 AND num > 0")
                .pushdown(false), alloc).length);
        assertThat(IndexCount.INDEX_COUNTS.get()).as("num is not indexed: scanned").isEqualTo(before);
    }

    @Test
    void zoneMapAndBloomFilterAreBuiltAndPruneFragments() {
        try (Dataset v1 = create("z.lance", 4000, false);
             Dataset v2 = v1.createIndex(List.of("id"), IndexKind.ZONEMAP, IndexParams.defaults()).block();
             Dataset v3 = v2.createIndex(List.of("cat"), IndexKind.BLOOM_FILTER, IndexParams.defaults()).block();
             Dataset v4 = v3.createIndex(List.of("num"), IndexKind.parse("zone_map"), IndexParams.defaults()).block()) {
            List<IndexInfo> idx = v4.listIndexes();
            assertThat(idx).extracting(IndexInfo::indexType).containsExactly("ZoneMap", "BloomFilter", "ZoneMap");
            assertThat(idx.get(0).metadata().getIndexDetails().getTypeUrl()).isEqualTo("/lance.table.ZoneMapIndexDetails");
            assertThat(idx.get(1).metadata().getIndexDetails().getTypeUrl()).isEqualTo("/lance.index.pb.BloomFilterIndexDetails");
            assertThat(idx.get(0).metadata().getFiles(0).getPath()).isEqualTo("zonemap.lance");
            assertThat(idx.get(1).metadata().getFiles(0).getPath()).isEqualTo("bloomfilter.lance");

            long before = ScalarIndexScan.INDEXED_SCANS.get();
            assertThat(IndexLifecycleTest.ids(v4.scanner().filter("id = 1234"), alloc)).containsExactly(1234);
            assertThat(ScalarIndexScan.INDEXED_SCANS.get()).isGreaterThan(before);
            // the zone map prunes: only fragment 1 holds ids 1000..1999
            Candidate c = candidates(v4, "id = 1234");
            assertThat(c.fragmentsWithRows()).containsExactly(1);
            // a value in no fragment: the bloom filter prunes every zone
            assertThat(candidates(v4, "cat = 'zzz'").fragmentsWithRows()).isEmpty();
            assertThat(IndexLifecycleTest.ids(v4.scanner().filter("cat = 'zzz'"), alloc)).isEmpty();
            property(v4, 60, 11);

            try (Dataset v5 = v4.append(IndexTestData.rows(alloc, 4000, 1000, 1000), IndexTestData.schema()).block();
                 Dataset v6 = v5.delete("id IN (10, 11, 3000, 4500) OR id % 97 = 0").block()) {
                assertThat(IndexLifecycleTest.ids(v6.scanner().filter("id >= 4495 AND id <= 4502"), alloc))
                        .containsExactly(4495, 4496, 4497, 4498, 4499, 4501, 4502);
                property(v6, 60, 12);
                // an index built after deletions: zones span offsets, never shifted by the deleted rows
                try (Dataset v7 = v6.createIndex(List.of("id"), IndexKind.ZONEMAP, IndexParams.defaults().withName("id2").withReplace(true))
                        .block()) {
                    property(v7, 40, 13);
                }
            }
        }
    }

    record Candidate(java.util.Set<Integer> fragmentsWithRows) {
    }

    static Candidate candidates(Dataset ds, String filter) {
        var opt = ScalarIndexScan.candidates(ds, IndexCatalog.usable(ds).stream().filter(IndexInfo::isScalarLookup).toList(),
                io.javelin.engine.filter.FilterParser.parse(filter)).block();
        assertThat(opt).isPresent();
        java.util.Set<Integer> frags = new java.util.TreeSet<>();
        for (FragmentRows fr : FragmentRows.of(opt.get().rows(), ds)) {
            if (fr.nonEmpty()) {
                frags.add(fr.fragment());
            }
        }
        return new Candidate(frags);
    }

    record FragmentRows(int fragment, boolean nonEmpty) {
        static List<FragmentRows> of(io.javelin.index.rowid.RowAddrTreeMap rows, Dataset ds) {
            return ds.fragments().stream().map(f -> {
                io.javelin.index.rowid.RowAddrTreeMap one = new io.javelin.index.rowid.RowAddrTreeMap();
                one.addFullFragment((int) f.id());
                return new FragmentRows((int) f.id(), !io.javelin.index.rowid.RowAddrTreeMap.and(rows, one).isEmpty());
            }).toList();
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void scalarIndexesOnStableRowIdsAreUsedThroughCompaction(boolean stable) {
        String uri = dir.resolve("s.lance").toString();
        try (Dataset v1 = createScalar("s.lance", 3000, stable);
             Dataset v2 = v1.createIndex(List.of("id"), IndexKind.BTREE, IndexParams.defaults()).block();
             Dataset v3 = v2.createIndex(List.of("cat"), IndexKind.BITMAP, IndexParams.defaults()).block();
             Dataset v4 = v3.delete("id % 4 = 0").block()) {
            assertThat(v4.hasStableRowIds()).isEqualTo(stable);
            long before = ScalarIndexScan.INDEXED_SCANS.get();
            assertThat(IndexLifecycleTest.ids(v4.scanner().filter("id = 1234 OR id = 1236"), alloc)).containsExactly(1234);
            assertThat(ScalarIndexScan.INDEXED_SCANS.get()).isGreaterThan(before);
            property(v4, 40, 21);
            counts(v4);
            try (Dataset v5 = v4.compact(CompactionOptions.defaults().withTargetRowsPerFragment(5000)).block().dataset()) {
                assertThat(v5.fragments()).hasSize(1);
                property(v5, 40, 22);
                counts(v5);
                // stable row ids: the index stays valid; addresses: BTree and Bitmap were remapped to new segments
                long newFragment = v5.fragments().get(0).id();
                assertThat(v5.listIndexes()).hasSize(2).allSatisfy(i -> assertThat(i.fragments().toArray()).containsExactly((int) newFragment));
                if (!stable) {
                    assertThat(v5.listIndexes()).extracting(IndexInfo::uuid).doesNotContainAnyElementsOf(
                            v4.listIndexes().stream().map(IndexInfo::uuid).toList());
                    assertThat(v5.listIndexes().get(0).metadata().getFilesCount()).isEqualTo(2);
                }
                long used = ScalarIndexScan.INDEXED_SCANS.get();
                assertThat(IndexLifecycleTest.ids(v5.scanner().filter("id = 1234 OR id = 1236 OR cat = 'zz'"), alloc)).containsExactly(1234);
                assertThat(ScalarIndexScan.INDEXED_SCANS.get()).isGreaterThan(used);
                // _rowid through the indexed plan is the stable id
                try (Dataset reopened = Dataset.open(uri).block()) {
                    property(reopened, 20, 23);
                }
            }
        }
    }

    @Test
    void optimizeFoldsAppendedFragmentsIntoOneSegment() {
        String uri = dir.resolve("o.lance").toString();
        try (Dataset v1 = create("o.lance", 2000, false);
             Dataset v2 = v1.createIndex(List.of("id"), IndexKind.BTREE, IndexParams.defaults()).block();
             Dataset v3 = v2.createIndex(List.of("cat"), IndexKind.BITMAP, IndexParams.defaults()).block();
             Dataset v4 = v3.createIndex(List.of("num"), IndexKind.ZONEMAP, IndexParams.defaults()).block();
             Dataset v5 = v4.append(IndexTestData.rows(alloc, 2000, 1500, 500), IndexTestData.schema()).block();
             Dataset v6 = v5.delete("id % 5 = 1").block()) {
            assertThat(v6.listIndexes()).allSatisfy(i -> assertThat(i.fragments().toArray()).containsExactly(0, 1));
            try (Dataset v7 = v6.optimizeIndexes(List.of("id_idx")).block()) {
                assertThat(v7.version()).isEqualTo(v6.version() + 1);
                int[] all = v7.fragments().stream().mapToInt(f -> (int) f.id()).toArray();
                assertThat(all).hasSizeGreaterThan(2);
                assertThat(v7.listIndexes()).filteredOn(i -> i.name().equals("id_idx")).singleElement()
                        .satisfies(i -> assertThat(i.fragments().toArray()).containsExactly(all));
                assertThat(v7.listIndexes()).filteredOn(i -> i.name().equals("cat_idx")).singleElement()
                        .satisfies(i -> assertThat(i.fragments().toArray()).containsExactly(0, 1));
            }
            // the CLI form optimizes the rest
            var out = new java.io.StringWriter();
            var cli = io.javelin.cli.JavelinCli.commandLine();
            cli.setOut(new java.io.PrintWriter(out));
            assertThat(cli.execute("index", "optimize", uri)).isZero();
            assertThat(out.toString()).contains("optimized all scalar indexes");
            try (Dataset v8 = Dataset.open(uri).block()) {
                int[] all = v8.fragments().stream().mapToInt(f -> (int) f.id()).toArray();
                assertThat(v8.listIndexes()).hasSize(3).allSatisfy(i -> assertThat(i.fragments().toArray()).containsExactly(all));
                long before = ScalarIndexScan.INDEXED_SCANS.get();
                assertThat(IndexLifecycleTest.ids(v8.scanner().filter("id = 3333 OR id = 3331"), alloc)).containsExactly(3333);
                assertThat(ScalarIndexScan.INDEXED_SCANS.get()).isGreaterThan(before);
                property(v8, 40, 41);
                // nothing left to fold in: the same version
                try (Dataset same = v8.optimizeIndexes(null).block()) {
                    assertThat(same.version()).isEqualTo(v8.version());
                }
            }
        }
    }

    @Test
    void corruptZoneIndexFilesFallBackToScanning() throws Exception {
        String uri = dir.resolve("c.lance").toString();
        try (Dataset v1 = create("c.lance", 3000, false);
             Dataset v2 = v1.createIndex(List.of("id"), IndexKind.ZONEMAP, IndexParams.defaults()).block();
             Dataset v3 = v2.createIndex(List.of("cat"), IndexKind.BLOOM_FILTER, IndexParams.defaults()).block()) {
            for (IndexInfo i : v3.listIndexes()) {
                Path file = Path.of(uri, "_indices", i.uuid().toString(), i.metadata().getFiles(0).getPath());
                byte[] bytes = Files.readAllBytes(file);
                for (int k = 0; k < bytes.length; k += 7) {
                    bytes[k] ^= 0x5A;
                }
                Files.write(file, bytes);
            }
        }
        try (Dataset ds = Dataset.open(uri).block()) {
            property(ds, 30, 31);
            assertThat(IndexLifecycleTest.ids(ds.scanner().filter("id = 17 OR cat = 'c1' AND id < 8"), alloc)).containsExactly(1, 7, 17);
        }
    }
}
