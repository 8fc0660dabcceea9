package io.javelin.tx.transaction;

import io.javelin.encoding.pb.file.Field;
import io.javelin.tx.pb.DataFragment;
import io.javelin.tx.pb.IndexMetadata;
import io.javelin.tx.pb.Transaction;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Builders for the operations this engine commits, each with a fresh random uuid. Safe to call on any
 * thread (see {@link #newUuid()}).
 */
public final class Transactions {

    private Transactions() {
    }

    static Transaction.Builder base(long readVersion) {
        return Transaction.newBuilder().setReadVersion(readVersion).setUuid(newUuid());
    }

    /**
     * A random (version 4) UUID from {@link ThreadLocalRandom}: {@link UUID#randomUUID()} reads the OS
     * entropy pool and may block, which is not allowed on Reactor's non-blocking threads. Uniqueness, not
     * unpredictability, is what a transaction id needs.
     */
    public static String newUuid() {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        long hi = (r.nextLong() & ~0xF000L) | 0x4000L;
        long lo = (r.nextLong() & 0x3FFF_FFFF_FFFF_FFFFL) | 0x8000_0000_0000_0000L;
        return new UUID(hi, lo).toString();
    }

    /** New fragments keep {@code id = 0}; ids are assigned at commit from {@code max_fragment_id + 1}. */
    public static Transaction append(long readVersion, Collection<DataFragment> fragments) {
        return base(readVersion).setAppend(Transaction.Append.newBuilder().addAllFragments(fragments)).build();
    }

    /** {@code updated}: full fragment records with only the (cumulative) deletion file changed. */
    public static Transaction delete(long readVersion, Collection<DataFragment> updated, Collection<Long> deletedIds,
                                     String predicate) {
        return base(readVersion).setDelete(Transaction.Delete.newBuilder().addAllUpdatedFragments(updated)
                .addAllDeletedFragmentIds(deletedIds).setPredicate(predicate)).build();
    }

    /** Read version 0 creates the dataset. */
    public static Transaction overwrite(long readVersion, Collection<DataFragment> fragments, List<Field> schema,
                                        Map<String, String> configUpserts) {
        return base(readVersion).setOverwrite(Transaction.Overwrite.newBuilder().addAllFragments(fragments)
                .addAllSchema(schema).putAllConfigUpsertValues(configUpserts)).build();
    }

    public static Transaction update(long readVersion, Collection<Long> removedIds, Collection<DataFragment> updated,
                                     Collection<DataFragment> added, Collection<Integer> fieldsModified) {
        return base(readVersion).setUpdate(Transaction.Update.newBuilder().addAllRemovedFragmentIds(removedIds)
                .addAllUpdatedFragments(updated).addAllNewFragments(added).addAllFieldsModified(fieldsModified)).build();
    }

    public static Transaction reserveFragments(long readVersion, int count) {
        return base(readVersion).setReserveFragments(Transaction.ReserveFragments.newBuilder().setNumFragments(count)).build();
    }

    /** {@code value == null} deletes the key. */
    public static Transaction updateConfig(long readVersion, Map<String, String> changes) {
        Transaction.UpdateMap.Builder m = Transaction.UpdateMap.newBuilder();
        changes.forEach((k, v) -> {
            Transaction.UpdateMapEntry.Builder e = Transaction.UpdateMapEntry.newBuilder().setKey(k);
            if (v != null) {
                e.setValue(v);
            }
            m.addUpdateEntries(e);
        });
        return base(readVersion).setUpdateConfig(Transaction.UpdateConfig.newBuilder().setConfigUpdates(m)).build();
    }

    public static Transaction restore(long readVersion, long version) {
        return base(readVersion).setRestore(Transaction.Restore.newBuilder().setVersion(version)).build();
    }

    public static Transaction createIndex(long readVersion, Collection<IndexMetadata> added, Collection<IndexMetadata> removed) {
        return base(readVersion).setCreateIndex(Transaction.CreateIndex.newBuilder().addAllNewIndices(added)
                .addAllRemovedIndices(removed)).build();
    }

    /**
     * Merge: the complete new fragment list (same fragments, possibly with extra data files) and the new
     * schema. What adding a backfilled column or casting one commits.
     */
    public static Transaction merge(long readVersion, Collection<DataFragment> fragments, List<Field> schema,
                                    Map<String, com.google.protobuf.ByteString> schemaMetadata) {
        return base(readVersion).setMerge(Transaction.Merge.newBuilder().addAllFragments(fragments).addAllSchema(schema)
                .putAllSchemaMetadata(schemaMetadata)).build();
    }

    /** Project: a new schema only (drop, rename, nullability, all-null columns); data files untouched. */
    public static Transaction project(long readVersion, List<Field> schema) {
        return base(readVersion).setProject(Transaction.Project.newBuilder().addAllSchema(schema)).build();
    }

    /** DataReplacement: per fragment, a new data file replacing the one with the same {@code fields}. */
    public static Transaction dataReplacement(long readVersion, Map<Long, io.javelin.tx.pb.DataFile> byFragment) {
        Transaction.DataReplacement.Builder b = Transaction.DataReplacement.newBuilder();
        byFragment.forEach((id, f) -> b.addReplacements(Transaction.DataReplacementGroup.newBuilder().setFragmentId(id).setNewFile(f)));
        return base(readVersion).setDataReplacement(b).build();
    }

    /**
     * Update in Lance's REWRITE_ROWS mode (update and merge-insert): matched rows are deleted from their
     * fragments ({@code updated}: new deletion files; {@code removedIds}: fully deleted) and written again
     * in {@code added}; {@code fields_modified} stays empty because no data file is rewritten in place.
     */
    public static Transaction updateRows(long readVersion, Collection<Long> removedIds, Collection<DataFragment> updated,
                                         Collection<DataFragment> added, Collection<Integer> fieldsForPreservingFragBitmap) {
        return base(readVersion).setUpdate(Transaction.Update.newBuilder().addAllRemovedFragmentIds(removedIds)
                .addAllUpdatedFragments(updated).addAllNewFragments(added)
                .addAllFieldsForPreservingFragBitmap(fieldsForPreservingFragBitmap)
                .setUpdateMode(Transaction.UpdateMode.REWRITE_ROWS)).build();
    }

    /** Compaction: each group's old fragments (full records as read) replaced by new ones (id 0: assigned at commit). */
    public static Transaction rewrite(long readVersion, Collection<Transaction.Rewrite.RewriteGroup> groups) {
        return base(readVersion).setRewrite(Transaction.Rewrite.newBuilder().addAllGroups(groups)).build();
    }
}
