package io.javelin.engine;

import static io.javelin.engine.DatasetTestSupport.rows;
import static io.javelin.engine.DatasetTestSupport.schema;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.javelin.tx.maintenance.CleanupPlan;
import io.javelin.tx.maintenance.CleanupPolicy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Cleanup dry runs that explain themselves, Lance's auto-cleanup on commit, truncate and drop. */
class TableLifecycleTest {

    @TempDir
    Path tmp;

    final BufferAllocator alloc = new RootAllocator();

    @AfterEach
    void close() {
        alloc.close();
    }

    static Set<String> objects(Path root) throws IOException {
        try (Stream<Path> s = Files.walk(root)) {
            return s.filter(Files::isRegularFile).map(p -> root.relativize(p).toString()).collect(Collectors.toSet());
        }
    }

    @Test
    void dryRunExplainsExactlyWhatCleanupThenDeletes() throws Exception {
        Path root = tmp.resolve("dry.lance");
        String uri = root.toString();
        Dataset.write(uri, rows(alloc, 0, 300, 100), schema(), WriteParams.of(WriteMode.CREATE)).block().close();
        Dataset.write(uri, rows(alloc, 300, 100, 100), schema(), WriteParams.of(WriteMode.APPEND)).block().close();
        try (Dataset ds = Dataset.open(uri).block(); Dataset d = ds.delete("id < 50").block();
             Dataset o = Dataset.write(uri, rows(alloc, 1000, 10, 10), schema(), WriteParams.of(WriteMode.OVERWRITE)).block()) {
            assertThat(o.version()).isEqualTo(4);
            Set<String> before = objects(root);
            CleanupPlan plan = o.cleanupDryRun(CleanupPolicy.beforeVersion(4).withDeleteUnverified(true)).block();
            assertThat(objects(root)).as("a dry run deletes nothing").isEqualTo(before);
            assertThat(plan.oldVersions()).containsExactly(1L, 2L, 3L);
            assertThat(plan.removals()).allSatisfy(r -> assertThat(r.reason()).isNotBlank());
            assertThat(plan.removals()).filteredOn(r -> r.path().startsWith("_versions/")).hasSize(3)
                    .allSatisfy(r -> assertThat(r.reason()).contains("manifest of version").contains("numbered below 4"));
            assertThat(plan.removals()).filteredOn(r -> r.path().startsWith("data/")).hasSize(2)
                    .allSatisfy(r -> assertThat(r.reason()).contains("data file that only removed versions use"));
            assertThat(plan.removals()).filteredOn(r -> r.path().startsWith("_deletions/")).hasSize(1);
            Set<String> explained = plan.removals().stream().map(CleanupPlan.Removal::path).collect(Collectors.toSet());
            assertThat(plan.removals().stream().mapToLong(CleanupPlan.Removal::bytes).sum()).isEqualTo(plan.bytesRemoved());
            o.cleanupOldVersions(CleanupPolicy.beforeVersion(4).withDeleteUnverified(true)).block();
            Set<String> gone = new HashSet<>(before);
            gone.removeAll(objects(root));
            assertThat(gone).isEqualTo(explained);
            assertThat(o.count().block()).isEqualTo(10);
        }
    }

    @Test
    void autoCleanupRunsOnEveryIntervalthCommit() {
        String uri = tmp.resolve("auto.lance").toString();
        Dataset.write(uri, rows(alloc, 0, 10, 10), schema(), WriteParams.of(WriteMode.CREATE)).block().close();
        try (Dataset ds = Dataset.open(uri).block(); Dataset v2 = ds.enableAutoCleanup(3, Duration.ZERO).block()) {
            assertThat(v2.version()).isEqualTo(2);
            assertThat(versions(v2)).containsExactly(1L, 2L);
            long rows = 10;
            for (int i = 0; i < 4; i++) { // versions 3, 4, 5, 6
                Dataset.write(uri, rows(alloc, 100 + i * 10, 10, 10), schema(), WriteParams.of(WriteMode.APPEND)).block().close();
                rows += 10;
            }
            try (Dataset latest = Dataset.open(uri).block()) {
                assertThat(latest.version()).isEqualTo(6);
                // version 3 and 6 cleaned up everything older (older_than 0s); 4, 5 were kept in between
                assertThat(versions(latest)).containsExactly(6L);
                assertThat(latest.count().block()).isEqualTo(rows);
                assertThat(latest.scanner().count().block()).isEqualTo(rows);
            }
        }
        // the gate: without the config key nothing is cleaned
        String plain = tmp.resolve("plain.lance").toString();
        Dataset.write(plain, rows(alloc, 0, 10, 10), schema(), WriteParams.of(WriteMode.CREATE)).block().close();
        for (int i = 0; i < 3; i++) {
            Dataset.write(plain, rows(alloc, 10, 10, 10), schema(), WriteParams.of(WriteMode.APPEND)).block().close();
        }
        try (Dataset d = Dataset.open(plain).block()) {
            assertThat(versions(d)).containsExactly(1L, 2L, 3L, 4L);
        }
        assertThat(AutoCleanup.parse("1h 30m")).isEqualTo(Duration.ofMinutes(90));
        assertThat(AutoCleanup.parse("3600s")).isEqualTo(Duration.ofHours(1));
        assertThatThrownBy(() -> AutoCleanup.parse("soon")).isInstanceOf(IllegalArgumentException.class);
    }

    private static List<Long> versions(Dataset ds) {
        return ds.versions().block().stream().map(VersionInfo::version).toList();
    }

    @Test
    void truncateKeepsSchemaAndHistoryDropRemovesEverything() throws Exception {
        Path root = tmp.resolve("t.lance");
        String uri = root.toString();
        try (Dataset v1 = Dataset.write(uri, rows(alloc, 0, 50, 25), schema(), WriteParams.of(WriteMode.CREATE)).block();
             Dataset v2 = v1.truncate().block()) {
            assertThat(v2.version()).isEqualTo(2);
            assertThat(v2.count().block()).isZero();
            assertThat(v2.schema()).isEqualTo(v1.schema());
            assertThat(v2.fragments()).isEmpty();
            try (Dataset old = v2.checkout(1).block()) {
                assertThat(old.count().block()).isEqualTo(50);
            }
            try (Dataset v3 = v2.append(rows(alloc, 0, 5, 5), schema()).block()) {
                assertThat(v3.count().block()).isEqualTo(5);
            }
            v2.createBranch("b").block().close();
        }
        assertThat(objects(root)).isNotEmpty();
        Dataset.drop(uri, Map.of()).block();
        assertThat(Files.exists(root) ? objects(root) : Set.of()).isEmpty();
        assertThatThrownBy(() -> Dataset.open(uri).block()).isInstanceOf(DatasetNotFoundException.class);
        assertThatThrownBy(() -> Dataset.drop(uri, Map.of()).block()).isInstanceOf(DatasetNotFoundException.class);
    }
}
