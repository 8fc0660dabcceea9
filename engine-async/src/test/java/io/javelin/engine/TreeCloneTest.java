package io.javelin.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Shallow clones and branches of tree tables (spec 000 copy-and-remap): the clone's root is its own,
 * source subtrees are shared through the BasePath naming the source root, both sides keep committing,
 * every historical version of both opens, and cleanup of the clone never deletes a source object.
 */
class TreeCloneTest {

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

    List<List<String>> scan(Dataset ds) {
        return DatasetTestSupport.collect(ds.scanner().columns("id", "name").scan(alloc));
    }

    /** A tree table with interiors, an external root, a suffix and buffered deletes (tiny policy budgets). */
    Dataset source(String name) {
        Dataset ds = keep(Dataset.write(tmp.resolve(name).toString(), DatasetTestSupport.rows(alloc, 0, 200, 50),
                DatasetTestSupport.schema(), TreeDatasetTest.params(TreeDatasetTest.TREE)).block());
        long next = 200;
        for (int i = 0; i < 4; i++) {
            ds = keep(ds.append(DatasetTestSupport.rows(alloc, next, 50, 25), DatasetTestSupport.schema()).block());
            next += 50;
            if (i % 2 == 1) {
                ds = keep(ds.delete("id % 9 = " + i).block());
            }
        }
        return ds;
    }

    static TreeSet<String> files(Path root) throws IOException {
        TreeSet<String> out = new TreeSet<>();
        try (Stream<Path> s = Files.walk(root)) {
            s.filter(Files::isRegularFile).forEach(p -> out.add(root.relativize(p).toString()));
        }
        return out;
    }

    @Test
    void aShallowCloneSharesTheSourceTreeAndBothSidesKeepCommitting() throws IOException {
        Dataset src = source("src");
        assertThat(src.isTreeLayout()).isTrue();
        List<List<String>> srcRows = scan(src);
        String cloneUri = tmp.resolve("clone").toString();
        Dataset clone = keep(src.shallowClone(cloneUri, Map.of()).block());
        assertThat(clone.isTreeLayout()).isTrue();
        assertThat(clone.count().block()).isEqualTo(src.count().block());
        assertThat(scan(clone)).isEqualTo(srcRows);
        // the clone wrote no tree object: its root is inline and every subtree is the source's
        assertThat(Files.exists(tmp.resolve("clone").resolve("_bt"))).isFalse();
        assertThat(clone.snapshot().manifestFile().manifest().getFragmentTree().getTree().hasInlineRoot()).isTrue();

        // both sides commit independently
        List<Dataset> cloneVersions = new ArrayList<>(List.of(clone));
        Dataset c = clone;
        for (int i = 0; i < 2; i++) {
            c = keep(c.append(DatasetTestSupport.rows(alloc, 10_000 + 40L * i, 40, 20), DatasetTestSupport.schema()).block());
            c = keep(c.delete("id % 13 = " + i).block());
            cloneVersions.add(c);
        }
        Dataset s2 = keep(src.delete("id < 30").block());
        assertThat(scan(keep(Dataset.open(src.uri(), Map.of(), src.version()).block()))).isEqualTo(srcRows);
        assertThat(s2.count().block()).isLessThan(src.count().block());
        List<List<String>> cloneRows = scan(c);
        assertThat(cloneRows).hasSize((int) (long) c.count().block());
        assertThat(cloneRows.stream().filter(r -> Long.parseLong(r.get(0)) < 30).count())
                .as("the source's delete does not reach the clone").isPositive();
        assertThat(cloneRows.stream().filter(r -> Long.parseLong(r.get(0)) >= 10_000).count())
                .as("the clone's appends, minus its own deletes").isPositive();

        // every historical version of both opens and scans
        for (long v = 1; v <= s2.version(); v++) {
            Dataset at = keep(Dataset.open(src.uri(), Map.of(), v).block());
            assertThat(scan(at)).hasSize((int) (long) at.count().block());
        }
        for (Dataset cv : cloneVersions) {
            Dataset at = keep(Dataset.open(cloneUri, Map.of(), cv.version()).block());
            assertThat(scan(at)).isEqualTo(scan(cv));
        }

        // cleanup of the clone (every old version, unverified files too) never deletes a source object
        TreeSet<String> sourceFiles = files(tmp.resolve("src"));
        c.cleanupOldVersions(java.time.Instant.now().plusSeconds(5), true).block();
        assertThat(files(tmp.resolve("src"))).isEqualTo(sourceFiles);
        Dataset latest = keep(Dataset.open(cloneUri).block());
        assertThat(scan(latest)).isEqualTo(cloneRows);
        for (long v = 1; v <= s2.version(); v++) {
            Dataset at = keep(Dataset.open(src.uri(), Map.of(), v).block());
            assertThat(scan(at)).hasSize((int) (long) at.count().block());
        }
    }

    @Test
    void aCloneOfAnOlderVersionHoldsThatVersionsFragments() {
        Dataset src = source("old");
        for (long v : new long[] {2, src.version() - 1}) {
            Dataset at = keep(Dataset.open(src.uri(), Map.of(), v).block());
            Dataset clone = keep(at.shallowClone(tmp.resolve("clone-" + v).toString(), Map.of()).block());
            assertThat(clone.isTreeLayout()).isTrue();
            assertThat(scan(clone)).as("clone of v%d", v).isEqualTo(scan(at));
            Dataset next = keep(clone.append(DatasetTestSupport.rows(alloc, 90_000, 10, 10), DatasetTestSupport.schema())
                    .block());
            assertThat(next.count().block()).isEqualTo(at.count().block() + 10);
        }
    }

    @Test
    void aBranchOfATreeTableReadsAndCommitsLikeItsParent() {
        Dataset src = source("main");
        List<List<String>> rows = scan(src);
        Dataset branch = keep(src.createBranch("exp").block());
        assertThat(branch.isTreeLayout()).isTrue();
        assertThat(scan(branch)).isEqualTo(rows);
        Dataset b2 = keep(branch.append(DatasetTestSupport.rows(alloc, 50_000, 30, 30), DatasetTestSupport.schema()).block());
        Dataset b3 = keep(b2.delete("id % 5 = 0").block());
        assertThat(b3.count().block()).isEqualTo(rows.stream().filter(r -> Long.parseLong(r.get(0)) % 5 != 0).count() + 24);
        assertThat(scan(keep(Dataset.open(src.uri()).block()))).isEqualTo(rows);
    }
}
