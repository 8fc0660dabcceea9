package io.javelin.engine;

import io.javelin.encoding.writer.LanceFileVersion;
import io.javelin.engine.maintenance.CompactionMetrics;
import io.javelin.engine.maintenance.CompactionOptions;
import io.javelin.engine.maintenance.CompactionPlanner;
import io.javelin.engine.maintenance.CompactionPlan;
import io.javelin.engine.maintenance.CompactionResult;
import io.javelin.engine.maintenance.CompactionTask;
import io.javelin.engine.maintenance.RewriteResult;
import io.javelin.tx.FragmentInfo;
import io.javelin.tx.pb.DataFragment;
import io.javelin.tx.pb.Transaction;
import io.javelin.tx.rowid.FragmentRowIds;
import io.javelin.tx.rowid.RowIdSequence;
import io.javelin.tx.rowid.RowVersions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.RootAllocator;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Compaction (Lance {@code compact_files}): each planned group of adjacent fragments is read with deletions
 * applied and written into new fragments of about {@code target_rows_per_fragment} rows, then all groups
 * commit as one {@code Rewrite} read at this version. Concurrent appends rebase; a concurrent delete or
 * update of a rewritten fragment makes the commit fail with a retryable conflict (the conflict matrix), and
 * the new files stay unreferenced until cleanup. Distributed (Lance's {@code plan_compaction} /
 * {@code execute} / {@code commit_compaction}): {@link #plan} makes serializable tasks, any worker runs
 * {@link #execute} on one, and {@link #commit} applies every result at once; {@link #run} is the same
 * three steps in one process.
 *
 * <p>With stable row ids each rewritten row keeps its id and created-at / last-updated-at versions: the old
 * fragments' sequences minus deleted offsets, re-chunked over the new fragments. Without them row addresses
 * change: BTree / Bitmap / LabelList segments are remapped (see {@code IndexRemap}); others lose coverage of the
 * rewritten fragments.
 */
final class Compaction {

    private Compaction() {
    }

    /** Local compaction: the distributed pieces run in this process, one task after another. */
    static Mono<CompactionResult> run(Dataset ds, CompactionOptions o) {
        return Mono.defer(() -> {
            CompactionPlan plan = plan(ds, o);
            if (plan.tasks().isEmpty()) {
                return Mono.just(new CompactionResult(ds.sameVersion(), CompactionMetrics.NONE));
            }
            return Flux.fromIterable(plan.tasks()).concatMap(t -> execute(ds, t), 1).collectList().flatMap(r -> commit(ds, r));
        });
    }

    /** Groups of adjacent candidates ({@link CompactionPlanner}) as tasks read at this version. */
    static CompactionPlan plan(Dataset ds, CompactionOptions o) {
        List<CompactionTask> tasks = new ArrayList<>();
        for (List<FragmentInfo> g : CompactionPlanner.plan(ds.fragments(), o)) {
            tasks.add(new CompactionTask(ds.version(), g.stream().map(FragmentInfo::id).toList(), o));
        }
        return new CompactionPlan(ds.version(), tasks, o);
    }

    /** A worker's part: rewrites the task's fragments (of the task's read version) into new files; commits nothing. */
    static Mono<RewriteResult> execute(Dataset ds, CompactionTask task) {
        Mono<Dataset> at = ds.version() == task.readVersion() ? Mono.just(ds.sameVersion()) : ds.checkout(task.readVersion());
        return Mono.usingWhen(at, read -> read.withFragments(() -> Mono.defer(() -> {
            Map<Long, FragmentInfo> byId = new HashMap<>();
            read.fragments().forEach(f -> byId.put(f.id(), f));
            List<FragmentInfo> group = new ArrayList<>();
            for (long id : task.fragmentIds()) {
                FragmentInfo f = byId.get(id);
                if (f == null) {
                    return Mono.error(new InvalidScanException(read.uri(), read.version(), "Compaction task names fragment " + id
                            + ", which version " + read.version() + " does not have"));
                }
                group.add(f);
            }
            LanceFileVersion fv = WriteVersions.of(read.dataStorageVersion(), LanceFileVersion.V2_1);
            return Mono.usingWhen(Mono.fromCallable(RootAllocator::new),
                    alloc -> read.rowIds().preload().then(rewrite(read, group, task.options(), fv, alloc)),
                    alloc -> Mono.fromRunnable(alloc::close))
                    .map(g -> RewriteResult.of(task.readVersion(), g));
        })), read -> Mono.fromRunnable(read::close));
    }

    /** The committer's part: every worker's rewrite groups as one {@code Rewrite} read at the plan's version. */
    static Mono<CompactionResult> commit(Dataset ds, List<RewriteResult> results) {
        if (results.isEmpty()) {
            return Mono.just(new CompactionResult(ds.sameVersion(), CompactionMetrics.NONE));
        }
        long readVersion = results.get(0).readVersion();
        for (RewriteResult r : results) {
            if (r.readVersion() != readVersion) {
                return Mono.error(new InvalidScanException(ds.uri(), ds.version(), "Compaction results were planned at versions "
                        + readVersion + " and " + r.readVersion() + "; commit the results of one plan together"));
            }
        }
        List<Transaction.Rewrite.RewriteGroup> groups = results.stream().map(RewriteResult::group).toList();
        CompactionMetrics m = results.stream().map(RewriteResult::metrics).reduce(CompactionMetrics.NONE, (a, b) -> new CompactionMetrics(
                a.fragmentsRemoved() + b.fragmentsRemoved(), a.fragmentsAdded() + b.fragmentsAdded(),
                a.filesRemoved() + b.filesRemoved(), a.filesAdded() + b.filesAdded()));
        Mono<Dataset> at = ds.version() == readVersion ? Mono.just(ds.sameVersion()) : ds.checkout(readVersion);
        // remaps scalar indexes when addresses change (io.javelin.engine.index.IndexRemap)
        return Mono.usingWhen(at, read -> read.withFragments(() -> io.javelin.engine.index.IndexRemap.commitRewrite(read, groups))
                        .map(next -> new CompactionResult(next, m)),
                read -> Mono.fromRunnable(read::close));
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
