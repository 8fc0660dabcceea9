package io.javelin.engine;

import io.javelin.encoding.writer.LanceFileVersion;
import io.javelin.engine.maintenance.CompactionMetrics;
import io.javelin.engine.maintenance.CompactionOptions;
import io.javelin.engine.maintenance.CompactionPlanner;
import io.javelin.engine.maintenance.CompactionResult;
import io.javelin.tx.FragmentInfo;
import io.javelin.tx.pb.DataFragment;
import io.javelin.tx.pb.Transaction;
import io.javelin.tx.rowid.FragmentRowIds;
import io.javelin.tx.rowid.RowIdSequence;
import io.javelin.tx.rowid.RowVersions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.RootAllocator;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Compaction (Lance {@code compact_files}): each planned group of adjacent fragments is read with deletions
 * applied and written into new fragments of about {@code target_rows_per_fragment} rows, then all groups
 * commit as one {@code Rewrite} read at this version. Concurrent appends rebase; a concurrent delete or
 * update of a rewritten fragment makes the commit fail with a retryable conflict (the conflict matrix), and
 * the new files stay unreferenced until cleanup.
 *
 * <p>With stable row ids each rewritten row keeps its id and created-at / last-updated-at versions: the old
 * fragments' sequences minus deleted offsets, re-chunked over the new fragments. Without them row addresses
 * change: BTree / Bitmap / LabelList segments are remapped (see {@code IndexRemap}); others lose coverage of the
 * rewritten fragments.
 */
final class Compaction {

    private Compaction() {
    }

    static Mono<CompactionResult> run(Dataset ds, CompactionOptions o) {
        return Mono.defer(() -> {
            List<List<FragmentInfo>> groups = CompactionPlanner.plan(ds.fragments(), o);
            if (groups.isEmpty()) {
                return Mono.just(new CompactionResult(ds.sameVersion(), CompactionMetrics.NONE));
            }
            LanceFileVersion fv = WriteVersions.of(ds.dataStorageVersion(), LanceFileVersion.V2_1);
            return Mono.usingWhen(Mono.fromCallable(RootAllocator::new),
                    alloc -> ds.rowIds().preload().thenMany(Flux.fromIterable(groups)
                                    .concatMap(g -> rewrite(ds, g, o, fv, alloc), 1))
                            .collectList()
                            .flatMap(rewritten -> {
                                int oldFiles = 0;
                                int newFiles = 0;
                                int oldFrags = 0;
                                int newFrags = 0;
                                for (Transaction.Rewrite.RewriteGroup g : rewritten) {
                                    oldFrags += g.getOldFragmentsCount();
                                    newFrags += g.getNewFragmentsCount();
                                    oldFiles += g.getOldFragmentsList().stream().mapToInt(DataFragment::getFilesCount).sum();
                                    newFiles += g.getNewFragmentsList().stream().mapToInt(DataFragment::getFilesCount).sum();
                                }
                                CompactionMetrics m = new CompactionMetrics(oldFrags, newFrags, oldFiles, newFiles);
                                // remaps scalar indexes when addresses change (io.javelin.engine.index.IndexRemap)
                                return io.javelin.engine.index.IndexRemap.commitRewrite(ds, rewritten)
                                        .map(next -> new CompactionResult(next, m));
                            }),
                    alloc -> Mono.fromRunnable(alloc::close));
        });
    }

    private static Mono<Transaction.Rewrite.RewriteGroup> rewrite(Dataset ds, List<FragmentInfo> group, CompactionOptions o,
                                                                  LanceFileVersion fv, RootAllocator alloc) {
        boolean stable = ds.rowIds().enabled();
        Mono<long[][]> lineage = !stable ? Mono.just(new long[0][]) : Flux.fromIterable(group)
                .concatMap(f -> ds.deletions(f).map(del -> new long[][] {
                    RowVersions.live(ds.rowIds().of(f), del),
                    RowVersions.live(FragmentRowIds.createdAt(f.fragment(), 1), del),
                    RowVersions.live(FragmentRowIds.lastUpdatedAt(f.fragment(), 1), del)}), 1)
                .collectList()
                .map(parts -> new long[][] {concat(parts, 0), concat(parts, 1), concat(parts, 2)});
        List<Long> ids = group.stream().map(FragmentInfo::id).toList();
        // scans hand JSON columns out as text (stored as JSONB again) and blobs in their logical shape (re-placed)
        Flux<org.apache.arrow.vector.VectorSchemaRoot> rows = Writes.jsonb(io.javelin.engine.maintenance.CompactionProgress.observe(
                ds.scanner().fragments(ids).batchSize(o.maxRowsPerGroup()).scan(alloc, BlobHandling.LOGICAL)),
                JsonColumns.userSchema(ds.schema()));
        return lineage.flatMap(lin -> Writes.writeFiles(ds.handle(), rows, ds.schema(), ds.lanceSchema(), fv, o.targetRowsPerFragment(),
                        new BlobWriteOptions(true, 0)) // external references were accepted when first written
                .collectList()
                .map(written -> {
                    Transaction.Rewrite.RewriteGroup.Builder g = Transaction.Rewrite.RewriteGroup.newBuilder();
                    group.forEach(f -> g.addOldFragments(f.fragment()));
                    long at = 0;
                    for (DataFragment f : written) {
                        DataFragment.Builder b = f.toBuilder();
                        if (stable) {
                            int from = Math.toIntExact(at);
                            int to = Math.toIntExact(at + f.getPhysicalRows());
                            if (to > lin[0].length) {
                                throw new IllegalStateException("Compaction wrote more rows than the fragments hold");
                            }
                            FragmentRowIds.setRowIds(b, RowIdSequence.of(Arrays.copyOfRange(lin[0], from, to)));
                            FragmentRowIds.setCreatedAt(b, RowVersions.compress(Arrays.copyOfRange(lin[1], from, to)));
                            FragmentRowIds.setLastUpdatedAt(b, RowVersions.compress(Arrays.copyOfRange(lin[2], from, to)));
                        }
                        at += f.getPhysicalRows();
                        g.addNewFragments(b);
                    }
                    long expected = group.stream().mapToLong(FragmentInfo::liveRows).sum();
                    if (at != expected) {
                        throw new IllegalStateException("Compaction read " + at + " rows but the fragments hold " + expected);
                    }
                    return g.build();
                }));
    }

    private static long[] concat(List<long[][]> parts, int k) {
        return parts.stream().flatMapToLong(p -> Arrays.stream(p[k])).toArray();
    }
}
