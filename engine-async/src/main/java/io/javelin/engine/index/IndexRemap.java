package io.javelin.engine.index;

import com.google.protobuf.ByteString;
import io.javelin.engine.Dataset;
import io.javelin.index.IndexFiles;
import io.javelin.index.IndexType;
import io.javelin.index.LanceIndexFileSource;
import io.javelin.index.rowid.RowAddrTreeMap;
import io.javelin.index.scalar.BTreeIndex;
import io.javelin.index.scalar.BitmapIndex;
import io.javelin.tx.FragmentInfo;
import io.javelin.tx.pb.DataFragment;
import io.javelin.tx.pb.IndexFile;
import io.javelin.tx.pb.Transaction;
import io.javelin.tx.transaction.Transactions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.util.TransferPair;
import org.roaringbitmap.RoaringBitmap;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Commits a compaction's {@code Rewrite}, remapping scalar indexes as Lance's {@code remap_indices} does
 * when row addresses change (no stable row ids): the new fragments get reserved ids (a
 * {@code ReserveFragments} commit first), every old address maps to its new one (deleted rows to none),
 * and each BTree / Bitmap / LabelList / vector ({@link VectorIndexRemap}) segment covering whole rewrite groups is rewritten through that
 * mapping into a new segment named in {@code rewritten_indices} (new uuid, same details and version, new
 * files). Segments that only partly cover a group, other index types, and segments that fail to remap
 * lose coverage of the rewritten fragments (queries scan them), which is always correct. With stable row
 * ids the index files stay valid and the plain Rewrite is committed.
 */
public final class IndexRemap {

    private IndexRemap() {
    }

    /** Whether an index type can be remapped here. */
    static boolean remappable(IndexInfo i) {
        return (i.type() == IndexType.BTREE || i.type() == IndexType.BITMAP || i.type() == IndexType.LABEL_LIST) && i.indexVersion() == 0
                || i.type() == IndexType.VECTOR && i.readable() && i.fieldIds().size() == 1; // vector: VectorIndexRemap
    }

    public static Mono<Dataset> commitRewrite(Dataset ds, List<Transaction.Rewrite.RewriteGroup> groups) {
        return Mono.defer(() -> {
            List<IndexInfo> targets = ds.hasStableRowIds() ? List.of()
                    : IndexCatalog.usable(ds).stream().filter(IndexRemap::remappable).filter(i -> coversWholeGroups(i, groups)).toList();
            if (targets.isEmpty()) {
                return ds.commit(Transactions.rewrite(ds.version(), groups));
            }
            int newCount = groups.stream().mapToInt(Transaction.Rewrite.RewriteGroup::getNewFragmentsCount).sum();
            return Mono.usingWhen(ds.commit(Transactions.reserveFragments(ds.version(), newCount)),
                    reserved -> {
                        long max = Integer.toUnsignedLong(reserved.snapshot().manifestFile().manifest().getMaxFragmentId());
                        List<Transaction.Rewrite.RewriteGroup> withIds = assignIds(groups, max - newCount + 1);
                        return mapping(ds, withIds).flatMap(map -> Flux.fromIterable(targets)
                                        .concatMap(i -> remap(ds, i, map).onErrorResume(e -> Mono.empty()), 1)
                                        .collectList())
                                .flatMap(rewritten -> {
                                    Transaction t = Transactions.rewrite(reserved.version(), withIds);
                                    Transaction.Builder b = t.toBuilder();
                                    b.getRewriteBuilder().addAllRewrittenIndices(rewritten);
                                    return reserved.commit(b.build());
                                });
                    },
                    reserved -> Mono.fromRunnable(reserved::close));
        });
    }

    /** Covers every old fragment of at least one group and, for each group, all of its old fragments or none. */
    static boolean coversWholeGroups(IndexInfo i, List<Transaction.Rewrite.RewriteGroup> groups) {
        boolean any = false;
        for (Transaction.Rewrite.RewriteGroup g : groups) {
            int in = 0;
            for (DataFragment f : g.getOldFragmentsList()) {
                in += i.fragments().contains((int) f.getId()) ? 1 : 0;
            }
            if (in > 0 && in < g.getOldFragmentsCount()) {
                return false;
            }
            any |= in > 0;
        }
        return any;
    }

    private static List<Transaction.Rewrite.RewriteGroup> assignIds(List<Transaction.Rewrite.RewriteGroup> groups, long first) {
        List<Transaction.Rewrite.RewriteGroup> out = new ArrayList<>();
        long next = first;
        for (Transaction.Rewrite.RewriteGroup g : groups) {
            Transaction.Rewrite.RewriteGroup.Builder b = g.toBuilder();
            for (int k = 0; k < b.getNewFragmentsCount(); k++) {
                b.setNewFragments(k, b.getNewFragments(k).toBuilder().setId(next++));
            }
            out.add(b.build());
        }
        return out;
    }

    /** Old fragment id → new address per old offset (-1: deleted), rows in group order as compaction wrote them. */
    static Mono<Map<Integer, long[]>> mapping(Dataset ds, List<Transaction.Rewrite.RewriteGroup> groups) {
        Map<Long, FragmentInfo> byId = new HashMap<>();
        for (FragmentInfo f : ds.fragments()) {
            byId.put(f.id(), f);
        }
        return Flux.fromIterable(groups).concatMap(g -> Flux.fromIterable(g.getOldFragmentsList())
                        .concatMap(old -> ds.snapshot().deletions(byId.get(old.getId())).map(del -> Map.entry(old, del)), 1)
                        .collectList()
                        .map(olds -> {
                            long[] newStart = new long[g.getNewFragmentsCount() + 1];
                            for (int k = 0; k < g.getNewFragmentsCount(); k++) {
                                newStart[k + 1] = newStart[k] + g.getNewFragments(k).getPhysicalRows();
                            }
                            Map<Integer, long[]> m = new HashMap<>();
                            long pos = 0;
                            int k = 0;
                            for (var e : olds) {
                                int rows = (int) e.getKey().getPhysicalRows();
                                long[] to = new long[rows];
                                RoaringBitmap del = e.getValue();
                                for (int off = 0; off < rows; off++) {
                                    if (del.contains(off)) {
                                        to[off] = -1;
                                        continue;
                                    }
                                    while (k < g.getNewFragmentsCount() && pos >= newStart[k + 1]) {
                                        k++;
                                    }
                                    if (k >= g.getNewFragmentsCount()) {
                                        throw new IllegalStateException("More live rows than the rewritten fragments hold");
                                    }
                                    to[off] = (g.getNewFragments(k).getId() << 32) | (pos - newStart[k]);
                                    pos++;
                                }
                                m.put((int) e.getKey().getId(), to);
                            }
                            return m;
                        }), 1)
                .reduce(new HashMap<Integer, long[]>(), (acc, m) -> {
                    acc.putAll(m);
                    return acc;
                }).map(m -> (Map<Integer, long[]>) m);
    }

    /** The new address of {@code addr}, itself when its fragment was not rewritten, -1 when deleted. */
    static long map(Map<Integer, long[]> map, long addr) {
        long[] to = map.get((int) (addr >>> 32));
        if (to == null) {
            return addr;
        }
        int off = (int) addr;
        return off >= 0 && off < to.length ? to[off] : -1;
    }

    private static Mono<Transaction.Rewrite.RewrittenIndex> remap(Dataset ds, IndexInfo idx, Map<Integer, long[]> map) {
        UUID uuid = UUID.randomUUID();
        String dir = IndexFiles.directory(uuid);
        return Mono.usingWhen(Mono.fromCallable(RootAllocator::new), alloc -> {
            LanceIndexFileSource src = LanceIndexFileSource.forSegment(ds.objectStore(), "", idx.uuid(), alloc);
            // every batch is closed inside usingWhen, before the allocator
            Mono<List<IndexFile>> files = idx.type() == IndexType.VECTOR ? VectorIndexRemap.remap(ds, idx, map, uuid, alloc)
                    : idx.type() == IndexType.BTREE
                    ? Mono.usingWhen(src.readAll(BTreeIndex.PAGE_DATA_FILE),
                            data -> Mono.usingWhen(Mono.fromCallable(() -> remapBTree(data, map, alloc)).subscribeOn(Schedulers.boundedElastic()),
                                    b -> Flux.concat(
                                                    IndexCreator.file(ds.objectStore(), dir, BTreeIndex.PAGE_LOOKUP_FILE, b.pageLookup(), List.of()),
                                                    IndexCreator.file(ds.objectStore(), dir, BTreeIndex.PAGE_DATA_FILE, b.pageData(), List.of()))
                                            .collectList(),
                                    b -> Mono.fromRunnable(b::close)),
                            data -> Mono.fromRunnable(data::close))
                    : Mono.usingWhen(src.readAll(BitmapIndex.FILE),
                            data -> Mono.usingWhen(Mono.fromCallable(() -> remapBitmap(data, map, alloc)).subscribeOn(Schedulers.boundedElastic()),
                                    root -> IndexCreator.file(ds.objectStore(), dir, BitmapIndex.FILE, root, List.of()).map(List::of),
                                    root -> Mono.fromRunnable(root::close)),
                            data -> Mono.fromRunnable(data::close));
            files = files.doFinally(s -> src.close());
            return files.map(fs -> Transaction.Rewrite.RewrittenIndex.newBuilder()
                    .setOldId(idx.metadata().getUuid())
                    .setNewId(io.javelin.tx.pb.UUID.newBuilder().setUuid(ByteString.copyFrom(IndexFiles.uuidToBytes(uuid))))
                    .setNewIndexDetails(idx.metadata().getIndexDetails())
                    .setNewIndexVersion(idx.indexVersion())
                    .addAllNewIndexFiles(fs)
                    .build());
        }, alloc -> Mono.fromRunnable(alloc::close));
    }

    /** page_data rows through the mapping (deleted rows dropped), re-sorted into pages. */
    static BTreeIndex.Built remapBTree(VectorSchemaRoot data, Map<Integer, long[]> map, BufferAllocator alloc) {
        FieldVector values = data.getVector("values");
        UInt8Vector ids = (UInt8Vector) data.getVector("ids");
        int n = data.getRowCount();
        try (FieldVector kept = values.getField().createVector(alloc)) {
            TransferPair tp = values.makeTransferPair(kept);
            long[] newIds = new long[n];
            int m = 0;
            for (int i = 0; i < n; i++) {
                long to = map(map, ids.get(i));
                if (to >= 0) {
                    tp.copyValueSafe(i, m);
                    newIds[m++] = to;
                }
            }
            kept.setValueCount(m);
            return BTreeIndex.build(kept, java.util.Arrays.copyOf(newIds, m), alloc);
        }
    }

    /** Each key's bitmap through the mapping; keys, order and schema metadata kept. */
    static VectorSchemaRoot remapBitmap(VectorSchemaRoot data, Map<Integer, long[]> map, BufferAllocator alloc) {
        VectorSchemaRoot out = VectorSchemaRoot.create(data.getSchema(), alloc);
        try {
            FieldVector keys = data.getVector("keys");
            VarBinaryVector bitmaps = (VarBinaryVector) data.getVector("bitmaps");
            TransferPair tp = keys.makeTransferPair(out.getVector("keys"));
            VarBinaryVector outBitmaps = (VarBinaryVector) out.getVector("bitmaps");
            for (int i = 0; i < data.getRowCount(); i++) {
                tp.copyValueSafe(i, i);
                if (bitmaps.isNull(i)) {
                    outBitmaps.setNull(i);
                    continue;
                }
                RowAddrTreeMap rows = RowAddrTreeMap.deserialize(bitmaps.get(i), "bitmap " + i);
                RowAddrTreeMap mapped = new RowAddrTreeMap();
                for (long a : rows.toArray()) {
                    long to = map(map, a);
                    if (to >= 0) {
                        mapped.add(to);
                    }
                }
                outBitmaps.setSafe(i, mapped.serialize());
            }
            out.setRowCount(data.getRowCount());
            return out;
        } catch (RuntimeException e) {
            out.close();
            throw e;
        }
    }
}
