package io.javelin.engine;

import static io.javelin.engine.DatasetTestSupport.collect;
import static io.javelin.engine.DatasetTestSupport.rows;
import static io.javelin.engine.DatasetTestSupport.schema;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.javelin.engine.maintenance.CleanupStats;
import io.javelin.engine.maintenance.CompactionOptions;
import io.javelin.engine.maintenance.CompactionResult;
import io.javelin.tx.maintenance.CleanupPolicy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Compaction, stable row ids, cleanup and restore through the public Dataset API. */
class MaintenanceTest {

    @TempDir
    Path dir;

    final BufferAllocator alloc = new RootAllocator();

    @AfterEach
    void closeAllocator() {
        alloc.close();
    }

    private Dataset smallFragments(String uri, boolean stable) {
        // 5 fragments of 200 rows, then a delete of every 4th row
        try (Dataset v1 = Dataset.write(uri, rows(alloc, 0, 1000, 100), schema(), WriteParams.of(WriteMode.CREATE)
                .withMaxRowsPerFile(200).withEnableStableRowIds(stable)).block()) {
            return v1.delete("id % 4 = 0").block();
        }
    }

    private List<Long> rowIds(Dataset ds) {
        List<Long> out = new ArrayList<>();
        for (List<String> r : collect(ds.scanner().columns("id").withRowId(true).scan(alloc))) {
            out.add(Long.parseLong(r.get(1)));
        }
        return out;
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void compactionRewritesSmallFragmentsAndKeepsRows(boolean stable) {
        String uri = dir.resolve("c.lance").toString();
        try (Dataset v2 = smallFragments(uri, stable)) {
            assertThat(v2.fragments()).hasSize(5);
            assertThat(v2.hasStableRowIds()).isEqualTo(stable);
            List<List<String>> before = collect(v2.scanner().scan(alloc));
            List<Long> idsBefore = rowIds(v2);
            CompactionResult r = v2.compact(CompactionOptions.defaults().withTargetRowsPerFragment(400)).block();
            try (Dataset v3 = r.dataset()) {
                assertThat(v3.version()).isEqualTo(3);
                assertThat(r.metrics().fragmentsRemoved()).isEqualTo(5);
                assertThat(v3.fragments()).hasSize(r.metrics().fragmentsAdded()).allMatch(f -> f.deletedRows() == 0);
                assertThat(v3.fragments().get(0).id()).isGreaterThan(4); // fresh ids from the high-water mark
                assertThat(collect(v3.scanner().scan(alloc))).isEqualTo(before);
                List<Long> idsAfter = rowIds(v3);
                if (stable) {
                    assertThat(idsAfter).isEqualTo(idsBefore); // stable ids survive the rewrite
                    long[] some = {idsBefore.get(7), idsBefore.get(500)};
                    try (VectorSchemaRoot t = v3.takeRowIds(some, List.of("id"), alloc).block()) {
                        assertThat(t.getVector("id").getObject(0)).isEqualTo(Long.parseLong(before.get(7).get(0)));
                        assertThat(t.getVector("id").getObject(1)).isEqualTo(Long.parseLong(before.get(500).get(0)));
                    }
                    assertThat(v3.snapshot().manifestFile().manifest().getNextRowId()).isEqualTo(1000);
                } else {
                    assertThat(idsAfter.get(0) >>> 32).isEqualTo(v3.fragments().get(0).id());
                }
                // nothing left to do: same version back
                CompactionResult again = v3.compact(CompactionOptions.defaults().withTargetRowsPerFragment(400)).block();
                try (Dataset same = again.dataset()) {
                    assertThat(same.version()).isEqualTo(3);
                }
                // appends on a stable dataset continue next_row_id
                try (Dataset v4 = v3.append(rows(alloc, 1000, 10, 10), schema()).block()) {
                    if (stable) {
                        assertThat(rowIds(v4).subList(idsAfter.size(), idsAfter.size() + 10)).containsExactly(
                                1000L, 1001L, 1002L, 1003L, 1004L, 1005L, 1006L, 1007L, 1008L, 1009L);
                    }
                }
            }
        }
    }

    @Test
    void compactionLosesToAConcurrentDeleteOfARewrittenFragmentButNotToAnAppend() {
        String uri = dir.resolve("race.lance").toString();
        try (Dataset v2 = smallFragments(uri, false);
             Dataset v3 = v2.append(rows(alloc, 1000, 50, 50), schema()).block()) {
            // compaction read at v2 commits on top of an append: fine, the appended fragment stays
            CompactionResult r = v2.compact(CompactionOptions.defaults().withTargetRowsPerFragment(10_000)).block();
            try (Dataset v4 = r.dataset()) {
                assertThat(v4.count().block()).isEqualTo(750 + 50);
                try (Dataset v5 = v4.delete("id = 1001").block()) {
                    assertThat(v5.count().block()).isEqualTo(799);
                }
            }
            try (Dataset latest = v3.checkoutLatest().block()) {
                // a delete read before the compaction touches a fragment that no longer exists
                try (Dataset old = latest.checkout(3).block()) {
                    assertThatThrownBy(() -> old.delete("id = 1").block()).isInstanceOf(DatasetException.class)
                            .hasMessageContaining("REWRITE")
                            .hasRootCauseInstanceOf(io.javelin.tx.RetryableCommitConflictException.class);
                }
            }
        }
    }

    private static List<String> files(Path root, String sub) throws Exception {
        Path p = root.resolve(sub);
        if (!Files.exists(p)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(p)) {
            return s.map(x -> x.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void cleanupRemovesOldVersionsAndTheFilesOnlyTheyUsed() throws Exception {
        Path root = dir.resolve("clean.lance");
        try (Dataset v2 = smallFragments(root.toString(), false)) {
            CompactionResult r = v2.compact(CompactionOptions.defaults().withTargetRowsPerFragment(10_000)).block();
            try (Dataset v3 = r.dataset();
                 Dataset v4 = v3.delete("id = 1").block()) {
                assertThat(files(root, "data")).hasSize(6);
                CleanupStats s = v4.cleanupOldVersions(Instant.now().plusSeconds(1), true).block();
                assertThat(s.oldVersions()).isEqualTo(3);
                assertThat(s.dataFilesRemoved()).isEqualTo(5);      // v1's small files, replaced by compaction
                assertThat(s.deletionFilesRemoved()).isEqualTo(5);  // v2's, gone with the compacted fragments
                assertThat(s.transactionFilesRemoved()).isEqualTo(3);
                assertThat(s.bytesRemoved()).isPositive();
                assertThat(files(root, "data")).hasSize(1);
                assertThat(files(root, "_deletions")).hasSize(1);
                assertThat(files(root, "_versions")).filteredOn(n -> n.endsWith(".manifest")).hasSize(1);
                try (Dataset latest = v4.checkoutLatest().block()) {
                    assertThat(collect(latest.scanner().scan(alloc))).hasSize(749);
                    assertThat(latest.versions().block()).extracting(VersionInfo::version).containsExactly(4L);
                }
            }
        }
    }

    @Test
    void cleanupKeepsTaggedVersionsReadable() throws Exception {
        Path root = dir.resolve("tagged.lance");
        try (Dataset v2 = smallFragments(root.toString(), false)) {
            v2.createTag("keep", 1).block();
            CompactionResult r = v2.compact(CompactionOptions.defaults().withTargetRowsPerFragment(10_000)).block();
            try (Dataset v3 = r.dataset(); Dataset v4 = v3.delete("id = 1").block()) {
                CleanupStats s = v4.cleanupOldVersions(Instant.now().plusSeconds(1), true).block();
                assertThat(s.oldVersions()).isEqualTo(2); // v2, v3; v1 is tagged, v4 is the latest
                assertThat(s.dataFilesRemoved()).isZero(); // v1 still uses the small files
                try (Dataset tagged = v4.checkout("keep").block(); Dataset latest = v4.checkoutLatest().block()) {
                    assertThat(collect(tagged.scanner().scan(alloc))).hasSize(1000);
                    assertThat(collect(latest.scanner().scan(alloc))).hasSize(749);
                    assertThat(latest.versions().block()).extracting(VersionInfo::version).containsExactly(1L, 4L);
                }
                assertThatThrownBy(() -> v4.cleanupOldVersions(CleanupPolicy.beforeVersion(4).withErrorIfTaggedOldVersions(true)).block())
                        .isInstanceOf(DatasetException.class).hasMessageContaining("tagged");
            }
        }
    }

    @Test
    void cleanupLeavesYoungUnreferencedFilesAlone() throws Exception {
        Path root = dir.resolve("young.lance");
        try (Dataset v2 = smallFragments(root.toString(), false)) {
            Files.write(root.resolve("data").resolve("orphan-in-progress.lance"), new byte[] {1, 2, 3});
            CleanupStats s = v2.cleanupOldVersions(Instant.now().plusSeconds(1), false).block();
            assertThat(s.oldVersions()).isEqualTo(1);
            assertThat(files(root, "data")).contains("orphan-in-progress.lance");
        }
    }

    @Test
    void cleanupSweepsTemporaryFilesOfKilledLocalWrites() throws Exception {
        Path root = dir.resolve("temps.lance");
        try (Dataset v2 = smallFragments(root.toString(), false)) {
            Path data = root.resolve("data");
            Path stale = data.resolve(".javelin-tmp-0b1c-killed.lance");
            Path fresh = data.resolve(".javelin-tmp-9f8e-in-flight.lance");
            Files.write(stale, new byte[] {1, 2, 3});
            Files.write(fresh, new byte[] {4});
            Files.setLastModifiedTime(stale, java.nio.file.attribute.FileTime.from(Instant.now().minus(java.time.Duration.ofDays(8))));
            // without deleteUnverified only temporaries past the 7-day threshold go (a young one may be in flight)
            CleanupStats s = v2.cleanupOldVersions(Instant.now().plusSeconds(1), false).block();
            assertThat(s.temporaryFilesRemoved()).isEqualTo(1);
            assertThat(Files.exists(stale)).isFalse();
            assertThat(Files.exists(fresh)).isTrue();
            // the caller vouching that nothing is in flight: the young one goes too; the data stays readable
            CleanupStats s2 = v2.cleanupOldVersions(Instant.now().plusSeconds(1), true).block();
            assertThat(s2.temporaryFilesRemoved()).isEqualTo(1);
            assertThat(Files.exists(fresh)).isFalse();
            try (Dataset latest = v2.checkoutLatest().block()) {
                assertThat(latest.count().block()).isEqualTo(v2.count().block());
            }
        }
    }

    @Test
    void restoreMakesAnOldVersionTheNewest() {
        String uri = dir.resolve("restore.lance").toString();
        try (Dataset v2 = smallFragments(uri, true);
             Dataset v1 = v2.checkout(1).block();
             Dataset v3 = v1.restore().block()) {
            assertThat(v3.version()).isEqualTo(3);
            assertThat(v3.count().block()).isEqualTo(1000);
            assertThat(collect(v3.scanner().scan(alloc))).isEqualTo(collect(v1.scanner().scan(alloc)));
            assertThat(v3.snapshot().manifestFile().manifest().getMaxFragmentId()).isEqualTo(4);
            assertThat(v3.hasStableRowIds()).isTrue();
            try (Dataset v4 = v3.append(rows(alloc, 1000, 10, 10), schema()).block()) {
                assertThat(v4.fragments().getLast().id()).isEqualTo(5);
                assertThat(v4.count().block()).isEqualTo(1010);
            }
        }
    }

    @Test
    void updateKeepsStableRowIdsOfTheRowsItRewrites() {
        String uri = dir.resolve("u.lance").toString();
        try (Dataset v2 = smallFragments(uri, true)) {
            Map<Long, Long> before = idToRowId(v2);
            UpdateResult r = v2.update("id % 10 = 1", Map.of("name", "'updated'")).block();
            try (Dataset v3 = r.dataset()) {
                assertThat(r.rowsUpdated()).isEqualTo(100);
                Map<Long, Long> after = idToRowId(v3);
                assertThat(after).isEqualTo(before); // every row, moved or not, keeps its id
                assertThat(v3.count("name = 'updated'").block()).isEqualTo(100);
                // the row ids still resolve to the right rows
                long someId = after.get(21L);
                try (var root = v3.takeRowIds(new long[] {someId}, java.util.List.of("id", "name"), alloc).block()) {
                    assertThat(root.getVector("id").getObject(0)).isEqualTo(21L);
                    assertThat(root.getVector("name").getObject(0).toString()).isEqualTo("updated");
                }
                // appends after the update get fresh ids
                try (Dataset v4 = v3.append(rows(alloc, 5000, 10, 10), schema()).block()) {
                    Map<Long, Long> withNew = idToRowId(v4);
                    assertThat(new java.util.HashSet<>(withNew.values())).hasSize(withNew.size());
                }
            }
        }
    }

    private Map<Long, Long> idToRowId(Dataset ds) {
        Map<Long, Long> out = new java.util.TreeMap<>();
        for (List<String> r : collect(ds.scanner().columns("id").withRowId(true).scan(alloc))) {
            out.put(Long.parseLong(r.get(0)), Long.parseLong(r.get(1)));
        }
        return out;
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void indexedFiltersStayCorrectAfterCompaction(boolean stable) {
        String uri = dir.resolve("ix" + stable + ".lance").toString();
        try (Dataset v2 = smallFragments(uri, stable);
             Dataset v3 = v2.createIndex(List.of("id"), io.javelin.engine.index.IndexKind.BTREE,
                     io.javelin.engine.index.IndexParams.defaults()).block();
             Dataset v4 = v3.compact(CompactionOptions.defaults().withTargetRowsPerFragment(400)).block().dataset();
             Dataset v5 = v4.delete("id = 333").block()) {
            for (String f : List.of("id = 5", "id >= 100 AND id < 150", "id IN (1, 333, 998, 4)", "id < 0")) {
                List<List<String>> indexed = collect(v5.scanner().columns("id", "name").filter(f).scan(alloc));
                List<List<String>> scanned = collect(v5.scanner().columns("id", "name").filter(f).pushdown(false).scan(alloc));
                assertThat(indexed).as(f).containsExactlyInAnyOrderElementsOf(scanned);
            }
            assertThat(collect(v5.scanner().columns("id").filter("id >= 100 AND id < 150").scan(alloc))).hasSize(37);
        }
    }
}
