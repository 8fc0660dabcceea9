package io.javelin.tx.tree;

import static io.javelin.tx.pb.FragmentAction.ActionCase.ADD_DATA_FILE;
import static io.javelin.tx.pb.FragmentAction.ActionCase.ADD_DELETION_FILE;
import static io.javelin.tx.pb.FragmentAction.ActionCase.CLEAR_DELETION_FILE;
import static io.javelin.tx.pb.FragmentAction.ActionCase.REMOVE_DATA_FILE;
import static io.javelin.tx.pb.FragmentAction.ActionCase.REMOVE_FRAGMENT;
import static io.javelin.tx.pb.FragmentAction.ActionCase.REPLACE_DATA_FILE;
import static io.javelin.tx.pb.FragmentAction.ActionCase.UPSERT_FRAGMENT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.javelin.tx.pb.DataFile;
import io.javelin.tx.pb.DataFragment;
import io.javelin.tx.pb.FragmentAction;
import io.javelin.tx.pb.FragmentTreeMetadata;
import io.javelin.tx.pb.FragmentTreeMutation;
import io.javelin.tx.pb.Manifest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Every native operation lowers to the smallest actions that reproduce its flat result. */
class NativeOperationsTest {

    TreeFixture fx;
    List<DataFragment> frags;
    TreeSnapshot base;

    @BeforeEach
    void setUp() {
        fx = new TreeFixture(TreeFixture.small().withSuffixBytes(1 << 20));
        frags = TreeFixture.frags(200);
        base = fx.build(frags);
    }

    @AfterEach
    void tearDown() {
        fx.close();
    }

    /** Commits, checks the resulting state against the flat model, returns the action kinds. */
    List<FragmentAction.ActionCase> commit(List<FragmentEdit> edits, long max, List<DataFragment> expected) {
        TreeWriter.Result r = fx.writer.commit(base, edits, max).block();
        assertThat(fx.list(fx.open(r.metadata(), max))).isEqualTo(expected);
        return r.mutations().stream().map(m -> m.getAction().getActionCase()).toList();
    }

    @Test
    void appendUpsertsEachNewFragment() {
        List<DataFragment> added = List.of(TreeFixture.frag(200, 5, 1), TreeFixture.frag(201, 6, 2));
        List<DataFragment> expected = new ArrayList<>(frags);
        expected.addAll(added);
        assertThat(commit(NativeOperations.append(added), 201, expected)).containsExactly(UPSERT_FRAGMENT, UPSERT_FRAGMENT);
    }

    @Test
    void appendRejectsReusedIds() {
        assertThatThrownBy(() -> fx.writer.commit(base, NativeOperations.append(List.of(TreeFixture.frag(10, 5, 1))), 199)
                .block()).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void deleteLowersToDeletionFileActionsAndRemovals() {
        DataFragment d = TreeFixture.withDeletes(frags.get(7), 3, 2);
        List<DataFragment> expected = new ArrayList<>(frags);
        expected.set(7, d);
        expected.remove(9);
        assertThat(commit(NativeOperations.delete(List.of(d), List.of(9L)), 199, expected))
                .containsExactly(ADD_DELETION_FILE, REMOVE_FRAGMENT);
    }

    @Test
    void clearingADeletionFileLowersToClear() {
        DataFragment d = TreeFixture.withDeletes(frags.get(7), 3, 2);
        base = fx.open(fx.writer.commit(base, List.of(new FragmentEdit.Put(d)), 199).block().metadata(), 199);
        assertThat(commit(List.of(new FragmentEdit.Put(frags.get(7))), 199, frags)).containsExactly(CLEAR_DELETION_FILE);
    }

    @Test
    void updateRemovesRewritesAndAppends() {
        DataFragment d = TreeFixture.withDeletes(frags.get(3), 1, 2);
        DataFragment fresh = TreeFixture.frag(200, 1, 1);
        List<DataFragment> expected = new ArrayList<>(frags);
        expected.set(3, d);
        expected.remove(5);
        expected.add(fresh);
        assertThat(commit(NativeOperations.update(List.of(5L), List.of(d), List.of(fresh), 199), 200, expected))
                .containsExactly(REMOVE_FRAGMENT, ADD_DELETION_FILE, UPSERT_FRAGMENT);
    }

    @Test
    void dataReplacementWithTheSameMappingReplacesTheSlotWithoutReading() {
        DataFile old = frags.get(11).getFiles(1);
        DataFile neu = old.toBuilder().setPath("new.lance").setFileSizeBytes(5).build();
        List<DataFragment> expected = new ArrayList<>(frags);
        expected.set(11, frags.get(11).toBuilder().setFiles(1, neu).build());
        fx.store.resetCounts();
        assertThat(commit(NativeOperations.dataReplacement(List.of(new NativeOperations.Replacement(11, old, neu))),
                199, expected)).containsExactly(REPLACE_DATA_FILE);
    }

    @Test
    void dataReplacementChangingTheFileVersionRewritesTheRecord() {
        DataFile old = frags.get(11).getFiles(0);
        DataFile neu = old.toBuilder().setPath("v22.lance").setFileMinorVersion(2).build();
        List<DataFragment> expected = new ArrayList<>(frags);
        expected.set(11, frags.get(11).toBuilder().setFiles(0, neu).build());
        assertThat(commit(NativeOperations.dataReplacement(List.of(new NativeOperations.Replacement(11, old, neu))),
                199, expected)).containsExactly(UPSERT_FRAGMENT);
    }

    @Test
    void addColumnsAppendsOneFilePerFragmentWithoutReading() {
        List<DataFragment> expected = new ArrayList<>();
        Map<Long, List<DataFile>> files = new java.util.TreeMap<>();
        for (DataFragment f : frags) {
            DataFile df = DataFile.newBuilder().setPath("c" + f.getId()).addFields(50).addColumnIndices(0)
                    .setFileMajorVersion(2).setFileMinorVersion(1).build();
            files.put(f.getId(), List.of(df));
            expected.add(f.toBuilder().addFiles(df).build());
        }
        fx.store.resetCounts();
        TreeWriter.Result r = fx.writer.commit(base, NativeOperations.addColumns(files), 199).block();
        assertThat(fx.store.counts().reads()).isZero();
        assertThat(r.mutations()).hasSize(200).allMatch(m -> m.getAction().getActionCase() == ADD_DATA_FILE);
        assertThat(fx.list(fx.open(r.metadata(), 199))).isEqualTo(expected);
    }

    @Test
    void mergeOfTheFullListLowersToAppendedFiles() {
        List<DataFragment> merged = new ArrayList<>();
        for (DataFragment f : frags.subList(0, 20)) {
            merged.add(f.toBuilder().addFiles(TreeFixture.file("m" + f.getId(), 9)).build());
        }
        List<DataFragment> expected = new ArrayList<>(merged);
        expected.addAll(frags.subList(20, 200));
        assertThat(commit(NativeOperations.merge(merged, List.of(), 199), 199, expected)).hasSize(20)
                .containsOnly(ADD_DATA_FILE);
    }

    @Test
    void rewriteRemovesTheGroupAndCreatesItsOutput() {
        DataFragment out = TreeFixture.frag(200, 300, 1);
        List<DataFragment> expected = new ArrayList<>(frags.subList(3, 200));
        expected.add(out);
        assertThat(commit(NativeOperations.rewrite(List.of(new NativeOperations.RewriteGroup(List.of(0L, 1L, 2L),
                List.of(out))), 199), 200, expected)).containsExactly(REMOVE_FRAGMENT, REMOVE_FRAGMENT, REMOVE_FRAGMENT,
                UPSERT_FRAGMENT);
    }

    @Test
    void reserveFragmentsChangesNothingInTheTree() {
        TreeWriter.Result r = fx.writer.commit(base, NativeOperations.reserveFragments(), 250).block();
        assertThat(r.metadata()).isEqualTo(base.metadata());
        assertThat(r.written()).isEmpty();
    }

    @Test
    void overwriteBuildsAFreshTreeContinuingTheSequenceNamespace() {
        base = fx.open(fx.writer.commit(base, List.of(new FragmentEdit.Remove(1)), 199).block().metadata(), 199);
        List<DataFragment> fresh = List.of(TreeFixture.frag(200, 1, 1), TreeFixture.frag(201, 1, 1));
        FragmentTreeMetadata m = fx.writer.overwrite(base, fresh).block().metadata();
        TreeSnapshot s = fx.open(m, 201);
        assertThat(fx.list(s)).isEqualTo(fresh);
        assertThat(m.getTree().getNextActionSequence()).isEqualTo(base.metadata().getTree().getNextActionSequence());
    }

    @Test
    void otherFieldChangesUpsertTheWholeRecord() {
        DataFragment g = frags.get(4).toBuilder().setInlineRowIds(ByteString.copyFromUtf8("ids")).build();
        List<DataFragment> expected = new ArrayList<>(frags);
        expected.set(4, g);
        assertThat(commit(List.of(new FragmentEdit.Put(g)), 199, expected)).containsExactly(UPSERT_FRAGMENT);
    }

    @Test
    void removedFilePathLowersToRemoveDataFile() {
        DataFragment f = frags.get(1);
        DataFragment g = f.toBuilder().removeFiles(1).build();
        List<DataFragment> expected = new ArrayList<>(frags);
        expected.set(1, g);
        assertThat(commit(List.of(new FragmentEdit.Put(g)), 199, expected)).containsExactly(REMOVE_DATA_FILE);
    }

    @Test
    void renameChainIsNeverFolded() {
        // Spec: from [A, B], renaming B to A and then replacing the first A with C yields [C, A].
        DataFragment ab = TreeFixture.frag(3, 10, 0).toBuilder().addFiles(TreeFixture.file("A", 0))
                .addFiles(TreeFixture.file("B", 1)).build();
        base = fx.open(fx.writer.commit(base, List.of(new FragmentEdit.Put(ab)), 199).block().metadata(), 199);
        TreeWriter.Result r = fx.writer.commit(base, List.of(new FragmentEdit.ReplaceFile(3, "B", "A", 1001, null),
                new FragmentEdit.ReplaceFile(3, "A", "C", 1000, null)), 199).block();
        assertThat(r.mutations()).hasSize(2);
        DataFragment got = fx.open(r.metadata(), 199).resolve(3).block().orElseThrow();
        assertThat(got.getFilesList()).extracting(DataFile::getPath).containsExactly("C", "A");
    }

    @Test
    void loweringVerifiesSlotReplacementsAgainstDuplicatePaths() {
        DataFragment aa = TreeFixture.frag(3, 10, 0).toBuilder().addFiles(TreeFixture.file("A", 0))
                .addFiles(TreeFixture.file("A", 0)).build();
        DataFragment ac = aa.toBuilder().setFiles(1, TreeFixture.file("C", 0)).build();
        // Replacing "the first A" would hit slot 0, so the only faithful action is a whole upsert.
        assertThat(Lowering.lower(aa, ac)).singleElement().extracting(FragmentAction::getActionCase)
                .isEqualTo(UPSERT_FRAGMENT);
        DataFragment ca = aa.toBuilder().setFiles(0, TreeFixture.file("C", 0)).build();
        assertThat(Lowering.lower(aa, ca)).singleElement().extracting(FragmentAction::getActionCase)
                .isEqualTo(REPLACE_DATA_FILE);
    }

    @Test
    void conversionOfAFlatManifestPublishesTheTree() {
        Manifest flat = Manifest.newBuilder().setVersion(4).addAllFragments(frags).setMaxFragmentId(199)
                .setReaderFeatureFlags(1).setWriterFeatureFlags(1 | 8).build();
        Manifest tree = TreeManifests.convert(fx.writer, flat).block();
        assertThat(tree.getFragmentsCount()).isZero();
        assertThat(tree.getVersion()).isEqualTo(5);
        assertThat(tree.getReaderFeatureFlags()).isEqualTo(1 | 4096);
        assertThat(tree.getWriterFeatureFlags()).isEqualTo(1 | 8 | 4096);
        TreeSnapshot s = TreeSnapshot.open(fx.env, tree, "mem://ds").block();
        assertThat(fx.list(s)).isEqualTo(frags);
    }

    @Test
    void deltasOfLoweredActionsAreExact() {
        DataFragment d = TreeFixture.withDeletes(frags.get(7), 3, 2);
        TreeWriter.Result r = fx.writer.commit(base, NativeOperations.delete(List.of(d), List.of(9L)), 199).block();
        FragmentTreeMutation del = r.mutations().get(0);
        FragmentTreeMutation rem = r.mutations().get(1);
        assertThat(List.of(del.getFragmentCountDelta(), del.getTotalRowsDelta(), del.getVisibleRowsDelta()))
                .containsExactly(0L, 0L, -3L);
        assertThat(List.of(rem.getFragmentCountDelta(), rem.getTotalRowsDelta(), rem.getVisibleRowsDelta()))
                .containsExactly(-1L, -frags.get(9).getPhysicalRows(), -frags.get(9).getPhysicalRows());
    }
}
