package io.javelin.tx.tree;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.javelin.encoding.pb.file.Field;
import io.javelin.objectstore.OpClass;
import io.javelin.objectstore.inmemory.InMemoryObjectStore;
import io.javelin.tx.FragmentInfo;
import io.javelin.tx.InvalidTableMetadataException;
import io.javelin.tx.Snapshot;
import io.javelin.tx.Table;
import io.javelin.tx.commit.CommitEngine;
import io.javelin.tx.commit.CommitOptions;
import io.javelin.tx.manifest.FeatureFlags;
import io.javelin.tx.pb.DataFile;
import io.javelin.tx.pb.DataFragment;
import io.javelin.tx.pb.DeletionFile;
import io.javelin.tx.pb.Manifest;
import io.javelin.tx.pb.Transaction;
import io.javelin.tx.store.ManifestStore;
import io.javelin.tx.store.ObjectStoreManifestStore;
import io.javelin.tx.store.StoreEntry;
import io.javelin.tx.transaction.Transactions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** Tree tables through the real commit engine and table opening, on an in-memory object store. */
class TreeTableTest {

    static final CommitOptions FAST = CommitOptions.defaults().withBackoff(Duration.ofMillis(1), Duration.ofMillis(20));
    static final List<Field> SCHEMA = List.of(Field.newBuilder().setName("id").setId(0).setParentId(-1)
            .setLogicalType("int64").build());
    /** Small objects so that a few thousand fragments give a tree of height >= 2 with an external root. */
    static final Map<String, String> SMALL = Map.of(TreeTables.LAYOUT_KEY, "tree",
            "lance.fragment_metadata.max_leaf_bytes", "8000", "lance.fragment_metadata.max_node_bytes", "4000",
            "lance.fragment_metadata.semantic_buffer_bytes", "1500", "lance.fragment_metadata.inline_manifest_budget", "0",
            "lance.fragment_metadata.publication_suffix_budget", "2000", TreeConfig.FAN_OUT_KEY, "4");

    /** A ManifestStore over an InMemoryObjectStore that logs every read and list path. */
    static final class Recording implements ManifestStore {
        final InMemoryObjectStore objects = InMemoryObjectStore.createIsolated();
        final ObjectStoreManifestStore inner = new ObjectStoreManifestStore(objects, "");
        final Queue<String> reads = new ConcurrentLinkedQueue<>();
        final Queue<String> writes = new ConcurrentLinkedQueue<>();
        final Queue<String> lists = new ConcurrentLinkedQueue<>();

        void reset() {
            reads.clear();
            writes.clear();
            lists.clear();
        }

        long objectReads() {
            return objects.counters().requests(OpClass.READ);
        }

        long objectLists() {
            return objects.counters().requests(OpClass.LIST);
        }

        List<String> reads(String prefix) {
            return reads.stream().filter(p -> p.startsWith(prefix)).toList();
        }

        @Override
        public Mono<byte[]> read(String path) {
            reads.add(path);
            return inner.read(path);
        }

        @Override
        public Mono<Void> put(String path, byte[] bytes) {
            writes.add(path);
            return inner.put(path, bytes);
        }

        @Override
        public Mono<Void> putIfAbsent(String path, byte[] bytes) {
            writes.add(path);
            return inner.putIfAbsent(path, bytes);
        }

        @Override
        public Flux<StoreEntry> list(String prefix) {
            lists.add(prefix);
            return inner.list(prefix);
        }

        @Override
        public Mono<Void> delete(String path) {
            return inner.delete(path);
        }

        @Override
        public boolean listsInLexicalOrder() {
            return inner.listsInLexicalOrder();
        }
    }

    static DataFragment fragment(String file, long rows) {
        return DataFragment.newBuilder().setPhysicalRows(rows).addFiles(DataFile.newBuilder().setPath(file).addFields(0)
                .addColumnIndices(0).setFileMajorVersion(2).setFileMinorVersion(1).setFileSizeBytes(1000)).build();
    }

    static List<DataFragment> fragments(String prefix, int n) {
        List<DataFragment> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(fragment(prefix + "-" + i + "-0123456789abcdef0123456789.lance", 100 + i % 13));
        }
        return out;
    }

    static DataFragment deleting(FragmentInfo f, long rows, long version) {
        return f.fragment().toBuilder().setDeletionFile(DeletionFile.newBuilder()
                .setFileType(DeletionFile.DeletionFileType.ARROW_ARRAY).setReadVersion(version).setId(version * 31 + f.id())
                .setNumDeletedRows(rows)).build();
    }

    static List<DataFragment> list(Table t, long version) {
        Snapshot s = t.checkout(version).block();
        return s.loadFragments().block().stream().map(FragmentInfo::fragment).toList();
    }

    /** One random history applied to a flat and a tree table (the step function gets the latest snapshot). */
    static void history(CommitEngine engine, Table table, Map<String, String> config, int appends) {
        engine.commit(Transactions.overwrite(0, fragments("c", 5), SCHEMA, config)).block();
        for (int i = 0; i < appends; i++) {
            long v = table.open().block().version();
            engine.commit(Transactions.append(v, fragments("a" + i, 1 + i % 3))).block();
            if (i % 3 == 2) {
                Snapshot s = table.open().block();
                List<FragmentInfo> all = s.loadFragments().block();
                FragmentInfo target = all.get(i % all.size());
                FragmentInfo gone = all.get((i + 1) % all.size());
                engine.commit(Transactions.delete(s.version(), List.of(deleting(target, 3, s.version())),
                        List.of(gone.id()), "x > 1")).block();
            }
        }
    }

    @Test
    void treeTableMatchesFlatTableAtEveryVersion() {
        Recording flatStore = new Recording();
        Recording treeStore = new Recording();
        Table flat = new Table(flatStore);
        Table tree = new Table(treeStore);
        history(new CommitEngine(flatStore, FAST), flat, Map.of(), 12);
        history(new CommitEngine(treeStore, FAST), tree, SMALL, 12);
        long latest = tree.open().block().version();
        assertThat(flat.open().block().version()).isEqualTo(latest);
        for (long v = 1; v <= latest; v++) {
            Snapshot t = tree.checkout(v).block();
            Manifest m = t.manifestFile().manifest();
            assertThat(m.hasFragmentTree()).isTrue();
            assertThat(m.getFragmentsCount()).isZero();
            assertThat(m.getReaderFeatureFlags() & FeatureFlags.FRAGMENT_TREE).isNotZero();
            assertThat(m.getWriterFeatureFlags() & FeatureFlags.FRAGMENT_TREE).isNotZero();
            assertThat(list(tree, v)).as("version %d", v).isEqualTo(list(flat, v));
            assertThat(t.countRows()).isEqualTo(flat.checkout(v).block().countRows());
            assertThat(t.catalog().fragmentCount()).isEqualTo(flat.checkout(v).block().fragments().size());
        }
        assertThat(treeStore.writes.stream().anyMatch(p -> p.startsWith("_bt/leaf/"))).isTrue();
    }

    @Test
    void flatTableConvertsInPlaceAndKeepsItsHistory() {
        Recording store = new Recording();
        Table table = new Table(store);
        CommitEngine engine = new CommitEngine(store, FAST);
        history(engine, table, Map.of(), 6);
        long last = table.open().block().version();
        Map<Long, List<DataFragment>> before = new HashMap<>();
        for (long v = 1; v <= last; v++) {
            before.put(v, list(table, v));
        }
        store.reset();
        engine.commit(Transactions.updateConfig(last, Map.of(TreeTables.LAYOUT_KEY, "tree"))).block();
        assertThat(store.writes.stream().filter(p -> p.startsWith("_bt/")).toList()).isNotEmpty();
        Snapshot converted = table.open().block();
        assertThat(converted.version()).isEqualTo(last + 1);
        assertThat(converted.manifestFile().manifest().hasFragmentTree()).isTrue();
        assertThat(list(table, last + 1)).isEqualTo(before.get(last));
        for (long v = 1; v <= last; v++) {
            assertThat(table.checkout(v).block().manifestFile().manifest().hasFragmentTree()).isFalse();
            assertThat(list(table, v)).isEqualTo(before.get(v));
        }
        // The converted table keeps committing as a tree, and cannot flip back in place.
        engine.commit(Transactions.append(last + 1, fragments("after", 2))).block();
        assertThat(list(table, last + 2)).hasSize(before.get(last).size() + 2);
        assertThatThrownBy(() -> engine.commit(Transactions.updateConfig(last + 2, Map.of(TreeTables.LAYOUT_KEY, "flat")))
                .block()).isInstanceOf(InvalidTableMetadataException.class);
        assertThatThrownBy(() -> engine.commit(Transactions.overwrite(0, fragments("x", 1), SCHEMA,
                Map.of(TreeTables.LAYOUT_KEY, "bogus"))).block()).isInstanceOf(InvalidTableMetadataException.class);
    }

    @Test
    void restoreReusesTheRestoredRootAndWritesNoTreeObject() {
        Recording store = new Recording();
        Table table = new Table(store);
        CommitEngine engine = new CommitEngine(store, FAST);
        engine.commit(Transactions.overwrite(0, fragments("c", 300), SCHEMA, SMALL)).block();
        engine.commit(Transactions.append(1, fragments("a", 4))).block();
        engine.commit(Transactions.append(2, fragments("b", 4))).block();
        Manifest v2 = table.checkout(2).block().manifestFile().manifest();
        store.reset();
        engine.commit(Transactions.restore(3, 2)).block();
        assertThat(store.writes.stream().filter(p -> p.startsWith("_bt/")).toList()).isEmpty();
        Manifest v4 = table.checkout(4).block().manifestFile().manifest();
        assertThat(v4.getFragmentTree().getTree().getRootUuid()).isEqualTo(v2.getFragmentTree().getTree().getRootUuid());
        assertThat(v4.getFragmentTree().getTree().getNextActionSequence())
                .isEqualTo(table.checkout(3).block().manifestFile().manifest().getFragmentTree().getTree()
                        .getNextActionSequence());
        assertThat(list(table, 4)).isEqualTo(list(table, 2));
        assertThat(v4.getMaxFragmentId()).isEqualTo(table.checkout(3).block().manifestFile().manifest().getMaxFragmentId());
        // the next append after a restore allocates fresh ids and lands
        engine.commit(Transactions.append(4, fragments("d", 1))).block();
        assertThat(list(table, 5)).hasSize(305);
    }

    /** A tree table of {@code n} fragments with an external root and height >= 2. */
    static Recording deepTable(int n) {
        Recording store = new Recording();
        new CommitEngine(store, FAST).commit(Transactions.overwrite(0, fragments("c", n), SCHEMA, SMALL)).block();
        TreeSnapshot t = TreeTables.open(store, new Table(store).open().block().manifestFile().manifest()).block();
        assertThat(t.height()).isGreaterThanOrEqualTo(2);
        assertThat(t.rootLocation).isNotNull();
        return store;
    }

    @Test
    void openingANamedVersionReadsAtMostThreeObjectsAndNeverLists() {
        Recording store = deepTable(2000);
        store.reset();
        long reads = store.objectReads();
        long lists = store.objectLists();
        Snapshot s = new Table(store).checkout(1).block();
        assertThat(s.countRows()).isPositive();
        assertThat(s.catalog().fragmentCount()).isEqualTo(2000);
        assertThat(store.objectReads() - reads).isLessThanOrEqualTo(3);
        assertThat(store.objectLists() - lists).isZero();
        assertThat(store.lists).isEmpty();
        assertThat(store.reads("_bt/node/")).isEmpty();
        assertThat(store.reads("_bt/leaf/")).isEmpty();
        // the create transaction (2000 fragments) lives only in _transactions/: the manifest stays small
        assertThat(s.manifestFile().transaction()).isNull();
        assertThat(s.manifestFile().size()).isLessThan(8_000);
        assertThat(store.inner.read("_transactions/" + s.manifestFile().manifest().getTransactionFile()).block()).isNotEmpty();
    }

    @Test
    void appendUnderADeepTreeReadsNoNodeOrLeaf() {
        Recording store = deepTable(2000);
        CommitEngine engine = new CommitEngine(store, FAST);
        store.reset();
        engine.commit(Transactions.append(1, fragments("n", 1))).block();
        assertThat(store.reads("_bt/node/")).isEmpty();
        assertThat(store.reads("_bt/leaf/")).isEmpty();
        assertThat(store.writes.stream().filter(p -> p.startsWith("_bt/")).toList())
                .as("the suffix has room: no tree object is written").isEmpty();
        assertThat(store.reads).hasSizeLessThanOrEqualTo(2); // read manifest + external root
        assertThat(new Table(store).open().block().catalog().fragmentCount()).isEqualTo(2001);
    }

    @Test
    void deletingOneRowAt4096FragmentsReadsOnlyItsRoutingPath() {
        Recording store = deepTable(4096);
        Table table = new Table(store);
        CommitEngine engine = new CommitEngine(store, FAST);
        TreeSnapshot t = TreeTables.open(store, table.open().block().manifestFile().manifest()).block();
        Snapshot s = table.open().block();
        FragmentInfo target = FragmentInfo.of(t.resolve(1234).block().orElseThrow());
        store.reset();
        TreeTables.LEAVES.clear(); // cold: the resolve above would otherwise serve the commit from the cache
        engine.commit(Transactions.delete(1, List.of(deleting(target, 1, 1)), List.of(), "id = 1")).block();
        assertThat(store.reads("_bt/leaf/")).hasSize(1);
        assertThat(store.reads("_bt/node/")).hasSize(t.height() - 1);
        assertThat(store.reads("_bt/root/")).hasSize(1);
        FragmentInfo after = table.open().block().catalog().resolve(List.of(1234L)).block().get(1234L);
        assertThat(after.deletedRows()).isEqualTo(1);
        assertThat(table.open().block().countRows()).isEqualTo(s.countRows() - 1);
    }

    /** The batchable backfill: an all-NULL column (Project), then DataReplacement commits of 10 fragments. */
    @Test
    void backfillCommitsReadOnlyTheNamedFragmentsRoutingPaths() {
        Recording store = deepTable(4096);
        Table table = new Table(store);
        CommitEngine engine = new CommitEngine(store, FAST);
        TreeSnapshot t = TreeTables.open(store, table.open().block().manifestFile().manifest()).block();
        List<Field> schema = new ArrayList<>(SCHEMA);
        schema.add(Field.newBuilder().setName("filled").setId(1).setParentId(-1).setLogicalType("int64").build());
        store.reset();
        TreeTables.LEAVES.clear();
        long v = engine.commit(Transactions.project(1, schema)).block().version();
        assertThat(store.reads("_bt/leaf/")).as("an additive Project touches no fragment record").isEmpty();
        assertThat(store.reads("_bt/node/")).isEmpty();
        for (int batch = 0; batch < 3; batch++) {
            Map<Long, DataFile> files = new java.util.LinkedHashMap<>();
            for (long id = 1000 + 10L * batch; id < 1010 + 10L * batch; id++) {
                files.put(id, DataFile.newBuilder().setPath("b-" + id + ".lance").addFields(1).addColumnIndices(0)
                        .setFileMajorVersion(2).setFileMinorVersion(1).setFileSizeBytes(10).build());
            }
            store.reset();
            TreeTables.LEAVES.clear();
            v = engine.commit(Transactions.dataReplacement(v, files)).block().version();
            // 10 consecutive ids span at most two leaves; never a listing of the 4096 fragments
            assertThat(store.reads("_bt/leaf/")).hasSizeBetween(1, 2);
            assertThat(store.reads("_bt/node/").size()).isLessThanOrEqualTo(2 * (t.height() - 1));
        }
        Map<Long, FragmentInfo> after = table.open().block().catalog().resolve(List.of(999L, 1000L, 1029L, 1030L)).block();
        assertThat(after.get(1000L).fragment().getFilesList()).extracting(DataFile::getPath)
                .endsWith("b-1000.lance");
        assertThat(after.get(1029L).fragment().getFilesCount()).isEqualTo(2);
        assertThat(after.get(999L).fragment().getFilesCount()).isEqualTo(1);
        assertThat(after.get(1030L).fragment().getFilesCount()).isEqualTo(1);
        assertThat(table.open().block().manifestFile().manifest().getFieldsCount()).isEqualTo(2);
    }

    @Test
    void concurrentDeletesOfOneFragmentRebaseThroughTheTree() {
        Recording store = deepTable(600);
        Table table = new Table(store);
        CommitEngine engine = new CommitEngine(store, FAST);
        FragmentInfo f = table.open().block().catalog().resolve(List.of(300L)).block().get(300L);
        org.roaringbitmap.RoaringBitmap one = org.roaringbitmap.RoaringBitmap.bitmapOf(1);
        org.roaringbitmap.RoaringBitmap two = org.roaringbitmap.RoaringBitmap.bitmapOf(2);
        DeletionFile a = io.javelin.tx.deletion.DeletionFiles.write(store, 300, 1, one).block();
        DeletionFile b = io.javelin.tx.deletion.DeletionFiles.write(store, 300, 1, two).block();
        Transaction ta = Transactions.delete(1, List.of(f.fragment().toBuilder().setDeletionFile(a).build()), List.of(), "a");
        Transaction tb = Transactions.delete(1, List.of(f.fragment().toBuilder().setDeletionFile(b).build()), List.of(), "b");
        engine.commit(ta).block();
        assertThat(engine.commit(tb).block().version()).isEqualTo(3);
        FragmentInfo after = table.open().block().catalog().resolve(List.of(300L)).block().get(300L);
        assertThat(after.deletedRows()).isEqualTo(2);
        assertThat(table.open().block().deletions(after).block().toArray()).containsExactly(1, 2);
    }

    @Test
    void cleanupPlanKeepsWhatRetainedVersionsReachAndOffersTheRest() {
        Recording store = deepTable(1000);
        Table table = new Table(store);
        CommitEngine engine = new CommitEngine(store, FAST);
        for (int i = 0; i < 12; i++) {
            long v = table.open().block().version();
            engine.commit(Transactions.append(v, fragments("g" + i, 20))).block();
        }
        List<Manifest> all = new ArrayList<>();
        long latest = table.open().block().version();
        for (long v = 1; v <= latest; v++) {
            all.add(table.checkout(v).block().manifestFile().manifest());
        }
        TreeCleanup.Plan everything = TreeCleanup.plan(store, all).block();
        assertThat(everything.unreachableTreeObjects()).isEmpty();
        TreeCleanup.Plan newest = TreeCleanup.plan(store, List.of(all.getLast())).block();
        assertThat(newest.unreachableTreeObjects()).isNotEmpty().doesNotContainAnyElementsOf(newest.keepTreeObjects());
        java.util.Set<String> union = new java.util.TreeSet<>(newest.keepTreeObjects());
        union.addAll(newest.unreachableTreeObjects());
        assertThat(union).isEqualTo(new java.util.TreeSet<>(everything.keepTreeObjects()));
        assertThat(newest.referencedFiles()).hasSize(1000 + 12 * 20)
                .allMatch(p -> p.startsWith("data/"));
        // Deleting the unreachable objects leaves the newest version fully readable.
        newest.unreachableTreeObjects().forEach(p -> store.delete(p).block());
        assertThat(list(table, latest)).hasSize(1240);
    }

    @Test
    void warmLeafCacheServesTheCommitsResolveWithoutReadingTheLeafAgain() {
        Recording store = deepTable(1500);
        Table table = new Table(store);
        FragmentInfo target = table.open().block().catalog().resolve(List.of(700L)).block().get(700L);
        store.reset();
        new CommitEngine(store, FAST).commit(Transactions.delete(1, List.of(deleting(target, 2, 1)), List.of(), "x"))
                .block();
        assertThat(store.reads("_bt/leaf/")).isEmpty();
        assertThat(table.open().block().catalog().resolve(List.of(700L)).block().get(700L).deletedRows()).isEqualTo(2);
    }

    @Test
    void racingAppendsBothLandAndTheLoserRebuildsOnTheWinnersTree() {
        Recording store = deepTable(800);
        Table table = new Table(store);
        CommitEngine a = new CommitEngine(store, FAST);
        CommitEngine b = new CommitEngine(store, FAST);
        Transaction first = Transactions.append(1, fragments("x", 3));
        Transaction second = Transactions.append(1, fragments("y", 2)); // same read version: loses the race
        assertThat(a.commit(first).block().version()).isEqualTo(2);
        var r = b.commit(second).block();
        assertThat(r.version()).isEqualTo(3);
        assertThat(r.attempts()).isEqualTo(2);
        List<DataFragment> all = list(table, 3);
        assertThat(all).hasSize(805);
        assertThat(all.stream().map(DataFragment::getId).distinct().count()).isEqualTo(805);
        assertThat(all.subList(800, 805).stream().map(f -> f.getFiles(0).getPath().substring(0, 1)).toList())
                .containsExactly("x", "x", "x", "y", "y");
        assertThat(table.checkout(3).block().manifestFile().manifest().getMaxFragmentId()).isEqualTo(804);
    }
}
