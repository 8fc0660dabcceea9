package io.javelin.tx.tree;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.javelin.tx.pb.FragmentTreeRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Tree objects must live under {@code _bt/}: a child reference anywhere else is corruption (rule R09/R10). */
class HostileTreePathsTest {

    @ParameterizedTest
    @ValueSource(strings = {"data/x.lance", "_bt/../data/x.lance", "_bt/./node/x.node", "/_bt/node/x.node",
            "s3://bucket/_bt/node/x.node", "_bt\\..\\x", "_bt/", "_bt//x", "", "../_bt/x", "_versions/1.manifest"})
    void childPathsOutsideTheTreePrefixAreRejected(String path) {
        assertThatThrownBy(() -> TreePaths.checkChildPath(path)).isInstanceOf(CorruptSnapshotException.class);
    }

    @Test
    void generatedPathsPass() {
        assertThatCode(() -> TreePaths.checkChildPath(TreePaths.nodePath(java.util.UUID.randomUUID()))).doesNotThrowAnyException();
        assertThatCode(() -> TreePaths.checkChildPath(TreePaths.leafPath(java.util.UUID.randomUUID()))).doesNotThrowAnyException();
    }

    /** End to end: a root whose first child points into data/ is refused when the snapshot is opened. */
    @Test
    void aRootReferencingADataFileIsRefused() throws Exception {
        try (TreeFuzzTest.Target t = new TreeFuzzTest.Target()) {
            FragmentTreeRoot root = FragmentTreeRoot.parseFrom(t.pristine(TreeFuzzTest.Kind.ROOT));
            FragmentTreeRoot hostile = root.toBuilder().setChildren(0, root.getChildren(0).toBuilder()
                    .setPath("data/" + java.util.UUID.randomUUID() + ".lance")).build();
            assertThatThrownBy(() -> t.run(TreeFuzzTest.Kind.ROOT, hostile.toByteArray()))
                    .hasCauseInstanceOf(CorruptSnapshotException.class).hasMessageContaining("R09");
        }
    }
}
