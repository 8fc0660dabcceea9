package io.javelin.engine;

import io.javelin.engine.filter.FilterParseException;
import io.javelin.engine.filter.Predicate;
import io.javelin.engine.filter.Selection;
import io.javelin.tx.FragmentInfo;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.Text;
import org.apache.arrow.vector.util.TransferPair;
import org.roaringbitmap.RoaringBitmap;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Merge-insert ("upsert") keyed by one or more columns, as Lance's {@code MergeInsertBuilder}: an
 * immutable builder from {@link Dataset#mergeInsert(List)}.
 *
 * <pre>{@code
 * ds.mergeInsert(List.of("id")).whenMatchedUpdateAll().whenNotMatchedInsertAll()
 *   .whenNotMatchedBySourceDelete("region = 'eu'").execute(batches).block();
 * }</pre>
 *
 * Semantics (Lance's): a key with a NULL in any key column never matches (such source rows are inserted
 * when inserting, such target rows count as "not matched by source"); two source rows matching one
 * target row are an error ("Ambiguous merge insert"); the update condition may read {@code source.col}
 * and {@code target.col}. Defaults are Lance's: matched rows are kept, unmatched source rows inserted,
 * target rows missing from the source kept. Matched rows are rewritten (deleted + written again) and
 * everything commits atomically as one {@code Update} transaction. The source is held in memory; the
 * target is streamed (key and condition columns only).
 */
public final class MergeInsert {

    private final Dataset ds;
    private final List<String> on;
    private final boolean updateMatched;
    private final String matchedCondition;
    private final boolean insertNotMatched;
    private final boolean deleteNotMatchedBySource;
    private final String bySourceFilter;

    MergeInsert(Dataset ds, List<String> on) {
        this(ds, List.copyOf(on), false, null, true, false, null);
    }

    private MergeInsert(Dataset ds, List<String> on, boolean updateMatched, String matchedCondition, boolean insertNotMatched,
                        boolean deleteNotMatchedBySource, String bySourceFilter) {
        this.ds = ds;
        this.on = on;
        this.updateMatched = updateMatched;
        this.matchedCondition = matchedCondition;
        this.insertNotMatched = insertNotMatched;
        this.deleteNotMatchedBySource = deleteNotMatchedBySource;
        this.bySourceFilter = bySourceFilter;
    }

    /** Matched target rows are replaced by their source row. */
    public MergeInsert whenMatchedUpdateAll() {
        return new MergeInsert(ds, on, true, null, insertNotMatched, deleteNotMatchedBySource, bySourceFilter);
    }

    /** ... only where {@code condition} (over {@code source.x} and {@code target.x}) is true. */
    public MergeInsert whenMatchedUpdateAll(String condition) {
        return new MergeInsert(ds, on, true, condition, insertNotMatched, deleteNotMatchedBySource, bySourceFilter);
    }

    public MergeInsert whenMatchedDoNothing() {
        return new MergeInsert(ds, on, false, null, insertNotMatched, deleteNotMatchedBySource, bySourceFilter);
    }

    public MergeInsert whenNotMatchedInsertAll() {
        return new MergeInsert(ds, on, updateMatched, matchedCondition, true, deleteNotMatchedBySource, bySourceFilter);
    }

    public MergeInsert whenNotMatchedDoNothing() {
        return new MergeInsert(ds, on, updateMatched, matchedCondition, false, deleteNotMatchedBySource, bySourceFilter);
    }

    /** Target rows whose key is not in the source are deleted. */
    public MergeInsert whenNotMatchedBySourceDelete() {
        return new MergeInsert(ds, on, updateMatched, matchedCondition, insertNotMatched, true, null);
    }

    /** ... only those matching {@code filter} (over target columns). */
    public MergeInsert whenNotMatchedBySourceDelete(String filter) {
        return new MergeInsert(ds, on, updateMatched, matchedCondition, insertNotMatched, true, filter);
    }

    /** Runs the merge against the dataset version this builder came from; the source has the dataset's schema. */
    public Mono<MergeInsertResult> execute(Flux<VectorSchemaRoot> source) {
        return ds.withFragments(() -> Mono.defer(() -> {
            validate();
            // usingWhen: the caller's batches are closed before the result (or error) reaches the caller
            return Mono.usingWhen(source.collectList(),
                            batches -> Mono.usingWhen(Mono.fromCallable(RootAllocator::new), alloc -> run(batches, alloc),
                                    alloc -> Mono.fromRunnable(alloc::close)),
                            batches -> Mono.fromRunnable(() -> batches.forEach(VectorSchemaRoot::close)))
                    .doOnDiscard(VectorSchemaRoot.class, VectorSchemaRoot::close);
        })).onErrorMap(e -> Dataset.translate(ds.uri(), ds.version(), e));
    }

    private void validate() {
        if (on.isEmpty()) {
            throw SchemaEvolution.error(ds, "Merge insert needs at least one key column");
        }
        for (String k : on) {
            Field f = ds.schema().getFields().stream().filter(x -> x.getName().equals(k)).findFirst().orElse(null);
            if (f == null) {
                throw SchemaEvolution.error(ds, "Merge insert key column \"" + k + "\" does not exist in the dataset");
            }
            if (f.getType() instanceof ArrowType.Struct || f.getType() instanceof ArrowType.List
                    || f.getType() instanceof ArrowType.FixedSizeList || f.getType() instanceof ArrowType.LargeList) {
                throw SchemaEvolution.error(ds, "Merge insert key column \"" + k + "\" must be a primitive column");
            }
        }
    }

    /** A source row: batch index and row within the batch. */
    private record Ref(int batch, int row) {
    }

    private Mono<MergeInsertResult> run(List<VectorSchemaRoot> raw, BufferAllocator alloc) {
        List<VectorSchemaRoot> src = new ArrayList<>();
        for (VectorSchemaRoot b : raw) {
            src.add(aligned(b));
        }
        // key index over the source; null keys never match
        Map<List<Object>, Ref> index = new HashMap<>();
        Map<List<Object>, Integer> dupes = new HashMap<>();
        for (int b = 0; b < src.size(); b++) {
            List<FieldVector> keys = keyVectors(src.get(b));
            for (int r = 0; r < src.get(b).getRowCount(); r++) {
                List<Object> k = key(keys, r);
                if (k != null && index.putIfAbsent(k, new Ref(b, r)) != null) {
                    dupes.merge(k, 2, (x, y) -> x + 1);
                }
            }
        }
        Predicate bySource = bySourceFilter == null ? null : ds.compile(bySourceFilter);
        List<String> targetCols = new ArrayList<>(on);
        if (bySource != null) {
            for (Field f : ds.schema().getFields()) {
                if (bySource.referencedColumns().contains(f.getName()) && !targetCols.contains(f.getName())) {
                    targetCols.add(f.getName());
                }
            }
        }
        boolean[][] matchedSource = new boolean[src.size()][];
        for (int b = 0; b < src.size(); b++) {
            matchedSource[b] = new boolean[src.get(b).getRowCount()];
        }
        Map<FragmentInfo, List<long[]>> pairs = new LinkedHashMap<>(); // fragment → (offset, batch, row)
        Map<FragmentInfo, RoaringBitmap> bySourceDeletes = new LinkedHashMap<>();
        return Flux.fromIterable(ds.fragments())
                .concatMap(f -> Mono.zip(ds.deletions(f), FragmentSource.open(ds, f, targetCols, ds.io()))
                        .flatMapMany(t -> t.getT2().scan(targetCols, 0, Long.MAX_VALUE, Scanner.DEFAULT_BATCH_SIZE, alloc)
                                .index()
                                .doOnNext(ib -> {
                                    try (VectorSchemaRoot b = ib.getT2()) {
                                        long start = ib.getT1() * Scanner.DEFAULT_BATCH_SIZE;
                                        probe(f, b, start, t.getT1(), index, dupes, matchedSource, pairs, bySource, bySourceDeletes);
                                    }
                                })
                                .doOnDiscard(reactor.util.function.Tuple2.class, x -> ((VectorSchemaRoot) x.getT2()).close())), 1)
                .then(Mono.defer(() -> conditioned(src, pairs, alloc)))
                .flatMap(updatePairs -> finish(src, matchedSource, updatePairs, bySourceDeletes, alloc));
    }

    /** Source batch with the dataset's columns, in the dataset's order (error on a schema mismatch). */
    private VectorSchemaRoot aligned(VectorSchemaRoot b) {
        List<Field> want = ds.schema().getFields();
        if (b.getFieldVectors().size() != want.size()) {
            throw new SchemaMismatchException(ds.uri(), ds.version(), "Merge insert source has columns "
                    + b.getSchema().getFields().stream().map(Field::getName).toList() + ", the dataset has "
                    + want.stream().map(Field::getName).toList());
        }
        List<FieldVector> out = new ArrayList<>();
        for (Field f : want) {
            FieldVector v = b.getVector(f.getName());
            if (v == null || !v.getField().getType().equals(f.getType())) {
                throw new SchemaMismatchException(ds.uri(), ds.version(), "Merge insert source column " + f.getName()
                        + (v == null ? " is missing" : " has type " + v.getField().getType() + ", the dataset has " + f.getType()));
            }
            out.add(v);
        }
        VectorSchemaRoot r = new VectorSchemaRoot(out);
        r.setRowCount(b.getRowCount());
        return r;
    }

    private List<FieldVector> keyVectors(VectorSchemaRoot r) {
        List<FieldVector> out = new ArrayList<>();
        for (String k : on) {
            out.add(r.getVector(k));
        }
        return out;
    }

    /** The key of row {@code r}, or null when any key column is null (NULL never equals anything). */
    private static List<Object> key(List<FieldVector> keys, int r) {
        Object[] k = new Object[keys.size()];
        for (int i = 0; i < k.length; i++) {
            Object o = keys.get(i).getObject(r);
            if (o == null) {
                return null;
            }
            k[i] = switch (o) {
                case Text t -> t.toString();
                case byte[] bytes -> ByteBuffer.wrap(bytes);
                default -> o;
            };
        }
        return Arrays.asList(k);
    }

    private void probe(FragmentInfo f, VectorSchemaRoot b, long start, RoaringBitmap deleted, Map<List<Object>, Ref> index,
                       Map<List<Object>, Integer> dupes, boolean[][] matchedSource, Map<FragmentInfo, List<long[]>> pairs,
                       Predicate bySource, Map<FragmentInfo, RoaringBitmap> bySourceDeletes) {
        List<FieldVector> keys = keyVectors(b);
        Selection sel = bySource == null ? null : bySource.evaluate(b);
        for (int r = 0; r < b.getRowCount(); r++) {
            long off = start + r;
            if (deleted.contains((int) off)) {
                continue;
            }
            List<Object> k = key(keys, r);
            Ref hit = k == null ? null : index.get(k);
            if (hit != null) {
                if (dupes.containsKey(k)) {
                    throw SchemaEvolution.error(ds, "Ambiguous merge insert: multiple source rows match the same target row on ("
                            + describe(k) + "). Please ensure each target row is matched by at most one source row.");
                }
                matchedSource[hit.batch()][hit.row()] = true;
                if (updateMatched) {
                    pairs.computeIfAbsent(f, x -> new ArrayList<>()).add(new long[] {off, hit.batch(), hit.row()});
                }
            } else if (deleteNotMatchedBySource && (sel == null || sel.isSelected(r))) {
                bySourceDeletes.computeIfAbsent(f, x -> new RoaringBitmap()).add((int) off);
            }
        }
    }

    private String describe(List<Object> k) {
        List<String> parts = new ArrayList<>();
        for (int i = 0; i < on.size(); i++) {
            parts.add(on.get(i) + " = " + k.get(i));
        }
        return String.join(", ", parts);
    }

    /** The matched pairs to update: all of them, or those where the update condition holds. */
    private Mono<Map<FragmentInfo, List<long[]>>> conditioned(List<VectorSchemaRoot> src, Map<FragmentInfo, List<long[]>> pairs,
                                                             BufferAllocator alloc) {
        if (matchedCondition == null || pairs.isEmpty()) {
            return Mono.just(pairs);
        }
        Schema both = new Schema(List.of(
                new Field("source", FieldType.nullable(ArrowType.Struct.INSTANCE), ds.schema().getFields()),
                new Field("target", FieldType.nullable(ArrowType.Struct.INSTANCE), ds.schema().getFields())));
        Predicate cond;
        try {
            cond = Predicate.compile(matchedCondition, both);
        } catch (FilterParseException e) {
            return Mono.error(new InvalidScanException(ds.uri(), ds.version(), "Invalid merge condition: " + e.getMessage(), e));
        }
        List<String> all = ds.schema().getFields().stream().map(Field::getName).toList();
        Map<FragmentInfo, List<long[]>> kept = new LinkedHashMap<>();
        return Flux.fromIterable(pairs.entrySet())
                .concatMap(e -> FragmentSource.open(ds, e.getKey(), all, ds.io())
                        .flatMap(s -> s.take(e.getValue().stream().mapToLong(p -> p[0]).toArray(), all, alloc))
                        .doOnNext(target -> {
                            try (target; VectorSchemaRoot source = gather(src, e.getValue(), alloc);
                                 VectorSchemaRoot joined = join(source, target, alloc)) {
                                Selection sel = cond.evaluate(joined);
                                List<long[]> ok = new ArrayList<>();
                                for (int i = 0; i < e.getValue().size(); i++) {
                                    if (sel.isSelected(i)) {
                                        ok.add(e.getValue().get(i));
                                    }
                                }
                                if (!ok.isEmpty()) {
                                    kept.put(e.getKey(), ok);
                                }
                            }
                        }), 1)
                .then(Mono.fromCallable(() -> kept));
    }

    /** Source rows named by {@code pairs} ({@code [offset, batch, row]}) as one batch. */
    private static VectorSchemaRoot gather(List<VectorSchemaRoot> src, List<long[]> pairs, BufferAllocator alloc) {
        List<Ref> refs = new ArrayList<>();
        for (long[] p : pairs) {
            refs.add(new Ref((int) p[1], (int) p[2]));
        }
        return copy(src, refs, alloc);
    }

    static VectorSchemaRoot copy(List<VectorSchemaRoot> src, List<Ref> refs, BufferAllocator alloc) {
        List<FieldVector> out = new ArrayList<>();
        try {
            int cols = src.get(0).getFieldVectors().size();
            for (int c = 0; c < cols; c++) {
                FieldVector v = src.get(0).getVector(c).getField().createVector(alloc);
                out.add(v);
                v.allocateNew();
                TransferPair[] tps = new TransferPair[src.size()];
                for (int i = 0; i < refs.size(); i++) {
                    Ref r = refs.get(i);
                    if (tps[r.batch()] == null) {
                        tps[r.batch()] = src.get(r.batch()).getVector(c).makeTransferPair(v);
                    }
                    tps[r.batch()].copyValueSafe(r.row(), i);
                }
                v.setValueCount(refs.size());
            }
            return Batches.root(out, refs.size());
        } catch (RuntimeException e) {
            out.forEach(FieldVector::close);
            throw e;
        }
    }

    /** {@code source} and {@code target} as two struct columns of one batch (the vectors are shared). */
    private static VectorSchemaRoot join(VectorSchemaRoot source, VectorSchemaRoot target, BufferAllocator alloc) {
        List<FieldVector> cols = new ArrayList<>();
        for (var e : List.of(Map.entry("source", source), Map.entry("target", target))) {
            StructVector s = StructVector.empty(e.getKey(), alloc);
            int rows = e.getValue().getRowCount();
            for (FieldVector v : e.getValue().getFieldVectors()) {
                FieldVector slot = s.addOrGet(v.getField().getName(), v.getField().getFieldType(), v.getClass());
                TransferPair tp = v.makeTransferPair(slot);
                for (int i = 0; i < rows; i++) {
                    tp.copyValueSafe(i, i);
                }
                slot.setValueCount(rows);
            }
            for (int i = 0; i < rows; i++) {
                s.setIndexDefined(i);
            }
            s.setValueCount(rows);
            cols.add(s);
        }
        return Batches.root(cols, source.getRowCount());
    }

    private Mono<MergeInsertResult> finish(List<VectorSchemaRoot> src, boolean[][] matchedSource,
                                           Map<FragmentInfo, List<long[]>> updates, Map<FragmentInfo, RoaringBitmap> bySourceDeletes,
                                           BufferAllocator alloc) {
        List<Ref> rows = new ArrayList<>();
        List<Long> replaced = new ArrayList<>();
        Map<FragmentInfo, RoaringBitmap> deletions = new LinkedHashMap<>();
        long updated = 0;
        for (var e : updates.entrySet()) {
            RoaringBitmap d = deletions.computeIfAbsent(e.getKey(), k -> new RoaringBitmap());
            for (long[] p : e.getValue()) {
                d.add((int) p[0]);
                rows.add(new Ref((int) p[1], (int) p[2]));
                replaced.add((e.getKey().id() << 32) | p[0]);
                updated++;
            }
        }
        long deleted = 0;
        for (var e : bySourceDeletes.entrySet()) {
            deletions.computeIfAbsent(e.getKey(), k -> new RoaringBitmap()).or(e.getValue());
            deleted += e.getValue().getLongCardinality();
        }
        long inserted = 0;
        if (insertNotMatched) {
            for (int b = 0; b < src.size(); b++) {
                for (int r = 0; r < matchedSource[b].length; r++) {
                    if (!matchedSource[b][r]) {
                        rows.add(new Ref(b, r));
                        replaced.add(-1L);
                        inserted++;
                    }
                }
            }
        }
        if (rows.isEmpty() && deletions.isEmpty()) {
            return Mono.just(new MergeInsertResult(ds.retained(), 0, 0, 0));
        }
        int chunk = Scanner.DEFAULT_BATCH_SIZE;
        Flux<VectorSchemaRoot> newRows = Flux.range(0, (rows.size() + chunk - 1) / chunk)
                .map(c -> copy(src, rows.subList(c * chunk, Math.min(rows.size(), (c + 1) * chunk)), alloc));
        List<Integer> preserve = new ArrayList<>();
        ds.lanceSchema().fields().forEach(f -> preserve.add(f.id()));
        long u = updated;
        long d = deleted;
        long i = inserted;
        long[] replacedRows = replaced.stream().mapToLong(Long::longValue).toArray();
        return RowRewrites.commit(ds, new RowRewrites.Plan(deletions, replacedRows), newRows, preserve)
                .map(s -> new MergeInsertResult(ds.derive(s), i, u, d));
    }

    @Override
    public String toString() {
        return "MergeInsert[on=" + on + ", updateMatched=" + updateMatched + (matchedCondition != null ? " if " + matchedCondition : "")
                + ", insertNotMatched=" + insertNotMatched + ", deleteNotMatchedBySource=" + deleteNotMatchedBySource
                + (bySourceFilter != null ? " if " + bySourceFilter : "") + "]";
    }
}
