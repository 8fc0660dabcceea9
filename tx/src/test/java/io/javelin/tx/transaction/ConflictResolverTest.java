package io.javelin.tx.transaction;

import static io.javelin.tx.transaction.Resolution.Outcome.COMPATIBLE;
import static io.javelin.tx.transaction.Resolution.Outcome.INCOMPATIBLE;
import static io.javelin.tx.transaction.Resolution.Outcome.REBASE;
import static io.javelin.tx.transaction.Resolution.Outcome.RETRYABLE;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.javelin.tx.pb.BasePath;
import io.javelin.tx.pb.DataFile;
import io.javelin.tx.pb.DataFragment;
import io.javelin.tx.pb.DeletionFile;
import io.javelin.tx.pb.IndexMetadata;
import io.javelin.tx.pb.Transaction;
import java.nio.ByteBuffer;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.roaringbitmap.RoaringBitmap;

class ConflictResolverTest {

    /** One minimal, non-overlapping transaction of every kind. */
    static Map<OperationKind, Transaction> samples() {
        Map<OperationKind, Transaction> m = new EnumMap<>(OperationKind.class);
        m.put(OperationKind.APPEND, t().setAppend(Transaction.Append.newBuilder().addFragments(frag(0, false))).build());
        m.put(OperationKind.DELETE, t().setDelete(Transaction.Delete.newBuilder().addUpdatedFragments(frag(1, true))).build());
        m.put(OperationKind.OVERWRITE, t().setOverwrite(Transaction.Overwrite.newBuilder().addFragments(frag(0, false))).build());
        m.put(OperationKind.CREATE_INDEX, t().setCreateIndex(Transaction.CreateIndex.newBuilder().addNewIndices(index("i", 9, 0))).build());
        m.put(OperationKind.REWRITE, t().setRewrite(Transaction.Rewrite.newBuilder().addGroups(Transaction.Rewrite.RewriteGroup
                .newBuilder().addOldFragments(frag(3, false)).addNewFragments(frag(0, false)))).build());
        m.put(OperationKind.MERGE, t().setMerge(Transaction.Merge.getDefaultInstance()).build());
        m.put(OperationKind.RESTORE, t().setRestore(Transaction.Restore.newBuilder().setVersion(1)).build());
        m.put(OperationKind.RESERVE_FRAGMENTS, t().setReserveFragments(Transaction.ReserveFragments.newBuilder().setNumFragments(2)).build());
        m.put(OperationKind.UPDATE, t().setUpdate(Transaction.Update.newBuilder().addUpdatedFragments(frag(4, true))).build());
        m.put(OperationKind.PROJECT, t().setProject(Transaction.Project.getDefaultInstance()).build());
        m.put(OperationKind.UPDATE_CONFIG, Transactions.updateConfig(1, Map.of("k" + System.nanoTime(), "v")));
        m.put(OperationKind.DATA_REPLACEMENT, t().setDataReplacement(Transaction.DataReplacement.newBuilder().addReplacements(
                Transaction.DataReplacementGroup.newBuilder().setFragmentId(5).setNewFile(DataFile.newBuilder().addFields(7)))).build());
        m.put(OperationKind.UPDATE_MEM_WAL_STATE, t().setUpdateMemWalState(Transaction.UpdateMemWalState.getDefaultInstance()).build());
        m.put(OperationKind.CLONE, t().setClone(Transaction.Clone.getDefaultInstance()).build());
        m.put(OperationKind.UPDATE_BASES, t().setUpdateBases(Transaction.UpdateBases.newBuilder().addNewBases(
                BasePath.newBuilder().setPath("s3://b/" + System.nanoTime()))).build());
        m.put(OperationKind.DATA_OVERLAY, t().setDataOverlay(Transaction.DataOverlay.getDefaultInstance()).build());
        m.put(OperationKind.UNKNOWN, t().build());
        return m;
    }

    @Test
    void everyPairHasAVerdict() {
        Map<OperationKind, Transaction> s = samples();
        assertThat(s).hasSize(OperationKind.values().length);
        int pairs = 0;
        for (OperationKind mine : OperationKind.values()) {
            for (OperationKind theirs : OperationKind.values()) {
                Resolution r = ConflictResolver.check(s.get(mine), s.get(theirs));
                assertThat(r).as(mine + " vs " + theirs).isNotNull();
                String cell = ConflictResolver.cell(mine, theirs);
                switch (cell) {
                    case "." -> assertThat(r.outcome()).as(mine + " vs " + theirs).isEqualTo(COMPATIBLE);
                    case "X" -> assertThat(r.outcome()).as(mine + " vs " + theirs).isEqualTo(INCOMPATIBLE);
                    case "T" -> assertThat(r.outcome()).as(mine + " vs " + theirs).isEqualTo(RETRYABLE);
                    // the samples touch disjoint fragments, so overlap cells are compatible
                    case "Ro", "To" -> assertThat(r.outcome()).as(mine + " vs " + theirs)
                            .isEqualTo(mine != theirs ? COMPATIBLE : cell.equals("Ro") ? REBASE : RETRYABLE);
                    default -> assertThat(r.outcome()).as(mine + " vs " + theirs).isNotNull();
                }
                pairs++;
            }
        }
        assertThat(pairs).isEqualTo(17 * 17);
    }

    @Test
    void unknownAndOverlayOperationsAreIncompatibleBothWays() {
        Map<OperationKind, Transaction> s = samples();
        for (OperationKind k : OperationKind.values()) {
            for (OperationKind bad : List.of(OperationKind.UNKNOWN, OperationKind.DATA_OVERLAY)) {
                assertThat(ConflictResolver.check(s.get(k), s.get(bad)).outcome()).isEqualTo(INCOMPATIBLE);
                assertThat(ConflictResolver.check(s.get(bad), s.get(k)).outcome()).isEqualTo(INCOMPATIBLE);
            }
        }
    }

    /** The rows this engine commits, cell by cell against the digest's table. */
    @Test
    void matrixRowsOfCommittedOperations() {
        String[] cols = {"APPEND", "DELETE", "UPDATE", "OVERWRITE", "CREATE_INDEX", "REWRITE", "MERGE", "PROJECT", "RESTORE",
            "RESERVE_FRAGMENTS", "UPDATE_CONFIG", "DATA_REPLACEMENT", "UPDATE_MEM_WAL_STATE", "CLONE", "UPDATE_BASES"};
        Map<String, String> rows = Map.of(
                "APPEND", ". . . X . . . . X . . . X . .",
                "DELETE", ". Ro Ro X . To T . X . . To X . .",
                "UPDATE", ". Ro Ro X . To T . X . . To 4 . .",
                "OVERWRITE", ". . . 2 . . . . . . 2 . X . .",
                "RESTORE", ". . . . . . . . . . . . X . .",
                "RESERVE_FRAGMENTS", ". . . X . . . . X . . . . . .",
                "UPDATE_CONFIG", ". . . 6 . . . . . . 6 . . . .",
                "CREATE_INDEX", ". . . X 3 3 . . X . . 5 X . .");
        rows.forEach((row, cells) -> {
            String[] c = cells.split(" ");
            for (int i = 0; i < cols.length; i++) {
                assertThat(ConflictResolver.cell(OperationKind.valueOf(row), OperationKind.valueOf(cols[i])))
                        .as(row + " vs " + cols[i]).isEqualTo(c[i]);
            }
        });
    }

    @Test
    void appendIsCompatibleWithAppendButNotWithOverwriteOrRestore() {
        Map<OperationKind, Transaction> s = samples();
        Transaction a = s.get(OperationKind.APPEND);
        assertThat(ConflictResolver.check(a, Transactions.append(1, List.of(frag(0, false)))).outcome()).isEqualTo(COMPATIBLE);
        assertThat(ConflictResolver.check(a, s.get(OperationKind.OVERWRITE)).outcome()).isEqualTo(INCOMPATIBLE);
        assertThat(ConflictResolver.check(a, s.get(OperationKind.RESTORE)).outcome()).isEqualTo(INCOMPATIBLE);
        assertThat(ConflictResolver.check(s.get(OperationKind.OVERWRITE), s.get(OperationKind.OVERWRITE)).outcome()).isEqualTo(RETRYABLE);
        // but Overwrite after an Append is fine: it replaces everything anyway
        assertThat(ConflictResolver.check(s.get(OperationKind.OVERWRITE), a).outcome()).isEqualTo(COMPATIBLE);
    }

    @Test
    void deleteVersusDelete() {
        Transaction mine = Transactions.delete(1, List.of(frag(1, true)), List.of(), "x");
        assertThat(ConflictResolver.check(mine, Transactions.delete(1, List.of(frag(2, true)), List.of(), "y")).outcome())
                .isEqualTo(COMPATIBLE);
        assertThat(ConflictResolver.check(mine, Transactions.delete(1, List.of(frag(1, true)), List.of(), "y")).outcome())
                .isEqualTo(REBASE);
        assertThat(ConflictResolver.check(mine, Transactions.delete(1, List.of(), List.of(1L), "y")).outcome())
                .isEqualTo(RETRYABLE);
        DataFragment rewritten = frag(1, true).toBuilder().setFiles(0, DataFile.newBuilder().setPath("other.lance").addFields(0)).build();
        assertThat(ConflictResolver.check(mine, Transactions.update(1, List.of(), List.of(rewritten), List.of(), List.of(0))).outcome())
                .isEqualTo(RETRYABLE);
        assertThat(ConflictResolver.check(mine, Transactions.update(1, List.of(), List.of(frag(1, true)), List.of(), List.of())).outcome())
                .isEqualTo(REBASE);
        Transaction compaction = samples().get(OperationKind.REWRITE); // rewrites fragment 3
        assertThat(ConflictResolver.check(Transactions.delete(1, List.of(frag(3, true)), List.of(), ""), compaction).outcome())
                .isEqualTo(RETRYABLE);
        assertThat(ConflictResolver.check(mine, compaction).outcome()).isEqualTo(COMPATIBLE);
    }

    @Test
    void updateConfigKeys() {
        Transaction a = Transactions.updateConfig(1, Map.of("a", "1"));
        assertThat(ConflictResolver.check(a, Transactions.updateConfig(1, Map.of("b", "2"))).outcome()).isEqualTo(COMPATIBLE);
        assertThat(ConflictResolver.check(a, Transactions.updateConfig(1, Map.of("a", "2"))).outcome()).isEqualTo(INCOMPATIBLE);
        Transaction ow = Transactions.overwrite(1, List.of(frag(0, false)), List.of(), Map.of("a", "x"));
        assertThat(ConflictResolver.check(a, ow).outcome()).isEqualTo(INCOMPATIBLE);
        assertThat(ConflictResolver.check(ow, a).outcome()).isEqualTo(INCOMPATIBLE);
        Transaction ow2 = Transactions.overwrite(1, List.of(frag(0, false)), List.of(), Map.of("z", "x"));
        assertThat(ConflictResolver.check(a, ow2).outcome()).isEqualTo(COMPATIBLE);
        assertThat(ConflictResolver.check(ow2, a).outcome()).isEqualTo(COMPATIBLE);
    }

    @Test
    void createIndexVersusRewriteDependsOnCoverage() {
        Transaction rewrite = samples().get(OperationKind.REWRITE); // old fragment 3
        Transaction covers = Transactions.createIndex(1, List.of(index("a", 0, 3)), List.of());
        Transaction elsewhere = Transactions.createIndex(1, List.of(index("b", 0, 1)), List.of());
        Transaction unknown = Transactions.createIndex(1, List.of(IndexMetadata.newBuilder().setName("c").build()), List.of());
        assertThat(ConflictResolver.check(covers, rewrite).outcome()).isEqualTo(RETRYABLE);
        assertThat(ConflictResolver.check(rewrite, covers).outcome()).isEqualTo(RETRYABLE);
        assertThat(ConflictResolver.check(elsewhere, rewrite).outcome()).isEqualTo(COMPATIBLE);
        assertThat(ConflictResolver.check(unknown, rewrite).outcome()).isEqualTo(RETRYABLE);
        Transaction fri = Transactions.createIndex(1, List.of(index("__lance_frag_reuse", 0, 1)), List.of());
        assertThat(ConflictResolver.check(fri, fri).outcome()).isEqualTo(RETRYABLE);
        assertThat(ConflictResolver.check(covers, elsewhere).outcome()).isEqualTo(COMPATIBLE);
        Transaction replace = samples().get(OperationKind.DATA_REPLACEMENT); // field 7
        assertThat(ConflictResolver.check(Transactions.createIndex(1, List.of(index("f", 7, 1)), List.of()), replace).outcome())
                .isEqualTo(RETRYABLE);
        assertThat(ConflictResolver.check(elsewhere, replace).outcome()).isEqualTo(COMPATIBLE);
    }

    @Test
    void updateBasesClashes() {
        Transaction a = t().setUpdateBases(Transaction.UpdateBases.newBuilder().addNewBases(BasePath.newBuilder().setId(2).setPath("s3://a"))).build();
        Transaction samePath = t().setUpdateBases(Transaction.UpdateBases.newBuilder().addNewBases(BasePath.newBuilder().setPath("s3://a"))).build();
        Transaction sameId = t().setUpdateBases(Transaction.UpdateBases.newBuilder().addNewBases(BasePath.newBuilder().setId(2).setPath("s3://b"))).build();
        Transaction other = t().setUpdateBases(Transaction.UpdateBases.newBuilder().addNewBases(BasePath.newBuilder().setPath("s3://c"))).build();
        assertThat(ConflictResolver.check(a, samePath).outcome()).isEqualTo(INCOMPATIBLE);
        assertThat(ConflictResolver.check(a, sameId).outcome()).isEqualTo(INCOMPATIBLE);
        assertThat(ConflictResolver.check(a, other).outcome()).isEqualTo(COMPATIBLE);
    }

    static Transaction.Builder t() {
        return Transaction.newBuilder().setReadVersion(1).setUuid("00000000-0000-4000-8000-000000000000");
    }

    static DataFragment frag(long id, boolean deletion) {
        DataFragment.Builder b = DataFragment.newBuilder().setId(id).setPhysicalRows(100)
                .addFiles(DataFile.newBuilder().setPath("f" + id + ".lance").addFields(0).addColumnIndices(0)
                        .setFileMajorVersion(2).setFileMinorVersion(1));
        if (deletion) {
            b.setDeletionFile(DeletionFile.newBuilder().setNumDeletedRows(1).setReadVersion(1).setId(id));
        }
        return b.build();
    }

    static IndexMetadata index(String name, int field, int fragment) {
        RoaringBitmap rb = RoaringBitmap.bitmapOf(fragment);
        ByteBuffer buf = ByteBuffer.allocate(rb.serializedSizeInBytes());
        rb.serialize(buf);
        return IndexMetadata.newBuilder().setName(name).addFields(field).setFragmentBitmap(ByteString.copyFrom(buf.array())).build();
    }
}
