package io.javelin.engine;

import io.javelin.engine.filter.Predicate;
import io.javelin.engine.filter.ValueExpression;
import io.javelin.tx.FragmentInfo;
import io.javelin.tx.Snapshot;
import io.javelin.tx.deletion.DeletionFiles;
import io.javelin.tx.pb.DataFragment;
import io.javelin.tx.transaction.Transactions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.roaringbitmap.RoaringBitmap;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Row rewrites in Lance's REWRITE_ROWS mode, shared by update and merge-insert: the rows being replaced
 * get deleted from their fragments (a new cumulative deletion file, or the fragment removed when nothing
 * is left) and their new values are written as new fragments; one {@code Update} transaction commits
 * both ({@code fields_modified} empty, {@code fields_for_preserving_frag_bitmap} as Lance sets it).
 */
final class RowRewrites {

    private RowRewrites() {
    }

    /**
     * Per fragment: physical offsets to delete; {@code replaced}: the old address of each row written, in
     * order ({@code -1} for an inserted row), for {@link RowIdCarry}.
     */
    record Plan(Map<FragmentInfo, RoaringBitmap> deletions, long[] replaced) {
    }

    // ------------------------------------------------------------------ update

    static Mono<UpdateResult> update(Dataset ds, String filter, Map<String, String> set) {
        return update(ds, filter, set, null);
    }

    /** {@code rowHits}: when given, the rows to update (by {@code _rowid}), instead of those matching {@code filter}. */
    static Mono<UpdateResult> update(Dataset ds, String filter, Map<String, String> set, Mono<Map<FragmentInfo, RoaringBitmap>> rowHits) {
        return Mono.defer(() -> {
            if (set.isEmpty()) {
                throw SchemaEvolution.error(ds, "UPDATE needs at least one column to set");
            }
            Map<String, ValueExpression> exprs = new LinkedHashMap<>();
            Map<String, Field> targets = new LinkedHashMap<>();
            set.forEach((col, sql) -> {
                Field target = ds.schema().getFields().stream().filter(x -> x.getName().equals(col)).findFirst().orElse(null);
                if (target == null) {
                    throw SchemaEvolution.error(ds, "Column \"" + col + "\" does not exist in the dataset");
                }
                exprs.put(col, SchemaEvolution.compile(ds, sql));
                targets.put(col, target);
            });
            Predicate pred = filter == null || filter.isBlank() ? null : ds.compile(filter);
            List<String> filterCols = pred == null ? List.of()
                    : ds.schema().getFields().stream().map(Field::getName).filter(pred.referencedColumns()::contains).toList();
            List<String> all = ds.schema().getFields().stream().map(Field::getName).toList();
            Mono<Map<FragmentInfo, RoaringBitmap>> found = rowHits != null ? rowHits : Flux.fromIterable(ds.fragments())
                    .concatMap(f -> matches(ds, f, pred, filterCols).map(hits -> Map.entry(f, hits)), 1)
                    .filter(e -> !e.getValue().isEmpty())
                    .collectMap(Map.Entry::getKey, Map.Entry::getValue, LinkedHashMap::new);
            return found.flatMap(hits -> {
                        long n = hits.values().stream().mapToLong(RoaringBitmap::getLongCardinality).sum();
                        if (n == 0) {
                            return Mono.just(new UpdateResult(ds.retained(), 0));
                        }
                        BufferAllocator alloc = new RootAllocator();
                        Flux<VectorSchemaRoot> rows = Flux.fromIterable(hits.entrySet())
                                .concatMap(e -> rewritten(ds, e.getKey(), e.getValue(), all, exprs, targets, alloc), 1);
                        List<Integer> preserve = new ArrayList<>();
                        set.keySet().forEach(c -> preserve.add(ds.lanceSchema().field(c).id()));
                        long[] replaced = new long[(int) n];
                        int k = 0;
                        for (var e : hits.entrySet()) {
                            for (int off : e.getValue()) {
                                replaced[k++] = (e.getKey().id() << 32) | off;
                            }
                        }
                        return commit(ds, new Plan(hits, replaced), rows, preserve)
                                .map(s -> new UpdateResult(ds.derive(s), n))
                                .doFinally(sig -> alloc.close());
                    });
        });
    }

    /** Live physical offsets of {@code f} matching {@code pred} (all live rows when null). */
    static Mono<RoaringBitmap> matches(Dataset ds, FragmentInfo f, Predicate pred, List<String> filterCols) {
        if (pred != null) {
            return Scan.matching(ds, f, pred, filterCols, Scanner.DEFAULT_BATCH_SIZE);
        }
        return ds.deletions(f).map(del -> {
            RoaringBitmap all = new RoaringBitmap();
            all.add(0L, f.physicalRows());
            all.andNot(del);
            return all;
        });
    }

    /** The rows at {@code offsets} of {@code f} with the SET columns replaced, in batches. */
    private static Flux<VectorSchemaRoot> rewritten(Dataset ds, FragmentInfo f, RoaringBitmap offsets, List<String> all,
                                                    Map<String, ValueExpression> exprs, Map<String, Field> targets, BufferAllocator alloc) {
        int chunk = Scanner.DEFAULT_BATCH_SIZE;
        if (offsets.getLongCardinality() * 16 > f.physicalRows()) {
            // dense: one sequential pass over the fragment beats scattered takes touching every page anyway
            return FragmentSource.open(ds, f, all, ds.io()).flatMapMany(src -> src.scan(all, 0, Long.MAX_VALUE, chunk, alloc)
                    .index()
                    .concatMap(ib -> {
                        VectorSchemaRoot b = ib.getT2();
                        long start = ib.getT1() * chunk;
                        RoaringBitmap in = RoaringBitmap.and(offsets, RoaringBitmap.bitmapOfRange(start, start + b.getRowCount()));
                        if (in.isEmpty()) {
                            b.close();
                            return Mono.empty();
                        }
                        int[] pos = in.toArray();
                        for (int i = 0; i < pos.length; i++) {
                            pos[i] -= (int) start;
                        }
                        try (b) {
                            return Mono.just(apply(Batches.select(b, pos, alloc), exprs, targets, alloc));
                        }
                    }, 1)
                    .doOnDiscard(reactor.util.function.Tuple2.class, t -> ((VectorSchemaRoot) t.getT2()).close()));
        }
        long[] offs = java.util.Arrays.stream(offsets.toArray()).asLongStream().toArray();
        return FragmentSource.open(ds, f, all, ds.io()).flatMapMany(src -> Flux.range(0, (offs.length + chunk - 1) / chunk)
                .concatMap(c -> src.take(java.util.Arrays.copyOfRange(offs, c * chunk, Math.min(offs.length, (c + 1) * chunk)), all, alloc)
                        .map(b -> apply(b, exprs, targets, alloc)), 1));
    }

    /** Replaces the SET columns of {@code b} (expressions see the old values); closes {@code b}. */
    private static VectorSchemaRoot apply(VectorSchemaRoot b, Map<String, ValueExpression> exprs, Map<String, Field> targets,
                                          BufferAllocator alloc) {
        Map<String, FieldVector> fresh = new LinkedHashMap<>();
        try (b) {
            for (var e : exprs.entrySet()) {
                fresh.put(e.getKey(), e.getValue().evaluate(b, targets.get(e.getKey()), alloc));
            }
            List<FieldVector> out = new ArrayList<>();
            for (FieldVector v : b.getFieldVectors()) {
                FieldVector nv = fresh.remove(v.getField().getName());
                out.add(nv != null ? nv : Batches.move(v, alloc));
            }
            return Batches.root(out, b.getRowCount());
        } catch (RuntimeException e) {
            fresh.values().forEach(FieldVector::close);
            throw e;
        }
    }

    // ------------------------------------------------------------------ commit

    /**
     * Writes {@code newRows} (dataset schema) as new fragments, the deletions of {@code plan} as deletion
     * files, and commits one Update read at {@code ds}'s version.
     */
    static Mono<Snapshot> commit(Dataset ds, Plan plan, Flux<VectorSchemaRoot> newRows, List<Integer> preserveFields) {
        return write(ds, () -> plan, newRows, preserveFields, false);
    }

    /**
     * As {@link #commit}, for a plan known only once {@code newRows} has been consumed (a streamed
     * merge-insert); empty when nothing was written or deleted.
     */
    static Mono<Snapshot> commitStreamed(Dataset ds, java.util.function.Supplier<Plan> plan, Flux<VectorSchemaRoot> newRows,
                                         List<Integer> preserveFields) {
        return write(ds, plan, newRows, preserveFields, true);
    }

    private static Mono<Snapshot> write(Dataset ds, java.util.function.Supplier<Plan> planned, Flux<VectorSchemaRoot> newRows,
                                        List<Integer> preserveFields, boolean skipNoop) {
        Dataset.Handle h = ds.handle();
        Plan[] plan = new Plan[1];
        return Writes.writeFiles(h, newRows, ds.schema(), ds.lanceSchema(), SchemaEvolution.fileVersion(ds),
                        WriteParams.of(WriteMode.APPEND).maxRowsPerFile())
                .collectList()
                .flatMap(written -> {
                    plan[0] = planned.get();
                    if (skipNoop && written.isEmpty() && plan[0].deletions().isEmpty()) {
                        return Mono.empty();
                    }
                    return RowIdCarry.carry(ds, written, plan[0].replaced());
                })
                .flatMap(added -> Flux.fromIterable(plan[0].deletions().entrySet())
                        .concatMap(e -> deletion(ds, e.getKey(), e.getValue()), 1)
                        .collectList()
                        .flatMap(changes -> {
                            List<DataFragment> updated = new ArrayList<>();
                            List<Long> removed = new ArrayList<>();
                            for (Object c : changes) {
                                if (c instanceof DataFragment f) {
                                    updated.add(f);
                                } else {
                                    removed.add((Long) c);
                                }
                            }
                            return Writes.commit(h, Transactions.updateRows(ds.version(), removed, updated, added, preserveFields));
                        }))
                .doOnDiscard(VectorSchemaRoot.class, VectorSchemaRoot::close);
    }

    /** The fragment with its cumulative deletion file, or its id when every row is now deleted. */
    private static Mono<Object> deletion(Dataset ds, FragmentInfo f, RoaringBitmap rows) {
        if (rows.isEmpty()) {
            return Mono.empty();
        }
        return ds.deletions(f).flatMap(old -> {
            RoaringBitmap all = RoaringBitmap.or(old, rows);
            if (all.getLongCardinality() >= f.physicalRows()) {
                return Mono.just((Object) f.id());
            }
            return DeletionFiles.write(ds.handle().manifests, f.id(), ds.version(), all)
                    .map(df -> (Object) f.fragment().toBuilder().setDeletionFile(df).build());
        });
    }
}
