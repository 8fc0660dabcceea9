package io.javelin.tx.tree;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.javelin.encoding.pb.file.Field;
import io.javelin.tx.UnsupportedFeatureException;
import io.javelin.tx.pb.AddDataFile;
import io.javelin.tx.pb.DataFile;
import io.javelin.tx.pb.DataFragment;
import io.javelin.tx.pb.ExternalFile;
import io.javelin.tx.pb.FragmentAction;
import io.javelin.tx.pb.FragmentTree;
import io.javelin.tx.pb.FragmentTreeChild;
import io.javelin.tx.pb.FragmentTreeMutation;
import io.javelin.tx.pb.FragmentTreeRoot;
import io.javelin.tx.pb.Manifest;
import io.javelin.tx.pb.ReplaceDataFile;
import io.javelin.tx.pb.Transaction;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Spec 000 copy-and-remap for shallow clones, and which fragments a Project touches. */
class TreeClonesTest {

    static FragmentTreeMutation mutation(long seq, FragmentAction a) {
        return FragmentTreeMutation.newBuilder().setActionSequence(seq).setAction(a).build();
    }

    static DataFile file(String path, Integer base) {
        DataFile.Builder b = DataFile.newBuilder().setPath(path).addFields(0).addColumnIndices(0).setFileMajorVersion(2)
                .setFileMinorVersion(1);
        if (base != null) {
            b.setBaseId(base);
        }
        return b.build();
    }

    @Test
    void theCloneRootIsInlineAndEveryInheritedReferenceNamesTheSource() {
        FragmentTreeChild inherited = FragmentTreeChild.newBuilder().setPath("_bt/leaf/a.lance").setMinKey(0)
                .setNumKeys(1).setObjectSize(10).build();
        FragmentTreeChild explicit = FragmentTreeChild.newBuilder().setPath("_bt/leaf/b.lance").setMinKey(100)
                .setNumKeys(1).setObjectSize(10).setBaseId(3).build();
        FragmentTreeRoot root = FragmentTreeRoot.newBuilder().addChildren(inherited).addChildren(explicit)
                .addBuffer(mutation(5, FragmentAction.newBuilder().setAddDataFile(AddDataFile.newBuilder().setFragId(1)
                        .setFile(file("x.lance", null))).build()))
                .setNextActionSequence(7).build();
        FragmentTreeMutation suffix = mutation(8, FragmentAction.newBuilder().setReplaceDataFile(ReplaceDataFile
                .newBuilder().setFragId(101).setExpectedPath("y.lance").setPath("z.lance")).build());
        FragmentTreeMutation upsert = mutation(9, FragmentAction.newBuilder().setUpsertFragment(DataFragment
                .newBuilder().setId(102).setPhysicalRows(5).addFiles(file("k.lance", 3)).addFiles(file("l.lance", null)))
                .build());
        FragmentTree descriptor = FragmentTree.newBuilder().setRootUuid(com.google.protobuf.ByteString.copyFrom(new byte[16]))
                .addMutationsSinceRoot(suffix).addMutationsSinceRoot(upsert).setNextActionSequence(10).build();

        FragmentTree clone = TreeClones.remap(descriptor, root, 4);

        assertThat(clone.hasInlineRoot()).isTrue();
        assertThat(clone.getMutationsSinceRootList()).isEmpty();
        assertThat(clone.getNextActionSequence()).isEqualTo(10);
        FragmentTreeRoot r = clone.getInlineRoot();
        assertThat(r.getNextActionSequence()).isEqualTo(10);
        assertThat(r.getChildren(0).getBaseId()).isEqualTo(4);
        assertThat(r.getChildren(1).getBaseId()).as("explicit base ids keep their meaning").isEqualTo(3);
        assertThat(r.getBufferList()).extracting(FragmentTreeMutation::getActionSequence).containsExactly(5L, 8L, 9L);
        assertThat(r.getBuffer(0).getAction().getAddDataFile().getFile().getBaseId()).isEqualTo(4);
        assertThat(r.getBuffer(1).getAction().getReplaceDataFile().getBaseId()).isEqualTo(4);
        assertThat(r.getBuffer(2).getAction().getUpsertFragment().getFilesList()).extracting(DataFile::getBaseId)
                .containsExactly(3, 4);
    }

    @Test
    void externalRowIdFilesCannotBeCarriedIntoAClone() {
        FragmentTreeMutation upsert = mutation(1, FragmentAction.newBuilder().setUpsertFragment(DataFragment.newBuilder()
                .setId(0).setPhysicalRows(5).addFiles(file("k.lance", null))
                .setExternalRowIds(ExternalFile.newBuilder().setPath("_rowids/0.bin").setSize(10))).build());
        FragmentTree descriptor = FragmentTree.newBuilder().setInlineRoot(FragmentTreeRoot.newBuilder()
                .addBuffer(upsert).setNextActionSequence(2)).setNextActionSequence(2).build();
        assertThatThrownBy(() -> TreeClones.remap(descriptor, descriptor.getInlineRoot(), 0))
                .isInstanceOf(UnsupportedFeatureException.class).hasMessageContaining("ExternalFile");
    }

    @Test
    void aProjectTouchesNoFragmentUnlessItDropsAField() {
        Field a = Field.newBuilder().setName("a").setId(0).setParentId(-1).build();
        Field b = Field.newBuilder().setName("b").setId(1).setParentId(-1).build();
        Field c = Field.newBuilder().setName("c").setId(2).setParentId(-1).build();
        Manifest base = Manifest.newBuilder().addFields(a).addFields(b).build();
        Transaction add = Transaction.newBuilder().setProject(Transaction.Project.newBuilder()
                .addAllSchema(List.of(a, b.toBuilder().setName("renamed").build(), c))).build();
        Transaction drop = Transaction.newBuilder().setProject(Transaction.Project.newBuilder().addSchema(a)).build();
        assertThat(TreeCommits.touched(add, base)).hasValueSatisfying(ids -> assertThat(ids).isEmpty());
        assertThat(TreeCommits.touched(drop, base)).isEmpty();
        assertThat(TreeCommits.touched(add)).as("without the base manifest nothing is assumed").isEmpty();
    }
}
