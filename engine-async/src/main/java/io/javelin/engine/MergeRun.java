package io.javelin.engine;

import io.javelin.engine.filter.Predicate;
import io.javelin.engine.filter.Selection;
import io.javelin.tx.FragmentInfo;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.roaringbitmap.RoaringBitmap;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * One execution of a {@link MergeInsert}: a hash join of the source and the target's keys with bounded
 * memory. A source of at most a quarter of the budget is joined in memory while the target's key columns
 * stream past; a larger one is hash-partitioned by key into spill files, the target's keys and row
 * addresses likewise, and partitions are joined one at a time (one still above a quarter of the budget is
 * split again with another hash). Updated rows are emitted first, then inserted ones (stable row ids keep replaced rows as
 * a prefix of each written fragment), straight into the writer; deletions stay as bitmaps.
 */
final class MergeRun {

    private static final int MAX_SPLIT_LEVEL = 3;
    private static final String ADDR = "_rowaddr";

    private final Dataset ds;
    private final MergeInsert spec;
    private final MergeKeys keys;
    private final MergeInsertOptions opt;
    private final BufferAllocator alloc;
    private final Predicate bySource;
    /** Set by the first source batch: the source's columns in dataset order, fewer than the dataset's when partial. */
    private Schema sourceSchema;
    private boolean partial;
    private Predicate condition;
    private Path dir;

    /** Per fragment id: rows eligible for a by-source delete, rows matched, rows replaced by an update. */
    private final Map<Long, RoaringBitmap> eligible = new HashMap<>();
    private final Map<Long, RoaringBitmap> matchedTarget = new HashMap<>();
    private final Map<Long, RoaringBitmap> updatedTarget = new HashMap<>();
    private final Map<Long, FragmentInfo> fragments = new LinkedHashMap<>();
    private long[] replaced = new long[1024];
    private int written;
    private long inserted;
    private long updated;
    private long deleted;
    private final List<Leaf> leaves = new ArrayList<>();
    private final List<VectorSchemaRoot> inMemory = new ArrayList<>();
    private long peakHeld;

    /** A joined partition: its source rows (in memory or spilled) and which of them matched. */
    private record Leaf(List<VectorSchemaRoot> memory, SpillFile file, BitSet matched) {
    }

    MergeRun(Dataset ds, MergeInsert spec, MergeInsertOptions opt, BufferAllocator alloc, Predicate bySource) {
        this.ds = ds;
        this.spec = spec;
        this.keys = new MergeKeys(spec.on(), ds.schema());
        this.opt = opt;
        this.alloc = alloc;
        this.bySource = bySource;
        for (FragmentInfo f : ds.fragments()) {
            fragments.put(f.id(), f);
        }
    }

    long inserted() {
        return inserted;
    }

    long updated() {
        return updated;
    }

    long deleted() {
        return deleted;
    }

    // ------------------------------------------------------------------ phase 1: take in the source

    /** Copies the source into this run's memory, spilling it by partition once it outgrows half the budget. */
    Mono<List<SpillFile>> ingest(Flux<VectorSchemaRoot> source) {
        SpillPartitioner[] spill = new SpillPartitioner[1];
        AtomicLong held = new AtomicLong();
        return source.publishOn(Schedulers.boundedElastic(), 1)
                .doOnNext(raw -> {
                    try (raw) {
                        VectorSchemaRoot b = align(raw);
                        if (spill[0] != null) {
                            spill[0].add(b);
                            return;
                        }
                        VectorSchemaRoot copy = Batches.select(b, MergeRows.identity(b.getRowCount()), alloc);
                        inMemory.add(copy);
                        if (held.addAndGet(MergeRows.bytes(copy)) > holdLimit()) {
                            spill[0] = partitioner("s0", sourceSchema, 0);
                            for (VectorSchemaRoot m : inMemory) {
                                try (m) {
                                    spill[0].add(m);
                                }
                            }
                            inMemory.clear();
                        }
                    }
                })
                .doOnDiscard(VectorSchemaRoot.class, VectorSchemaRoot::close)
                .then(Mono.fromCallable(() -> {
                    if (sourceSchema == null) { // an empty source: nothing matches
                        sourceSchema = ds.schema();
                    }
                    condition = spec.condition(sourceSchema);
                    return spill[0] == null ? List.<SpillFile>of() : spill[0].finish();
                }))
                .doFinally(sig -> {
                    if (spill[0] != null) {
                        spill[0].close();
                    }
                });
    }

    /**
     * The source batch's columns in dataset order (a view sharing its vectors). The first batch fixes the
     * source schema: any subset of the dataset's columns holding the keys, each of the dataset's type.
     */
    private VectorSchemaRoot align(VectorSchemaRoot b) {
        List<FieldVector> out = new ArrayList<>();
        for (Field f : ds.schema().getFields()) {
            FieldVector v = b.getVector(f.getName());
            if (v == null) {
                continue;
            }
            if (!v.getField().getType().equals(f.getType())) {
                throw mismatch("Merge insert source column " + f.getName() + " has type " + v.getField().getType()
                        + ", the dataset has " + f.getType());
            }
            out.add(v);
        }
        List<String> names = b.getSchema().getFields().stream().map(Field::getName).toList();
        if (out.size() != names.size()) {
            throw mismatch("Merge insert source has columns " + names + " that are not all in the dataset "
                    + ds.schema().getFields().stream().map(Field::getName).toList());
        }
        for (String k : keys.columns()) {
            if (b.getVector(k) == null) {
                throw mismatch("Merge insert source lacks key column " + k);
            }
        }
        VectorSchemaRoot r = new VectorSchemaRoot(out);
        r.setRowCount(b.getRowCount());
        if (sourceSchema == null) {
            sourceSchema = r.getSchema();
            partial = out.size() < ds.schema().getFields().size();
            if (partial && spec.insertsNotMatched()) {
                for (Field f : ds.schema().getFields()) {
                    if (b.getVector(f.getName()) == null && !f.isNullable()) {
                        throw mismatch("Merge insert source lacks non-nullable column " + f.getName()
                                + ", which inserted rows need");
                    }
                }
            }
        } else if (!sourceSchema.getFields().stream().map(Field::getName).toList()
                .equals(out.stream().map(v -> v.getField().getName()).toList())) {
            throw mismatch("Merge insert source batches differ in columns: " + names + " after "
                    + sourceSchema.getFields().stream().map(Field::getName).toList());
        }
        return r;
    }

    /**
     * Source bytes joined in memory at once: a quarter of the budget, since Arrow rounds buffers up to
     * powers of two and reading a partition back, gathering rows and the writer's batches come on top.
     */
    private long holdLimit() {
        return opt.memoryBudgetBytes() / 4;
    }

    private SchemaMismatchException mismatch(String message) {
        return new SchemaMismatchException(ds.uri(), ds.version(), message);
    }

    private SpillPartitioner partitioner(String prefix, Schema schema, int level) {
        if (dir == null) {
            try {
                dir = opt.spillDirectory() == null ? Files.createTempDirectory("javelin-merge-")
                        : Files.createTempDirectory(Files.createDirectories(opt.spillDirectory()), "javelin-merge-");
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot create a merge-insert spill directory", e);
            }
        }
        long flush = opt.memoryBudgetBytes() / 8 / opt.fanOut();
        return new SpillPartitioner(dir, prefix, schema, keys, opt.fanOut(), level, flush, alloc);
    }

    // ------------------------------------------------------------------ the target's keys

    private List<String> targetColumns() {
        List<String> cols = new ArrayList<>(keys.columns());
        if (bySource != null) {
            for (Field f : ds.schema().getFields()) {
                if (bySource.referencedColumns().contains(f.getName()) && !cols.contains(f.getName())) {
                    cols.add(f.getName());
                }
            }
        }
        return cols;
    }

    /** Live target rows as batches of (key columns..., {@code _rowaddr}); records by-source eligibility on the way. */
    private Flux<VectorSchemaRoot> targetKeys() {
        List<String> cols = targetColumns();
        return Flux.fromIterable(ds.fragments())
                .concatMap(f -> Mono.zip(ds.deletions(f), FragmentSource.open(ds, f, cols, ds.io()))
                        .flatMapMany(t -> {
                            AtomicLong at = new AtomicLong();
                            return t.getT2().scan(cols, 0, Long.MAX_VALUE, Scanner.DEFAULT_BATCH_SIZE, alloc)
                                    .map(b -> {
                                        try (b) {
                                            return keyBatch(f, b, at.getAndAdd(b.getRowCount()), t.getT1());
                                        }
                                    });
                        }), 1)
                .doOnDiscard(VectorSchemaRoot.class, VectorSchemaRoot::close);
    }

    private VectorSchemaRoot keyBatch(FragmentInfo f, VectorSchemaRoot b, long start, RoaringBitmap deleted) {
        int n = b.getRowCount();
        int[] live = new int[n];
        long[] offsets = new long[n];
        int k = 0;
        Selection sel = bySource == null ? null : bySource.evaluate(b);
        RoaringBitmap elig = spec.deletesNotMatchedBySource() ? eligible.computeIfAbsent(f.id(), x -> new RoaringBitmap()) : null;
        for (int r = 0; r < n; r++) {
            long off = start + r;
            if (!deleted.contains((int) off)) {
                live[k] = r;
                offsets[k++] = off;
                if (elig != null && (sel == null || sel.isSelected(r))) {
                    elig.add((int) off);
                }
            }
        }
        int[] pos = Arrays.copyOf(live, k);
        List<FieldVector> out = new ArrayList<>();
        try {
            for (String c : keys.columns()) {
                out.add(Batches.copyRows(b.getVector(c), pos, alloc));
            }
            out.add(Batches.rowAddresses(ADDR, f.id(), Arrays.copyOf(offsets, k), alloc));
        } catch (RuntimeException e) {
            out.forEach(FieldVector::close);
            throw e;
        }
        return Batches.root(out, k);
    }

    private Schema targetKeySchema() {
        List<Field> fields = new ArrayList<>();
        for (String c : keys.columns()) {
            fields.add(ds.schema().findField(c));
        }
        fields.add(new Field(ADDR, org.apache.arrow.vector.types.pojo.FieldType.notNullable(
                new org.apache.arrow.vector.types.pojo.ArrowType.Int(64, false)), null));
        return new Schema(fields);
    }

    // ------------------------------------------------------------------ phase 2: join, emitting rows to write

    /** Updated rows (all partitions), then inserted rows: the stream the writer consumes. */
    Flux<VectorSchemaRoot> rows(List<SpillFile> spilledSource) {
        Flux<VectorSchemaRoot> updates;
        if (spilledSource.isEmpty()) {
            List<VectorSchemaRoot> src = new ArrayList<>(inMemory);
            updates = join(src, targetKeys()).flatMapMany(m -> {
                leaves.add(new Leaf(src, null, m.matched()));
                return emitUpdates(src, m);
            });
        } else {
            updates = spillTarget().flatMapMany(tgt -> Flux.range(0, spilledSource.size())
                    .concatMap(p -> partition(spilledSource.get(p), tgt.get(p), 0), 1));
        }
        return Flux.concat(updates, Flux.defer(() -> Flux.fromIterable(leaves).concatMap(this::emitInserts, 1)))
                .doOnDiscard(VectorSchemaRoot.class, VectorSchemaRoot::close);
    }

    private Mono<List<SpillFile>> spillTarget() {
        return Mono.usingWhen(Mono.fromCallable(() -> partitioner("t0", targetKeySchema(), 0)).subscribeOn(Schedulers.boundedElastic()),
                sp -> targetKeys().publishOn(Schedulers.boundedElastic(), 2)
                        .doOnNext(b -> {
                            try (b) {
                                sp.add(b);
                            }
                        })
                        .then(Mono.fromCallable(sp::finish)),
                sp -> Mono.fromRunnable(sp::close));
    }

    /** Joins one spilled partition, splitting it first while its source is above half the budget. */
    private Flux<VectorSchemaRoot> partition(SpillFile src, SpillFile tgt, int level) {
        if (src.bytes() <= holdLimit() || level >= MAX_SPLIT_LEVEL) {
            // using (eager): the partition is released before the next one loads
            return src.read(alloc).collectList().flatMapMany(loaded -> Flux.using(() -> loaded,
                    batches -> join(batches, tgt.read(alloc)).flatMapMany(m -> {
                        tgt.delete();
                        leaves.add(new Leaf(null, src, m.matched()));
                        return emitUpdates(batches, m);
                    }),
                    batches -> batches.forEach(VectorSchemaRoot::close)));
        }
        return Mono.zip(split(src, "s" + (level + 1), sourceSchema, level + 1), split(tgt, "t" + (level + 1), targetKeySchema(), level + 1))
                .flatMapMany(t -> Flux.range(0, t.getT1().size())
                        .concatMap(p -> partition(t.getT1().get(p), t.getT2().get(p), level + 1), 1));
    }

    private final AtomicLong splits = new AtomicLong();

    private Mono<List<SpillFile>> split(SpillFile f, String prefix, Schema schema, int level) {
        String name = prefix + "-" + splits.incrementAndGet();
        return Mono.usingWhen(Mono.fromCallable(() -> partitioner(name, schema, level)).subscribeOn(Schedulers.boundedElastic()),
                sp -> f.read(alloc).doOnNext(b -> {
                    try (b) {
                        sp.add(b);
                    }
                }).then(Mono.fromCallable(() -> {
                    f.delete();
                    return sp.finish();
                })),
                sp -> Mono.fromRunnable(sp::close));
    }

    /** The matches of one partition: (target address, source ordinal) pairs and the source ordinals matched. */
    private record Matches(long[] addrs, int[] ordinals, int count, BitSet matched) {
    }

    private Mono<Matches> join(List<VectorSchemaRoot> src, Flux<VectorSchemaRoot> target) {
        return Mono.defer(() -> {
            KeyIndex index = KeyIndex.create(keys);
            int ord = 0;
            long bytes = 0;
            for (VectorSchemaRoot b : src) {
                bytes += MergeRows.bytes(b);
                List<FieldVector> kv = keys.vectors(b);
                for (int r = 0; r < b.getRowCount(); r++, ord++) {
                    index.add(kv, r, ord);
                }
            }
            peakHeld = Math.max(peakHeld, bytes);
            BitSet matched = new BitSet(ord);
            long[][] addrs = {new long[256]};
            int[][] ords = {new int[256]};
            int[] count = {0};
            return target.doOnNext(tb -> {
                try (tb) {
                    List<FieldVector> kv = keys.vectors(tb);
                    UInt8Vector addr = (UInt8Vector) tb.getVector(ADDR);
                    for (int r = 0; r < tb.getRowCount(); r++) {
                        int hit = index.find(kv, r);
                        if (hit < 0) {
                            continue;
                        }
                        if (index.ambiguous(hit)) {
                            throw SchemaEvolution.error(ds, "Ambiguous merge insert: multiple source rows match the same target row on ("
                                    + index.describe(kv, r) + "). Please ensure each target row is matched by at most one source row.");
                        }
                        long a = addr.get(r);
                        matched.set(hit);
                        if (spec.deletesNotMatchedBySource()) {
                            matchedTarget.computeIfAbsent(a >>> 32, x -> new RoaringBitmap()).add((int) a);
                        }
                        if (spec.updatesMatched()) {
                            if (count[0] == addrs[0].length) {
                                addrs[0] = Arrays.copyOf(addrs[0], count[0] * 2);
                                ords[0] = Arrays.copyOf(ords[0], count[0] * 2);
                            }
                            addrs[0][count[0]] = a;
                            ords[0][count[0]++] = hit;
                        }
                    }
                }
            }).then(Mono.fromCallable(() -> new Matches(addrs[0], ords[0], count[0], matched)));
        });
    }

    /** Matched rows to update, by target fragment, in address order; checks the update condition. */
    private Flux<VectorSchemaRoot> emitUpdates(List<VectorSchemaRoot> src, Matches m) {
        if (m.count() == 0) {
            return Flux.empty();
        }
        Integer[] order = new Integer[m.count()];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        Arrays.sort(order, Comparator.comparingLong(i -> m.addrs()[i]));
        long[] starts = MergeRows.starts(src);
        List<int[]> chunks = new ArrayList<>(); // runs of one fragment, at most a batch long
        int from = 0;
        for (int i = 1; i <= order.length; i++) {
            if (i == order.length || m.addrs()[order[i]] >>> 32 != m.addrs()[order[from]] >>> 32 || i - from == Scanner.DEFAULT_BATCH_SIZE) {
                int[] c = new int[i - from];
                for (int j = 0; j < c.length; j++) {
                    c[j] = order[from + j];
                }
                chunks.add(c);
                from = i;
            }
        }
        return Flux.fromIterable(chunks).concatMap(c -> updateChunk(src, starts, m, c), 1);
    }

    private Mono<VectorSchemaRoot> updateChunk(List<VectorSchemaRoot> src, long[] starts, Matches m, int[] chunk) {
        int[] ords = new int[chunk.length];
        long[] offsets = new long[chunk.length];
        for (int i = 0; i < chunk.length; i++) {
            ords[i] = m.ordinals()[chunk[i]];
            offsets[i] = m.addrs()[chunk[i]] & 0xFFFF_FFFFL;
        }
        long fragId = m.addrs()[chunk[0]] >>> 32;
        if (!partial && condition == null) {
            return Mono.fromCallable(() -> recordUpdates(fragId, offsets, null, MergeRows.gather(src, starts, ords, alloc)));
        }
        List<String> all = ds.schema().getFields().stream().map(Field::getName).toList();
        return FragmentSource.open(ds, fragments.get(fragId), all, ds.io())
                .flatMap(s -> s.take(offsets, all, alloc))
                .map(target -> {
                    try (target; VectorSchemaRoot source = MergeRows.gather(src, starts, ords, alloc)) {
                        int[] keep = null;
                        if (condition != null) {
                            try (VectorSchemaRoot both = MergeRows.pair(source, target, alloc)) {
                                Selection sel = condition.evaluate(both);
                                int[] k = new int[chunk.length];
                                int n = 0;
                                for (int i = 0; i < chunk.length; i++) {
                                    if (sel.isSelected(i)) {
                                        k[n++] = i;
                                    }
                                }
                                keep = Arrays.copyOf(k, n);
                            }
                        }
                        VectorSchemaRoot full = MergeRows.complete(ds.schema(), source, target, alloc);
                        return recordUpdates(fragId, offsets, keep, full);
                    }
                });
    }

    /** Notes the rows of {@code full} kept by {@code keep} (null: all) as replacing {@code offsets} of the fragment. */
    private VectorSchemaRoot recordUpdates(long fragId, long[] offsets, int[] keep, VectorSchemaRoot full) {
        VectorSchemaRoot out = full;
        if (keep != null && keep.length < offsets.length) {
            try (full) {
                out = Batches.select(full, keep, alloc);
            }
        }
        RoaringBitmap d = updatedTarget.computeIfAbsent(fragId, x -> new RoaringBitmap());
        int n = keep == null ? offsets.length : keep.length;
        for (int i = 0; i < n; i++) {
            long off = offsets[keep == null ? i : keep[i]];
            d.add((int) off);
            note((fragId << 32) | off);
        }
        updated += n;
        return out;
    }

    private void note(long address) {
        if (written == replaced.length) {
            replaced = Arrays.copyOf(replaced, written * 2);
        }
        replaced[written++] = address;
    }

    private Flux<VectorSchemaRoot> emitInserts(Leaf leaf) {
        if (!spec.insertsNotMatched()) {
            return Flux.empty();
        }
        AtomicLong at = new AtomicLong();
        if (leaf.memory() != null) { // held until cleanup
            return Flux.fromIterable(leaf.memory()).concatMap(b -> unmatched(leaf, b, at), 1);
        }
        return leaf.file().read(alloc).concatMap(b -> {
            try (b) {
                return unmatched(leaf, b, at);
            }
        }, 1);
    }

    /** The rows of {@code b} (left open) that matched nothing, completed to the dataset's schema. */
    private Mono<VectorSchemaRoot> unmatched(Leaf leaf, VectorSchemaRoot b, AtomicLong at) {
        long start = at.getAndAdd(b.getRowCount());
        int[] pos = new int[b.getRowCount()];
        int n = 0;
        for (int r = 0; r < b.getRowCount(); r++) {
            if (!leaf.matched().get((int) (start + r))) {
                pos[n++] = r;
            }
        }
        if (n == 0) {
            return Mono.empty();
        }
        VectorSchemaRoot picked = Batches.select(b, Arrays.copyOf(pos, n), alloc);
        VectorSchemaRoot full = picked;
        if (partial) {
            try (picked) {
                full = MergeRows.complete(ds.schema(), picked, null, alloc);
            }
        }
        for (int i = 0; i < n; i++) {
            note(-1L);
        }
        inserted += n;
        return Mono.just(full);
    }

    // ------------------------------------------------------------------ phase 3: what to delete

    /** Deletions (updated rows, and unmatched target rows when deleting by source) and the written rows' old addresses. */
    RowRewrites.Plan plan() {
        Map<FragmentInfo, RoaringBitmap> deletions = new LinkedHashMap<>();
        for (FragmentInfo f : ds.fragments()) {
            RoaringBitmap d = updatedTarget.getOrDefault(f.id(), new RoaringBitmap()).clone();
            RoaringBitmap e = eligible.get(f.id());
            if (e != null) {
                RoaringBitmap gone = RoaringBitmap.andNot(e, matchedTarget.getOrDefault(f.id(), new RoaringBitmap()));
                deleted += gone.getLongCardinality();
                d.or(gone);
            }
            if (!d.isEmpty()) {
                deletions.put(f, d);
            }
        }
        return new RowRewrites.Plan(deletions, Arrays.copyOf(replaced, written));
    }

    /** Closes what is still held and removes the spill directory (blocking: call on a blocking-capable thread). */
    void cleanup() {
        inMemory.forEach(VectorSchemaRoot::close);
        inMemory.clear();
        if (dir != null) {
            try (var files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot remove spill directory " + dir, e);
            }
        }
    }

    boolean spilled() {
        return dir != null;
    }
}
