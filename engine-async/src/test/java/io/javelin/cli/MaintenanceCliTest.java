package io.javelin.cli;

import static io.javelin.cli.DatasetCliTest.run;
import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.engine.Dataset;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MaintenanceCliTest {

    @TempDir
    Path tmp;

    @Test
    void compactCleanupRestore() throws Exception {
        Path ds = DatasetCliTest.golden(tmp);
        String uri = ds.toString();
        long versions;
        try (Dataset d = Dataset.open(uri).block()) {
            versions = d.version();
        }
        DatasetCliTest.Result c = run("compact", uri, "--target-rows", "100000");
        assertThat(c.exit()).as(c.err()).isZero();
        assertThat(c.out()).containsPattern("version \\d+: \\d+ fragment\\(s\\) rewritten into 1");
        long compacted;
        long rows;
        try (Dataset d = Dataset.open(uri).block()) {
            compacted = d.version();
            rows = d.count().block();
            assertThat(compacted).isEqualTo(versions + 1);
            assertThat(d.fragments()).hasSize(1);
        }
        assertThat(run("compact", uri, "--target-rows", "100000").out()).contains("nothing to compact");

        DatasetCliTest.Result r = run("restore", uri, "1");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("restored version 1 as version " + (compacted + 1));
        assertThat(run("restore", uri, "999").exit()).isEqualTo(3);

        DatasetCliTest.Result bad = run("cleanup", uri, "--older-than", "soon");
        assertThat(bad.exit()).isEqualTo(2);
        assertThat(run("cleanup", uri).exit()).isEqualTo(2);
        DatasetCliTest.Result cl = run("cleanup", uri, "--before-version", String.valueOf(compacted), "--delete-unverified");
        assertThat(cl.exit()).as(cl.err()).isZero();
        assertThat(cl.out()).containsPattern("removed \\d+ version\\(s\\)");
        try (Dataset d = Dataset.open(uri).block(); Dataset at = d.checkout(compacted).block()) {
            assertThat(at.count().block()).isEqualTo(rows);
            assertThat(d.versions().block()).allMatch(v -> v.version() >= compacted || d.tags().block().values().stream()
                    .anyMatch(t -> t.version() == v.version()));
        }
        try (Stream<Path> s = Files.list(ds.resolve("_versions"))) {
            assertThat(s.filter(p -> p.toString().endsWith(".manifest")).count()).isGreaterThanOrEqualTo(2);
        }
    }

    @Test
    void branchesAndClones() throws Exception {
        Path ds = DatasetCliTest.golden(tmp);
        String uri = ds.toString();
        DatasetCliTest.Result c = run("branch", "create", uri, "exp/one", "--version", "2");
        assertThat(c.exit()).as(c.err()).isZero();
        assertThat(c.out()).contains("branch exp/one at version 2");
        assertThat(Files.exists(ds.resolve("_refs/branches/exp%2Fone.json"))).isTrue();
        assertThat(run("branch", "create", uri, "exp/one").exit()).isNotZero();
        assertThat(run("branch", "create", uri, "bad..name").err()).contains("bad..name");
        DatasetCliTest.Result l = run("branch", "list", uri);
        assertThat(l.exit()).as(l.err()).isZero();
        assertThat(l.out()).contains("exp/one").contains("main");

        String shallow = tmp.resolve("shallow.lance").toString();
        String deep = tmp.resolve("deep.lance").toString();
        DatasetCliTest.Result s = run("clone", uri, shallow, "--shallow");
        assertThat(s.exit()).as(s.err()).isZero();
        assertThat(s.out()).startsWith("shallow clone of version");
        DatasetCliTest.Result d = run("clone", uri, deep, "--version", "1");
        assertThat(d.exit()).as(d.err()).isZero();
        assertThat(d.out()).startsWith("deep clone of version 1");
        try (Dataset src = Dataset.open(uri).block(); Dataset sc = Dataset.open(shallow).block();
             Dataset v1 = src.checkout(1).block(); Dataset dc = Dataset.open(deep).block()) {
            assertThat(sc.count().block()).isEqualTo(src.count().block());
            assertThat(dc.count().block()).isEqualTo(v1.count().block());
        }
        assertThat(run("clone", uri, deep).exit()).isEqualTo(4);

        DatasetCliTest.Result del = run("branch", "delete", uri, "exp/one");
        assertThat(del.exit()).as(del.err()).isZero();
        assertThat(run("branch", "list", uri).out()).doesNotContain("exp/one");
    }
}
