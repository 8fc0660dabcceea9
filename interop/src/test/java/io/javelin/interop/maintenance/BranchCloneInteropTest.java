package io.javelin.interop.maintenance;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.engine.Dataset;
import io.javelin.engine.WriteMode;
import io.javelin.engine.WriteParams;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.lance.Ref;

/** Branches and shallow clones across engines: what we create lance-core opens and commits to, and the reverse. */
class BranchCloneInteropTest extends InteropSupport {

    @Test
    void lanceCoreUsesOurBranchesAndClones() throws Exception {
        String uri = dir.resolve("ours.lance").toString();
        String clone = dir.resolve("clone.lance").toString();
        try (Dataset v1 = Dataset.write(uri, ours(0, 600), SCHEMA, WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(200)).block();
             Dataset v2 = v1.delete("id % 5 = 0").block();
             Dataset br = v2.createBranch("dev/a").block();
             Dataset b3 = br.delete("id < 100").block();
             Dataset sc = v2.shallowClone(clone, Map.of()).block()) {
            assertThat(b3.version()).isEqualTo(3);
            assertThat(sc.version()).isEqualTo(2);
        }
        try (org.lance.Dataset main = org.lance.Dataset.open(uri, alloc)) {
            assertThat(main.branches().list()).extracting(org.lance.Branch::getName).containsExactly("dev/a");
            try (org.lance.Dataset b = main.checkout(Ref.ofBranch("dev/a"))) {
                assertThat(b.version()).isEqualTo(3);
                assertThat(b.countRows()).isEqualTo(480 - 80);
                assertThat(lanceRows(b)).isEqualTo(ourRows(dir.resolve("ours.lance/tree/dev/a").toString(), 3));
                b.delete("id >= 500");
            }
            assertThat(main.countRows()).isEqualTo(480);
        }
        try (Dataset b = Dataset.open(uri).block().checkoutBranch("dev/a").block()) {
            assertThat(b.version()).isEqualTo(4);
            assertThat(b.count().block()).isEqualTo(480 - 80 - 80);
        }
        try (org.lance.Dataset c = org.lance.Dataset.open(clone, alloc)) {
            assertThat(c.countRows()).isEqualTo(480);
            assertThat(lanceRows(c)).isEqualTo(ourRows(uri, 2));
            c.delete("id < 300");
            assertThat(c.countRows()).isEqualTo(240);
        }
        assertThat(ourRows(clone, 3)).hasSize(240);
        assertThat(ourRows(uri, 2)).hasSize(480); // the source is untouched
    }

    @Test
    void weReadLanceCoreBranchesAndShallowClones() throws Exception {
        String uri = dir.resolve("theirs.lance").toString();
        String clone = dir.resolve("clone.lance").toString();
        lanceWrite(uri, 0, 600, org.lance.WriteParams.WriteMode.CREATE, false);
        try (org.lance.Dataset ds = org.lance.Dataset.open(uri, alloc)) {
            ds.delete("id % 4 = 0");
            ds.tags().create("t", 2);
            try (org.lance.Dataset b = ds.createBranch("exp", Ref.ofMain(2))) {
                b.delete("id < 200");
            }
            ds.shallowClone(clone, Ref.ofTag("t")).close();
        }
        try (Dataset main = Dataset.open(uri).block(); Dataset b = main.checkoutBranch("exp").block()) {
            assertThat(main.branches().block()).containsOnlyKeys("exp");
            assertThat(b.version()).isEqualTo(3);
            assertThat(b.count().block()).isEqualTo(450 - 150);
            try (org.lance.Dataset lb = org.lance.Dataset.open(uri, alloc).checkout(Ref.ofBranch("exp"))) {
                assertThat(ourRows(dir.resolve("theirs.lance/tree/exp").toString(), 3)).isEqualTo(lanceRows(lb));
            }
            try (Dataset b4 = b.append(ours(9000, 10), SCHEMA).block()) {
                assertThat(b4.count().block()).isEqualTo(310);
            }
        }
        try (org.lance.Dataset lb = org.lance.Dataset.open(uri, alloc).checkout(Ref.ofBranch("exp"))) {
            assertThat(lb.countRows()).isEqualTo(310);
        }
        assertThat(ourRows(clone, 2)).isEqualTo(lanceRows(uri, 2));
    }
}
