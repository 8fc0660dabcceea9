package io.javelin.engine;

import static io.javelin.engine.DatasetTestSupport.collect;
import static io.javelin.engine.DatasetTestSupport.rows;
import static io.javelin.engine.DatasetTestSupport.schema;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.javelin.engine.maintenance.CompactionOptions;
import io.javelin.tx.branch.BranchJson;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Branches ({@code _refs/branches}, {@code tree/{name}/}), shallow and deep clones. */
class BranchCloneTest {

    @TempDir
    Path dir;

    final BufferAllocator alloc = new RootAllocator();

    @AfterEach
    void closeAllocator() {
        alloc.close();
    }

    @Test
    void branchCommitsStayOnTheBranchAndSurviveMainCleanup() throws Exception {
        Path root = dir.resolve("b.lance");
        try (Dataset v1 = Dataset.write(root.toString(), rows(alloc, 0, 600, 100), schema(), WriteParams.of(WriteMode.CREATE)
                .withMaxRowsPerFile(200)).block();
             Dataset v2 = v1.delete("id < 10").block();
             Dataset br = v2.createBranch("feat/x").block()) {
            assertThat(br.version()).isEqualTo(2);
            assertThat(br.snapshot().manifestFile().manifest().getBranch()).isEqualTo("feat/x");
            assertThat(br.snapshot().manifestFile().manifest().getBasePaths(0).getPath()).isEqualTo(root.toAbsolutePath().toString());
            assertThat(collect(br.scanner().scan(alloc))).isEqualTo(collect(v2.scanner().scan(alloc)));
            assertThat(Files.exists(root.resolve("_refs/branches/feat%2Fx.json"))).isTrue();
            var json = BranchJson.decode("feat/x", "x", Files.readAllBytes(root.resolve("_refs/branches/feat%2Fx.json")));
            assertThat(json.parentVersion()).isEqualTo(2);
            assertThat(json.versionMapping()).hasSize(1);
            try (Dataset b3 = br.delete("id >= 500").block(); Dataset b4 = b3.append(rows(alloc, 1000, 20, 20), schema()).block()) {
                assertThat(b4.version()).isEqualTo(4);
                assertThat(b4.count().block()).isEqualTo(590 - 100 + 20);
                assertThat(Files.list(root.resolve("tree/feat/x/data")).count()).isEqualTo(1);
            }
            try (Dataset main = v2.checkoutLatest().block()) {
                assertThat(main.version()).isEqualTo(2);
                assertThat(main.count().block()).isEqualTo(590);
                assertThat(main.branches().block()).containsOnlyKeys("feat/x");
                // main moves on and cleans up; the branch still reads the files it shares with main
                var c = main.compact(CompactionOptions.defaults().withTargetRowsPerFragment(10_000)).block();
                try (Dataset m3 = c.dataset()) {
                    var s = m3.cleanupOldVersions(Instant.now().plusSeconds(1), true).block();
                    assertThat(s.oldVersions()).isEqualTo(2);
                    assertThat(s.dataFilesRemoved()).isZero(); // the branch names them
                    try (Dataset b = m3.checkoutBranch("feat/x").block()) {
                        assertThat(b.count().block()).isEqualTo(510);
                        assertThat(collect(b.scanner().scan(alloc))).hasSize(510);
                    }
                    assertThatThrownBy(() -> m3.createBranch("feat/x").block()).isInstanceOf(DatasetException.class)
                            .hasMessageContaining("already exists");
                    assertThatThrownBy(() -> m3.createBranch("main").block()).isInstanceOf(DatasetException.class);
                    m3.deleteBranch("feat/x").block();
                    assertThat(m3.branches().block()).isEmpty();
                    try (var files = Files.walk(root.resolve("tree"))) {
                        assertThat(files.filter(Files::isRegularFile).count()).isZero(); // (empty directories may stay)
                    }
                    assertThatThrownBy(() -> m3.checkoutBranch("feat/x").block()).isInstanceOf(DatasetException.class);
                }
            }
        }
    }

    @Test
    void shallowAndDeepClonesReadLikeTheSource() throws Exception {
        Path root = dir.resolve("src.lance");
        try (Dataset v1 = Dataset.write(root.toString(), rows(alloc, 0, 300, 100), schema(), WriteParams.of(WriteMode.CREATE)
                .withMaxRowsPerFile(100)).block();
             Dataset v2 = v1.delete("id % 5 = 0").block()) {
            var expected = collect(v2.scanner().scan(alloc));
            String shallowUri = dir.resolve("shallow.lance").toString();
            String deepUri = dir.resolve("deep.lance").toString();
            try (Dataset s = v2.shallowClone(shallowUri, Map.of()).block(); Dataset d = v2.deepClone(deepUri, Map.of()).block()) {
                assertThat(s.version()).isEqualTo(2);
                assertThat(d.version()).isEqualTo(2);
                assertThat(collect(s.scanner().scan(alloc))).isEqualTo(expected);
                assertThat(collect(d.scanner().scan(alloc))).isEqualTo(expected);
                assertThat(Files.exists(dir.resolve("shallow.lance/data"))).isFalse();
                assertThat(Files.list(dir.resolve("deep.lance/data")).count()).isEqualTo(3);
                assertThat(d.snapshot().manifestFile().manifest().getBasePathsCount()).isZero();
                try (Dataset s3 = s.delete("id < 50").block()) {
                    assertThat(s3.count().block()).isEqualTo(240 - 40);
                }
            }
            assertThatThrownBy(() -> v2.shallowClone(shallowUri, Map.of()).block()).isInstanceOf(DatasetAlreadyExistsException.class);
            try (Dataset src = v2.checkoutLatest().block()) {
                assertThat(src.version()).isEqualTo(2);
                assertThat(List.of(src.count().block())).containsExactly(240L);
            }
        }
    }
}
