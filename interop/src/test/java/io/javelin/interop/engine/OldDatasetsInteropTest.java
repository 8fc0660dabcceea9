package io.javelin.interop.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.engine.Dataset;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Datasets written by old official Lance versions (upstream {@code test_data/}, see the README next to them):
 * row counts equal lance-core's where the manifest lacks statistics or has duplicate fragment ids; datasets
 * whose files are all 2.0 (incl. format 0.3) read with lance-core's schema and values.
 */
class OldDatasetsInteropTest {

    @TempDir
    Path dir;

    final BufferAllocator alloc = new RootAllocator();

    @AfterEach
    void closeAllocator() {
        alloc.close();
    }

    Path copy(String name) throws IOException, URISyntaxException {
        return copyFixture(dir, name);
    }

    /** Copies the upstream dataset {@code lance-test-data/NAME} into {@code dir} (tests may write to it). */
    static Path copyFixture(Path dir, String name) throws IOException, URISyntaxException {
        Path src = Path.of(OldDatasetsInteropTest.class.getResource("/lance-test-data/" + name).toURI());
        Path dst = dir.resolve(Path.of(name).getFileName().toString());
        try (Stream<Path> all = Files.walk(src)) {
            for (Path p : (Iterable<Path>) all::iterator) {
                Path t = dst.resolve(src.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(t);
                } else {
                    Files.copy(p, t);
                }
            }
        }
        return dst;
    }

    @ParameterizedTest
    @ValueSource(strings = {"v0.7.5/with_deletions", "v0.8.0/migrated_from_v0.7.5", "v0.15.0/v1_with_files.lance",
            "v0.15.0/v2_with_files.lance", "v0.16.0/wrong_data_version_can_fix.lance", "v0.16.0/wrong_data_version_no_fix.lance"})
    void rowCountsEqualLanceCores(String name) throws Exception {
        String uri = copy(name).toString();
        long theirs;
        try (org.lance.Dataset lance = org.lance.Dataset.open(uri, alloc)) {
            theirs = lance.countRows();
        }
        try (Dataset ds = Dataset.open(uri).block()) {
            assertThat(ds.count().block()).isEqualTo(theirs).isPositive();
            assertThat(ds.fragments().stream().mapToLong(f -> f.liveRows()).sum()).isEqualTo(theirs);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"v0.15.0/v2_with_files.lance", "v0.16.0/wrong_data_version_can_fix.lance"})
    void twoPointZeroFilesOfOldWritersReadAsLanceCoreReadsThem(String name) throws Exception {
        BatchSchemaInteropTest t = new BatchSchemaInteropTest();
        t.dir = dir;
        try {
            t.assertSameAsLanceCore(copy(name).toString());
        } finally {
            t.closeAllocator();
        }
    }
}
