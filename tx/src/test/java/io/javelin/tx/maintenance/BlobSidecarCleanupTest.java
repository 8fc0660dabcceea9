package io.javelin.tx.maintenance;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Blob v2 sidecars are managed objects owned by their data file (cleanup reachability). */
class BlobSidecarCleanupTest {

    @Test
    void sidecarsBelongToTheirDataFile() {
        assertThat(CleanupPlanner.sidecarOwner("data/abc/10000000000000000000000000000000.blob")).isEqualTo("data/abc.lance");
        assertThat(CleanupPlanner.managed("data/abc/01000000000000000000000000000000.blob")).isTrue();
        // not sidecars: other names, depths and directories are never touched
        assertThat(CleanupPlanner.sidecarOwner("data/abc/1000.blob")).isNull();
        assertThat(CleanupPlanner.sidecarOwner("data/abc/x/10000000000000000000000000000000.blob")).isNull();
        assertThat(CleanupPlanner.sidecarOwner("data/10000000000000000000000000000000.blob")).isNull();
        assertThat(CleanupPlanner.sidecarOwner("other/abc/10000000000000000000000000000000.blob")).isNull();
        assertThat(CleanupPlanner.sidecarOwner("data/abc/1000000000000000000000000000000x.blob")).isNull();
        assertThat(CleanupPlanner.managed("data/abc/notes.txt")).isFalse();
    }
}
