package io.javelin.tx.rowid;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.encoding.pb.file.Field;
import io.javelin.tx.commit.CommitEngine;
import io.javelin.tx.commit.CommitOptions;
import io.javelin.tx.manifest.FeatureFlags;
import io.javelin.tx.pb.DataFile;
import io.javelin.tx.pb.DataFragment;
import io.javelin.tx.pb.Manifest;
import io.javelin.tx.pb.Transaction;
import io.javelin.tx.store.InMemoryManifestStore;
import io.javelin.tx.transaction.Transactions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Stable row ids through real commits: assignment, retries against a moved next_row_id, updates, rewrites. */
class StableRowIdCommitTest {

    static final List<Field> SCHEMA = List.of(Field.newBuilder().setName("id").setId(0).setParentId(-1).setLogicalType("int64").build());

    static DataFragment fragment(String file, long rows) {
        return DataFragment.newBuilder().setPhysicalRows(rows).addFiles(DataFile.newBuilder().setPath(file).addFields(0)
                .addColumnIndices(0).setFileMajorVersion(2).setFileMinorVersion(1).setFileSizeBytes(1000)).build();
    }

    static DataFragment last(Manifest m) {
        return m.getFragments(m.getFragmentsCount() - 1);
    }

    @Test
    void idsAndVersionsFollowEveryCommitIncludingRebasedOnes() {
        InMemoryManifestStore store = new InMemoryManifestStore();
        CommitEngine engine = new CommitEngine(store, CommitOptions.defaults().withBackoff(Duration.ofMillis(1), Duration.ofMillis(5)));
        Manifest v1 = engine.commit(Transactions.overwrite(0, List.of(fragment("a.lance", 100)), SCHEMA, Map.of()), true)
                .block().manifest().manifest();
        assertThat(v1.getReaderFeatureFlags() & FeatureFlags.STABLE_ROW_IDS).isNotZero();
        assertThat(FragmentRowIds.readInline(v1.getFragments(0))).isEqualTo(RowIdSequence.range(0, 100));
        assertThat(v1.getNextRowId()).isEqualTo(100);
        assertThat(FragmentRowIds.createdAt(v1.getFragments(0), -1)).containsOnly(1L);

        // two appends read at v1: the second one rebases and must get ids after the first one's
        Transaction a = Transactions.append(1, List.of(fragment("b.lance", 10)));
        Transaction b = Transactions.append(1, List.of(fragment("c.lance", 5)));
        Manifest v2 = engine.commit(a).block().manifest().manifest();
        Manifest v3 = engine.commit(b).block().manifest().manifest();
        assertThat(FragmentRowIds.readInline(last(v2))).isEqualTo(RowIdSequence.range(100, 110));
        assertThat(FragmentRowIds.readInline(last(v3))).isEqualTo(RowIdSequence.range(110, 115));
        assertThat(FragmentRowIds.lastUpdatedAt(last(v3), -1)).containsOnly(3L);
        assertThat(v3.getNextRowId()).isEqualTo(115);

        // an update moving rows 3 and 7 of fragment 0 into a new fragment keeps their ids and created-at
        DataFragment.Builder moved = RowIdAssigner.preserve(fragment("d.lance", 3).toBuilder(), new long[] {3, 7});
        FragmentRowIds.setCreatedAt(moved, RowVersions.uniform(3, 1));
        Manifest v4 = engine.commit(Transactions.update(3, List.of(), List.of(), List.of(moved.build()), List.of(0)))
                .block().manifest().manifest();
        assertThat(FragmentRowIds.readInline(last(v4)).toArray()).containsExactly(3, 7, 115);
        assertThat(FragmentRowIds.createdAt(last(v4), -1)).containsOnly(1L);
        assertThat(FragmentRowIds.lastUpdatedAt(last(v4), -1)).containsOnly(4L);
        assertThat(v4.getNextRowId()).isEqualTo(116);

        // a rewrite carries the ids given by the compactor; fragment ids come from the high-water mark
        DataFragment merged = FragmentRowIds.setRowIds(fragment("e.lance", 15).toBuilder(), RowIdSequence.range(100, 115)).build();
        Transaction rw = Transactions.rewrite(4, List.of(Transaction.Rewrite.RewriteGroup.newBuilder()
                .addOldFragments(v4.getFragments(1)).addOldFragments(v4.getFragments(2)).addNewFragments(merged).build()));
        Manifest v5 = engine.commit(rw).block().manifest().manifest();
        assertThat(v5.getFragmentsList()).extracting(DataFragment::getId).containsExactly(0L, 3L, 4L);
        assertThat(FragmentRowIds.readInline(v5.getFragments(2))).isEqualTo(RowIdSequence.range(100, 115));
        assertThat(v5.getNextRowId()).isEqualTo(116);
        // an overwrite keeps the setting and continues next_row_id (as Lance)
        Manifest v6 = engine.commit(Transactions.overwrite(5, List.of(fragment("f.lance", 2)), SCHEMA, Map.of()))
                .block().manifest().manifest();
        assertThat(v6.getReaderFeatureFlags() & FeatureFlags.STABLE_ROW_IDS).isNotZero();
        assertThat(FragmentRowIds.readInline(v6.getFragments(0))).isEqualTo(RowIdSequence.range(116, 118));
    }
}
