package io.javelin.tx.evolution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.javelin.encoding.pb.file.Field;
import io.javelin.tx.CommitConflictException;
import io.javelin.tx.InvalidTableMetadataException;
import io.javelin.tx.RetryableCommitConflictException;
import io.javelin.tx.commit.CommitEngine;
import io.javelin.tx.commit.CommitOptions;
import io.javelin.tx.commit.CommitResult;
import io.javelin.tx.deletion.DeletionFiles;
import io.javelin.tx.manifest.ManifestFile;
import io.javelin.tx.pb.DataFile;
import io.javelin.tx.pb.DataFragment;
import io.javelin.tx.pb.IndexMetadata;
import io.javelin.tx.pb.Manifest;
import io.javelin.tx.pb.Transaction;
import io.javelin.tx.store.InMemoryManifestStore;
import io.javelin.tx.transaction.ManifestBuilder;
import io.javelin.tx.transaction.Transactions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.roaringbitmap.RoaringBitmap;

/** Manifest effects of Merge / Project / DataReplacement / Update and their conflicts with racing commits. */
class EvolutionCommitTest {

    static final CommitOptions FAST = CommitOptions.defaults().withBackoff(Duration.ofMillis(1), Duration.ofMillis(20));

    static Field field(int id, int parent, String name, String type) {
        return Field.newBuilder().setId(id).setParentId(parent).setName(name).setLogicalType(type).setNullable(true).build();
    }

    static final List<Field> SCHEMA = List.of(field(0, -1, "id", "int64"), field(1, -1, "name", "string"));

    static DataFile file(String path, Integer... fields) {
        DataFile.Builder b = DataFile.newBuilder().setPath(path).setFileMajorVersion(2).setFileMinorVersion(1).setFileSizeBytes(100);
        for (int i = 0; i < fields.length; i++) {
            b.addFields(fields[i]).addColumnIndices(i);
        }
        return b.build();
    }

    static DataFragment fragment(String path, long rows) {
        return DataFragment.newBuilder().setPhysicalRows(rows).addFiles(file(path, 0, 1)).build();
    }

    /** v1: two fragments of 100 rows (ids 0, 1). */
    static ManifestFile create(CommitEngine engine) {
        return engine.commit(Transactions.overwrite(0, List.of(fragment("a.lance", 100), fragment("b.lance", 100)), SCHEMA, Map.of()))
                .block().manifest();
    }

    static List<Field> plus(List<Field> schema, Field... more) {
        List<Field> out = new ArrayList<>(schema);
        out.addAll(List.of(more));
        return out;
    }

    /** Merge adding field 2 as a new data file in every fragment. */
    static Transaction addColumn(ManifestFile base, String name) {
        List<DataFragment> frags = new ArrayList<>();
        for (DataFragment f : base.manifest().getFragmentsList()) {
            frags.add(f.toBuilder().addFiles(file(name + f.getId() + ".lance", EvolutionManifests.maxFieldId(base.manifest()) + 1)).build());
        }
        return Transactions.merge(base.version(), frags,
                plus(base.manifest().getFieldsList(), field(EvolutionManifests.maxFieldId(base.manifest()) + 1, -1, name, "double")), Map.of());
    }

    @Test
    void mergeAddsColumnsAndValidatesLikeLance() {
        CommitEngine engine = new CommitEngine(new InMemoryManifestStore(), FAST);
        ManifestFile v1 = create(engine);
        CommitResult v2 = engine.commit(addColumn(v1, "x")).block();
        Manifest m = v2.manifest().manifest();
        assertThat(m.getFieldsList()).extracting(Field::getName).containsExactly("id", "name", "x");
        assertThat(m.getFragments(0).getFilesList()).extracting(DataFile::getFieldsList).containsExactly(List.of(0, 1), List.of(2));
        assertThat(v2.manifest().transaction().hasMerge()).isTrue();
        // a Merge may not drop fragments or change their row counts
        Transaction shrink = Transactions.merge(2, List.of(m.getFragments(0)), m.getFieldsList(), Map.of());
        assertThatThrownBy(() -> engine.commit(shrink).block()).isInstanceOf(InvalidTableMetadataException.class)
                .hasMessageContaining("reduced fragment count");
        Transaction resize = Transactions.merge(2, List.of(m.getFragments(0).toBuilder().setPhysicalRows(5).build(), m.getFragments(1)),
                m.getFieldsList(), Map.of());
        assertThatThrownBy(() -> engine.commit(resize).block()).isInstanceOf(InvalidTableMetadataException.class)
                .hasMessageContaining("row count");
    }

    @Test
    void projectDropsFilesWithoutLiveFieldsAndIndicesOnDroppedFields() {
        InMemoryManifestStore store = new InMemoryManifestStore();
        CommitEngine engine = new CommitEngine(store, FAST);
        ManifestFile v1 = create(engine);
        ManifestFile v2 = engine.commit(addColumn(v1, "x")).block().manifest();
        IndexMetadata onX = IndexMetadata.newBuilder().setName("x_idx").addFields(2).build();
        IndexMetadata onId = IndexMetadata.newBuilder().setName("id_idx").addFields(0).build();
        ManifestFile v3 = engine.commit(Transactions.createIndex(2, List.of(onX, onId), List.of())).block().manifest();
        assertThat(v3.indexSection().getIndicesCount()).isEqualTo(2);
        // drop x: its file goes, the other keeps listing its fields verbatim
        ManifestFile v4 = engine.commit(Transactions.project(3, v1.manifest().getFieldsList())).block().manifest();
        assertThat(v4.manifest().getFragments(0).getFilesList()).extracting(DataFile::getFieldsList).containsExactly(List.of(0, 1));
        assertThat(v4.indexSection().getIndicesList()).extracting(IndexMetadata::getName).containsExactly("id_idx");
        // drop name: the file still lists id 1 (no tombstone), so max_field_id stays 1
        ManifestFile v5 = engine.commit(Transactions.project(4, List.of(SCHEMA.get(0)))).block().manifest();
        assertThat(v5.manifest().getFragments(0).getFiles(0).getFieldsList()).containsExactly(0, 1);
        assertThat(EvolutionManifests.maxFieldId(v5.manifest())).isEqualTo(1);
        assertThat(EvolutionManifests.maxFieldId(v2.manifest())).isEqualTo(2);
    }

    @Test
    void dataReplacementSwapsOrAddsFilesAndTombstonedFilesAreDropped() {
        CommitEngine engine = new CommitEngine(new InMemoryManifestStore(), FAST);
        ManifestFile v1 = create(engine);
        // all-null column 2 (schema only), then real data for fragment 0 only
        ManifestFile v2 = engine.commit(Transactions.project(1, plus(SCHEMA, field(2, -1, "x", "double")))).block().manifest();
        ManifestFile v3 = engine.commit(Transactions.dataReplacement(2, Map.of(0L, file("x0.lance", 2)))).block().manifest();
        assertThat(v3.manifest().getFragments(0).getFilesList()).extracting(DataFile::getPath).containsExactly("a.lance", "x0.lance");
        assertThat(v3.manifest().getFragments(1).getFilesList()).extracting(DataFile::getPath).containsExactly("b.lance");
        // replacing the same fields swaps the path
        ManifestFile v4 = engine.commit(Transactions.dataReplacement(3, Map.of(0L, file("x0b.lance", 2)))).block().manifest();
        assertThat(v4.manifest().getFragments(0).getFilesList()).extracting(DataFile::getPath).containsExactly("a.lance", "x0b.lance");
        // different field lists in one replacement are refused, as are missing fragments
        assertThatThrownBy(() -> engine.commit(Transactions.dataReplacement(4, Map.of(0L, file("p.lance", 2), 1L, file("q.lance", 0, 1))))
                .block()).isInstanceOf(InvalidTableMetadataException.class).hasMessageContaining("same fields");
        assertThatThrownBy(() -> engine.commit(Transactions.dataReplacement(4, Map.of(9L, file("p.lance", 2)))).block())
                .isInstanceOf(CommitConflictException.class);
        // Lance drops data files whose fields are all tombstoned (-2) on every commit
        DataFragment f0 = v4.manifest().getFragments(0);
        DataFragment tomb = f0.toBuilder().addFiles(file("dead.lance", -2, -2)).build();
        Manifest.Builder mb = v4.manifest().toBuilder().setFragments(0, tomb);
        EvolutionManifests.removeTombstonedDataFiles(mb);
        assertThat(mb.getFragments(0).getFilesList()).extracting(DataFile::getPath).containsExactly("a.lance", "x0b.lance");
        var built = ManifestBuilder.build(new ManifestFile(v4.manifest().toBuilder().setFragments(0, tomb).build(), v4.indexSection(),
                v4.transaction(), v4.size()), Transactions.reserveFragments(4, 1), null, Instant.now());
        assertThat(built.manifest().getFragments(0).getFilesList()).extracting(DataFile::getPath).containsExactly("a.lance", "x0b.lance");
    }

    // ------------------------------------------------------------------ racing pairs

    @Test
    void racingSchemaChangesFollowLancesMatrix() {
        CommitEngine engine = new CommitEngine(new InMemoryManifestStore(), FAST);
        ManifestFile v1 = create(engine);
        // Project after a concurrent Append: compatible, the appended fragment survives
        Transaction drop = Transactions.project(1, List.of(SCHEMA.get(0)));
        engine.commit(Transactions.append(1, List.of(fragment("c.lance", 10)))).block();
        CommitResult r = engine.commit(drop).block();
        assertThat(r.manifest().manifest().getFragmentsCount()).isEqualTo(3);
        assertThat(r.manifest().manifest().getFieldsCount()).isEqualTo(1);
        // Project after a concurrent Project: retryable (the schema must be recomputed)
        ManifestFile v3 = r.manifest();
        Transaction p1 = Transactions.project(3, plus(v3.manifest().getFieldsList(), field(2, -1, "x", "double")));
        Transaction p2 = Transactions.project(3, plus(v3.manifest().getFieldsList(), field(2, -1, "y", "double")));
        engine.commit(p1).block();
        assertThatThrownBy(() -> engine.commit(p2).block()).isInstanceOf(RetryableCommitConflictException.class);
        // Merge after a concurrent Append: retryable (the new fragment lacks the column)
        ManifestFile v4 = engine.commit(Transactions.reserveFragments(4, 0)).block().manifest();
        Transaction merge = addColumn(v4, "z");
        engine.commit(Transactions.append(5, List.of(fragment("d.lance", 10)))).block();
        assertThatThrownBy(() -> engine.commit(merge).block()).isInstanceOf(RetryableCommitConflictException.class);
        // Merge after a concurrent Project: incompatible
        ManifestFile v6 = engine.commit(Transactions.reserveFragments(6, 0)).block().manifest();
        Transaction merge2 = addColumn(v6, "w");
        engine.commit(Transactions.project(7, v6.manifest().getFieldsList())).block();
        assertThatThrownBy(() -> engine.commit(merge2).block()).isInstanceOf(CommitConflictException.class);
    }

    @Test
    void racingDataReplacements() {
        CommitEngine engine = new CommitEngine(new InMemoryManifestStore(), FAST);
        create(engine);
        engine.commit(Transactions.project(1, plus(SCHEMA, field(2, -1, "x", "double")))).block();
        Transaction a = Transactions.dataReplacement(2, Map.of(0L, file("xa.lance", 2)));
        Transaction b = Transactions.dataReplacement(2, Map.of(1L, file("xb.lance", 2)));
        Transaction c = Transactions.dataReplacement(2, Map.of(0L, file("xc.lance", 2)));
        engine.commit(a).block();
        CommitResult rb = engine.commit(b).block(); // other fragment: compatible
        assertThat(rb.manifest().manifest().getFragments(1).getFiles(1).getPath()).isEqualTo("xb.lance");
        assertThatThrownBy(() -> engine.commit(c).block()).isInstanceOf(RetryableCommitConflictException.class);
        // a DataReplacement after a concurrent Merge: compatible (Lance), applied on top
        ManifestFile v4 = rb.manifest();
        Transaction d = Transactions.dataReplacement(4, Map.of(1L, file("xd.lance", 2)));
        engine.commit(addColumn(v4, "m")).block();
        CommitResult rd = engine.commit(d).block();
        assertThat(rd.manifest().manifest().getFragments(1).getFilesList()).extracting(DataFile::getPath)
                .containsExactly("b.lance", "xd.lance", "m1.lance");
    }

    @Test
    void updateRebasesOverAConcurrentDeleteOfOtherRows() {
        InMemoryManifestStore store = new InMemoryManifestStore();
        CommitEngine engine = new CommitEngine(store, FAST);
        ManifestFile v1 = create(engine);
        DataFragment f0 = v1.manifest().getFragments(0);
        var mine = DeletionFiles.write(store, 0, 1, RoaringBitmap.bitmapOfRange(0, 10)).block();
        Transaction update = Transactions.updateRows(1, List.of(), List.of(f0.toBuilder().setDeletionFile(mine).build()),
                List.of(fragment("new.lance", 10)), List.of(1));
        var theirs = DeletionFiles.write(store, 0, 1, RoaringBitmap.bitmapOfRange(50, 60)).block();
        engine.commit(Transactions.delete(1, List.of(f0.toBuilder().setDeletionFile(theirs).build()), List.of(), "x")).block();
        CommitResult r = engine.commit(update).block();
        Manifest m = r.manifest().manifest();
        assertThat(r.manifest().transaction().getUpdate().getUpdateMode()).isEqualTo(Transaction.UpdateMode.REWRITE_ROWS);
        assertThat(m.getFragmentsList()).extracting(DataFragment::getId).containsExactly(0L, 1L, 2L);
        assertThat(DeletionFiles.read(store, m.getFragments(0)).block())
                .isEqualTo(RoaringBitmap.or(RoaringBitmap.bitmapOfRange(0, 10), RoaringBitmap.bitmapOfRange(50, 60)));
        // the same rows updated concurrently: retryable, never double-applied
        ManifestFile v3 = r.manifest();
        DataFragment g = v3.manifest().getFragments(1);
        var x = DeletionFiles.write(store, 1, 3, RoaringBitmap.bitmapOf(5)).block();
        Transaction u1 = Transactions.updateRows(3, List.of(), List.of(g.toBuilder().setDeletionFile(x).build()),
                List.of(fragment("u1.lance", 1)), List.of());
        Transaction u2 = Transactions.updateRows(3, List.of(), List.of(g.toBuilder().setDeletionFile(x).build()),
                List.of(fragment("u2.lance", 1)), List.of());
        engine.commit(u1).block();
        assertThatThrownBy(() -> engine.commit(u2).block()).isInstanceOf(RetryableCommitConflictException.class);
        // an Update racing a Merge: retryable, as in Lance
        ManifestFile v4 = engine.commit(Transactions.reserveFragments(4, 0)).block().manifest();
        Transaction u3 = Transactions.updateRows(5, List.of(3L), List.of(), List.of(fragment("u3.lance", 1)), List.of());
        engine.commit(addColumn(v4, "q")).block();
        assertThatThrownBy(() -> engine.commit(u3).block()).isInstanceOf(RetryableCommitConflictException.class);
    }
}
