package io.javelin.tx.tree;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.javelin.encoding.writer.LanceFileVersion;
import io.javelin.encoding.writer.WriteOptions;
import io.javelin.tx.pb.DataFragment;
import io.javelin.tx.pb.FragmentTreeChild;
import io.javelin.tx.pb.FragmentTreeMetadata;
import io.javelin.tx.pb.FragmentTreeRoot;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Issue 8's stretch goal (opt-in, {@link LanceLeafCodec#PAGE_BYTES_PROPERTY}): point resolution
 * reads only the needed rows of a leaf. A leaf written in small pages is opened from its tail (footer, column metadata, page tables: one ranged
 * read), its id column read to find the row, and the row taken from one page per column; the record
 * equals the one a whole-leaf read gives, and tampering stays a typed error.
 */
class RangedLeafReadTest {

    static final int N = 3000;
    static final long TAIL = io.javelin.encoding.file.LanceFileReader.TAIL_BYTES;
    /** Leaves of ~64 KiB under an inline root (every child a leaf), pages of ~1 KiB. */
    static final TreeConfig ONE_LEAF = new TreeConfig(64 << 10, 1 << 20, 64 << 10, 16, 64 << 10, 0, 4);

    record Built(TreeEnv env, FragmentTreeMetadata meta) {
    }

    /** Ranged reads as "offset+length", in request order. */
    static final java.util.Queue<String> RANGES = new java.util.concurrent.ConcurrentLinkedQueue<>();

    static TreeStore logging(MemoryTreeStore store) {
        return new TreeStore() {
            @Override
            public reactor.core.publisher.Mono<Void> put(ObjectLocation location, byte[] bytes) {
                return store.put(location, bytes);
            }

            @Override
            public reactor.core.publisher.Mono<byte[]> get(ObjectLocation location) {
                return store.get(location);
            }

            @Override
            public reactor.core.publisher.Mono<byte[]> getRange(ObjectLocation location, long offset, int length) {
                RANGES.add(offset + "+" + length);
                return store.getRange(location, offset, length);
            }

            @Override
            public reactor.core.publisher.Flux<ObjectLocation> list(String dataset, String prefix) {
                return store.list(dataset, prefix);
            }
        };
    }

    static Built build(TreeFixture fx, LanceLeafCodec codec) {
        TreeEnv env = new TreeEnv(logging(fx.store), codec, fx.allocator, ONE_LEAF);
        FragmentTreeMetadata meta = new TreeWriter(env).build(TreeFixture.frags(N), 1).block().metadata();
        return new Built(env, meta);
    }

    static LanceLeafCodec ranged(long minBytes) {
        return new LanceLeafCodec(WriteOptions.of(LanceFileVersion.V2_2).withPageSize(1024), minBytes);
    }

    /** The first leaf (ids are dense, so its range ends where its ids do: every id has one candidate row). */
    static FragmentTreeChild leafRef(FragmentTreeMetadata meta) {
        FragmentTreeRoot root = meta.getTree().getInlineRoot();
        assertThat(root.getChildrenCount()).isGreaterThanOrEqualTo(3);
        assertThat(root.getChildren(0).getHeight()).isZero();
        return root.getChildren(0);
    }

    @Test
    void pointResolutionReadsTheTailTheIdColumnAndOnePagePerColumn() {
        try (TreeFixture fx = new TreeFixture(ONE_LEAF)) {
            Built b = build(fx, ranged(0));
            FragmentTreeChild leaf = leafRef(b.meta());
            int inLeaf = (int) leaf.getNumKeys();
            assertThat(inLeaf).isGreaterThan(500);
            TreeSnapshot s = TreeSnapshot.open(b.env(), b.meta(), fx.datasets, N - 1).block();
            long target = inLeaf / 2 + 1;
            DataFragment expected = TreeFixture.frags(N).get((int) target);

            fx.store.resetCounts();
            RANGES.clear();
            assertThat(s.resolve(target).block()).contains(expected);
            MemoryTreeStore.Counts c = fx.store.counts();
            int columns;
            try (var file = io.javelin.encoding.file.LanceFileReader.open(new io.javelin.encoding.io.MemorySource("leaf",
                    fx.store.get(fx.store.readLog().getFirst()).block())).block()) {
                columns = file.metadata().columns().size();
            }
            assertThat(c.gets()).as("no whole-object read").isZero();
            assertThat(fx.store.readLog()).allMatch(l -> l.path().startsWith("_bt/leaf/"));
            // 1 tail read (footer, column metadata, page tables), the id column's page holding the one
            // candidate row (2 reads: the reader fetches a 4-byte chunk header before the chunk), then the
            // row's take from every column of the file (17 columns): a first round of small reads (chunk
            // tables, repetition indexes; pages of at most 4 KiB are read whole in that round, one range per
            // page buffer, up to 3), then the row's chunk of each larger page. Every range is logged.
            assertThat(columns).isEqualTo(17);
            assertThat(RANGES).hasSizeBetween(1 + 2 + columns, 1 + 2 + 3 * columns);
            assertThat(c.rangeGets()).isEqualTo(RANGES.size());
            assertThat(RANGES.peek()).as("the tail first").isEqualTo((leaf.getObjectSize() - TAIL) + "+" + TAIL);
            assertThat(c.bytesRead() - TAIL).as("bytes past the tail, of a %d-byte leaf", leaf.getObjectSize())
                    .isLessThan(leaf.getObjectSize() / 8);
            long oneRow = c.bytesRead();

            // several ids: still only the pages that hold them; an absent id reads nothing more than its page
            fx.store.resetCounts();
            long last = inLeaf - 1;
            Map<Long, DataFragment> some = s.resolveAll(new TreeSet<>(List.of(5L, 6L, last))).block();
            assertThat(some).containsOnlyKeys(5L, 6L, last);
            assertThat(some.get(last)).isEqualTo(TreeFixture.frags(N).get((int) last));
            assertThat(fx.store.counts().bytesRead()).isGreaterThan(oneRow);
            assertThat(fx.store.counts().bytesRead() - TAIL).isLessThan(leaf.getObjectSize() / 4);

            // the whole-leaf path (listing) still reads it in one request and agrees
            fx.store.resetCounts();
            assertThat(s.fragments().collectList().block()).isEqualTo(TreeFixture.frags(N));
            assertThat(fx.store.counts().gets()).isEqualTo(b.meta().getTree().getInlineRoot().getChildrenCount());
        }
    }

    @Test
    void smallLeavesAreReadWholeAndTheCodecThresholdDecides() {
        try (TreeFixture fx = new TreeFixture(ONE_LEAF)) {
            Built b = build(fx, ranged(Long.MAX_VALUE));
            TreeSnapshot s = TreeSnapshot.open(b.env(), b.meta(), fx.datasets, N - 1).block();
            fx.store.resetCounts();
            assertThat(s.resolve(12).block()).contains(TreeFixture.frags(N).get(12));
            assertThat(fx.store.readLog()).hasSize(1);
            assertThat(fx.store.counts().gets()).isEqualTo(1);
            assertThat(fx.store.counts().rangeGets()).isZero();
            assertThat(new LanceLeafCodec().readsRanges(Long.MAX_VALUE - 1)).as("off by default").isFalse();
            System.setProperty(LanceLeafCodec.PAGE_BYTES_PROPERTY, "8192");
            try {
                assertThat(new LanceLeafCodec().readsRanges(LanceLeafCodec.DEFAULT_RANGED_MIN_BYTES)).isTrue();
                assertThat(new LanceLeafCodec().readsRanges(LanceLeafCodec.DEFAULT_RANGED_MIN_BYTES - 1)).isFalse();
            } finally {
                System.clearProperty(LanceLeafCodec.PAGE_BYTES_PROPERTY);
            }
        }
    }

    @Test
    void aRangedReadOfATamperedLeafIsATypedError() {
        try (TreeFixture fx = new TreeFixture(ONE_LEAF)) {
            Built b = build(fx, ranged(0));
            FragmentTreeChild leaf = leafRef(b.meta());
            // object_size shorter than the object: the tail read misses the footer
            FragmentTreeMetadata shorter = withLeaf(b.meta(), leaf.toBuilder().setObjectSize(leaf.getObjectSize() - 7).build());
            assertThatThrownBy(() -> TreeSnapshot.open(b.env(), shorter, fx.datasets, N - 1).block().resolve(3).block())
                    .isInstanceOf(CorruptSnapshotException.class);
            // num_keys disagreeing with the file's row count
            FragmentTreeMetadata keys = withLeaf(b.meta(), leaf.toBuilder().setNumKeys(N + 1).build());
            assertThatThrownBy(() -> TreeSnapshot.open(b.env(), keys, fx.datasets, N - 1).block().resolve(3).block())
                    .isInstanceOfSatisfying(CorruptSnapshotException.class,
                            e -> assertThat(e.rule()).isIn(Rule.R24_LEAF_SUMMARY, Rule.R46_DERIVED_COUNTS));
        }
    }

    /**
     * Through a real table on an object store with the default codec and policy: the leaves of 8 000
     * fragments exceed the ranged threshold, and resolving one fragment issues ranged GETs that
     * together read a fraction of its leaf (the store counts requests and bytes).
     */
    @Test
    void aTablesPointResolutionReadsRangesOfItsLeafFromTheObjectStore() {
        System.setProperty(LanceLeafCodec.PAGE_BYTES_PROPERTY, "8192");
        try {
            tableReadsRanges();
        } finally {
            System.clearProperty(LanceLeafCodec.PAGE_BYTES_PROPERTY);
        }
    }

    private static void tableReadsRanges() {
        var objects = io.javelin.objectstore.inmemory.InMemoryObjectStore.createIsolated();
        var store = new io.javelin.tx.store.ObjectStoreManifestStore(objects, "");
        new io.javelin.tx.commit.CommitEngine(store, TreeTableTest.FAST).commit(io.javelin.tx.transaction.Transactions
                .overwrite(0, TreeTableTest.fragments("c", 8000), TreeTableTest.SCHEMA,
                        Map.of(TreeTables.LAYOUT_KEY, TreeTables.LAYOUT_TREE))).block();
        io.javelin.tx.Snapshot s = new io.javelin.tx.Table(store).checkout(1).block();
        FragmentTreeRoot root = s.manifestFile().manifest().getFragmentTree().getTree().getInlineRoot();
        FragmentTreeChild first = root.getChildren(0);
        assertThat(first.getHeight()).isZero();
        assertThat(new LanceLeafCodec().readsRanges(first.getObjectSize())).isTrue();
        long id = first.getNumKeys() / 2;
        TreeTables.LEAVES.clear();
        long requests = objects.counters().requests(io.javelin.objectstore.OpClass.READ);
        long bytes = objects.counters().bytes(io.javelin.objectstore.OpClass.READ);
        var f = s.catalog().resolve(List.of(id)).block().get(id);
        assertThat(f.fragment().getFiles(0).getPath()).startsWith("c-" + id + "-");
        long read = objects.counters().bytes(io.javelin.objectstore.OpClass.READ) - bytes;
        assertThat(objects.counters().requests(io.javelin.objectstore.OpClass.READ) - requests).isGreaterThan(3);
        assertThat(read).as("bytes read of a %d-byte leaf", first.getObjectSize())
                .isLessThan(first.getObjectSize() / 4);
    }

    static FragmentTreeMetadata withLeaf(FragmentTreeMetadata meta, FragmentTreeChild leaf) {
        FragmentTreeRoot root = meta.getTree().getInlineRoot().toBuilder().setChildren(0, leaf).build();
        return meta.toBuilder().setTree(meta.getTree().toBuilder().setInlineRoot(root)).build();
    }
}
