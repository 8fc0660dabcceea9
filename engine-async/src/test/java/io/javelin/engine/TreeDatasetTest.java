package io.javelin.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Tree tables (spec 000) end to end through Dataset and Scanner, against a flat table with the same history. */
class TreeDatasetTest {

    static final Map<String, String> TREE = Map.of("lance.manifest.layout", "tree",
            "lance.fragment_metadata.max_leaf_bytes", "1500", "lance.fragment_metadata.inline_manifest_budget", "0",
            "lance.fragment_metadata.publication_suffix_budget", "600", "lance.fragment_metadata.semantic_buffer_bytes", "500",
            "javelin.fragment_metadata.max_children_per_node", "3");

    final BufferAllocator alloc = new RootAllocator();
    final List<Dataset> open = new ArrayList<>();

    @TempDir
    Path tmp;

    @AfterEach
    void close() {
        open.forEach(Dataset::close);
        alloc.close();
    }

    Dataset keep(Dataset d) {
        open.add(d);
        return d;
    }

    static WriteParams params(Map<String, String> config) {
        return WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(40).withTableConfig(config);
    }

    /** create (3 fragments), 8 appends of 1-2 fragments, 2 deletes; returns the latest version. */
    Dataset history(String uri, Map<String, String> config) {
        Dataset ds = keep(Dataset.write(uri, DatasetTestSupport.rows(alloc, 0, 120, 50), DatasetTestSupport.schema(),
                params(config)).block());
        long next = 120;
        for (int i = 0; i < 8; i++) {
            int n = 30 + 20 * (i % 3);
            ds = keep(ds.append(DatasetTestSupport.rows(alloc, next, n, 25), DatasetTestSupport.schema()).block());
            next += n;
            if (i == 3) {
                ds = keep(ds.delete("id % 7 = 3").block());
            }
            if (i == 6) {
                ds = keep(ds.delete("id >= 40 AND id < 80").block());
            }
        }
        return ds;
    }

    List<List<String>> scan(Dataset ds) {
        return DatasetTestSupport.collect(ds.scanner().withRowAddress(true).scan(alloc));
    }

    @Test
    void treeTableScansLikeAFlatTableAtEveryVersion() {
        Dataset flat = history(tmp.resolve("flat").toString(), Map.of());
        Dataset tree = history(tmp.resolve("tree").toString(), TREE);
        assertThat(tree.isTreeLayout()).isTrue();
        assertThat(flat.isTreeLayout()).isFalse();
        assertThat(tree.version()).isEqualTo(flat.version());
        for (long v = 1; v <= tree.version(); v++) {
            Dataset t = keep(Dataset.open(tree.uri(), Map.of(), v).block());
            Dataset f = keep(Dataset.open(flat.uri(), Map.of(), v).block());
            assertThat(t.isTreeLayout()).isTrue();
            assertThat(t.count().block()).as("count v%d", v).isEqualTo(f.count().block());
            assertThat(scan(t)).as("scan v%d", v).isEqualTo(scan(f));
            assertThat(t.count("id % 2 = 0").block()).isEqualTo(f.count("id % 2 = 0").block());
            // data file names are random per table: compare ids and counts
            assertThat(t.loadFragments().block().stream().map(x -> List.of(x.id(), x.physicalRows(), x.deletedRows())).toList())
                    .isEqualTo(f.loadFragments().block().stream().map(x -> List.of(x.id(), x.physicalRows(), x.deletedRows()))
                            .toList());
        }
        try (VectorSchemaRoot a = tree.take(new long[] {0, 5, 200}, List.of("id", "name"), alloc).block();
             VectorSchemaRoot b = flat.take(new long[] {0, 5, 200}, List.of("id", "name"), alloc).block()) {
            assertThat(DatasetTestSupport.rowsOf(a)).isEqualTo(DatasetTestSupport.rowsOf(b));
        }
        assertThat(tree.versions().block()).extracting(VersionInfo::rows)
                .isEqualTo(flat.versions().block().stream().map(VersionInfo::rows).toList());
        assertThat(tree.versions().block()).extracting(VersionInfo::fragments)
                .isEqualTo(flat.versions().block().stream().map(VersionInfo::fragments).toList());
    }

    @Test
    void openingIsLazyUntilFragmentsAreNeeded() {
        Dataset tree = history(tmp.resolve("lazy").toString(), TREE);
        Dataset reopened = keep(Dataset.open(tree.uri()).block());
        assertThat(reopened.snapshot().catalog().loaded()).isEmpty();
        assertThat(reopened.count().block()).isEqualTo(tree.count().block()); // from the root summaries
        assertThat(reopened.snapshot().catalog().loaded()).isEmpty();
        assertThatThrownBy(reopened::fragments).isInstanceOf(IllegalStateException.class);
        assertThat(reopened.scanner().count().block()).isEqualTo(tree.count().block());
        assertThat(reopened.fragments()).isNotEmpty(); // listed once by the scan
    }

    @Test
    void flatTableConvertsInPlaceAndEveryOldVersionStaysReadable() {
        Dataset flat = history(tmp.resolve("conv").toString(), Map.of());
        List<List<List<String>>> before = new ArrayList<>();
        for (long v = 1; v <= flat.version(); v++) {
            before.add(scan(keep(Dataset.open(flat.uri(), Map.of(), v).block())));
        }
        Dataset converted = keep(flat.convertToTree().block());
        assertThat(converted.version()).isEqualTo(flat.version() + 1);
        assertThat(converted.isTreeLayout()).isTrue();
        assertThat(scan(keep(Dataset.open(flat.uri()).block()))).isEqualTo(before.getLast());
        for (long v = 1; v <= flat.version(); v++) {
            Dataset old = keep(Dataset.open(flat.uri(), Map.of(), v).block());
            assertThat(old.isTreeLayout()).isFalse();
            assertThat(scan(old)).isEqualTo(before.get((int) v - 1));
        }
        Dataset appended = keep(converted.append(DatasetTestSupport.rows(alloc, 10_000, 30, 30),
                DatasetTestSupport.schema()).block());
        assertThat(appended.count().block()).isEqualTo(converted.count().block() + 30);
        Dataset deleted = keep(appended.delete("id >= 10000").block());
        assertThat(scan(deleted)).isEqualTo(before.getLast());
    }

    @Test
    void cleanupOfATreeTableKeepsEveryFileTheRetainedVersionsNeed() {
        Dataset flat = history(tmp.resolve("flat-c").toString(), Map.of());
        Dataset tree = history(tmp.resolve("tree-c").toString(), TREE);
        List<List<String>> before = scan(tree);
        // every version but the latest is old; unverified files too: only reachability protects the data
        var stats = tree.cleanupOldVersions(java.time.Instant.now().plusSeconds(5), true).block();
        assertThat(stats.oldVersions()).isEqualTo(tree.version() - 1);
        Dataset latest = keep(Dataset.open(tree.uri()).block());
        assertThat(scan(latest)).isEqualTo(before).isEqualTo(scan(flat));
        assertThat(latest.count().block()).isEqualTo(flat.count().block());
        // and the table keeps committing after the cleanup
        Dataset next = keep(latest.append(DatasetTestSupport.rows(alloc, 10_000, 30, 30), DatasetTestSupport.schema()).block());
        assertThat(next.count().block()).isEqualTo(flat.count().block() + 30);
    }

    /** The operations of the other issues (evolution, update, merge-insert, compaction, indexes) on a tree table. */
    @Test
    void everyTableOperationWorksOnATreeTableAsOnAFlatOne() {
        Dataset flat = history(tmp.resolve("flat-ops").toString(), Map.of());
        Dataset tree = history(tmp.resolve("tree-ops").toString(), TREE);
        for (int i = 0; i < 2; i++) {
            Dataset[] ds = {i == 0 ? flat : tree};
            ds[0] = keep(ds[0].addColumns(Map.of("id2", "id * 2")).block());
            ds[0] = keep(ds[0].update("id % 5 = 0", Map.of("name", "'five'")).block().dataset());
            ds[0] = keep(ds[0].mergeInsert(List.of("id")).whenMatchedUpdateAll().whenNotMatchedInsertAll()
                    .execute(ds[0].scanner().filter("id < 10").scan(alloc)).block().dataset());
            ds[0] = keep(ds[0].compact(io.javelin.engine.maintenance.CompactionOptions.defaults()).block().dataset());
            ds[0] = keep(ds[0].dropColumns(List.of("score")).block());
            ds[0] = keep(ds[0].createIndex(List.of("id"), io.javelin.engine.index.IndexKind.BTREE,
                    io.javelin.engine.index.IndexParams.defaults()).block());
            if (i == 0) {
                flat = ds[0];
            } else {
                tree = ds[0];
            }
        }
        assertThat(tree.isTreeLayout()).isTrue();
        assertThat(sorted(tree, "id > 100 OR name = 'five'")).isEqualTo(sorted(flat, "id > 100 OR name = 'five'"));
        assertThat(sorted(tree, null)).isEqualTo(sorted(flat, null)).isNotEmpty();
        Dataset reopened = keep(Dataset.open(tree.uri()).block());
        assertThat(reopened.count().block()).isEqualTo(flat.count().block());
    }

    List<String> sorted(Dataset ds, String filter) {
        var s = ds.scanner().columns("id", "name", "id2");
        if (filter != null) {
            s = s.filter(filter);
        }
        return DatasetTestSupport.collect(s.scan(alloc)).stream().map(Object::toString).sorted().toList();
    }
}
