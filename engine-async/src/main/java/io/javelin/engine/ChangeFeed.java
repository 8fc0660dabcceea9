package io.javelin.engine;

import io.javelin.tx.FragmentInfo;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.roaringbitmap.RoaringBitmap;
import org.roaringbitmap.longlong.Roaring64NavigableMap;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The change data feed between two versions, from stable row ids, the row version columns and deletion
 * files: the net change from {@code from} to {@code to}. A row live at {@code to} created after
 * {@code from} is an {@code insert}; one created by then but last updated after it an {@code update}
 * (values at {@code to}); a row live at {@code from} whose id is gone at {@code to} a {@code delete}
 * (values at {@code from}, its change version the first version without it). A row both inserted and
 * deleted in between does not appear. Needs stable row ids (an update keeps a row's id only then).
 */
final class ChangeFeed {

    static final String TYPE = "_change_type";
    static final String VERSION = "_change_version";

    private ChangeFeed() {
    }

    static Schema schema(Schema dataset) {
        List<Field> f = new ArrayList<>();
        f.add(new Field(TYPE, FieldType.notNullable(ArrowType.Utf8.INSTANCE), null));
        f.add(u64(VERSION));
        f.add(u64(Batches.ROW_ID));
        f.add(u64(RowVersionColumns.CREATED));
        f.add(u64(RowVersionColumns.UPDATED));
        f.addAll(dataset.getFields());
        return new Schema(f);
    }

    private static Field u64(String name) {
        return new Field(name, FieldType.notNullable(new ArrowType.Int(64, false)), null);
    }

    static Flux<VectorSchemaRoot> changes(Dataset any, long from, long to, BufferAllocator alloc) {
        if (from < 0 || to < from) {
            return Flux.error(new InvalidScanException(any.uri(), to, "A change feed needs 0 <= from <= to, got from " + from + " to " + to));
        }
        return Flux.usingWhen(any.checkout(to), target -> {
            if (!target.hasStableRowIds()) {
                return Flux.error(new InvalidScanException(any.uri(), to,
                        "A change feed needs stable row ids (create the dataset with enable_stable_row_ids)"));
            }
            if (from == to) {
                return Flux.empty();
            }
            Mono<Dataset> before = from == 0 ? Mono.empty() : target.checkout(from);
            return target.withFragments(() -> target.rowIds().preload().then(live(target)))
                    .flatMapMany(liveAtTo -> Flux.concat(upserts(target, from, alloc),
                            Flux.usingWhen(before, b -> deletes(b, to, liveAtTo, alloc), b -> Mono.fromRunnable(b::close))));
        }, t -> Mono.fromRunnable(t::close));
    }

    /** Row ids live at {@code ds}'s version. */
    private static Mono<Roaring64NavigableMap> live(Dataset ds) {
        Roaring64NavigableMap ids = new Roaring64NavigableMap();
        return Flux.fromIterable(ds.fragments())
                .concatMap(f -> ds.deletions(f).doOnNext(del -> {
                    long[] all = ds.rowIds().of(f);
                    for (int i = 0; i < all.length; i++) {
                        if (!del.contains(i)) {
                            ids.addLong(all[i]);
                        }
                    }
                }), 1)
                .then(Mono.just(ids));
    }

    private static Flux<VectorSchemaRoot> upserts(Dataset to, long from, BufferAllocator alloc) {
        return Flux.fromIterable(to.fragments()).concatMap(f -> to.deletions(f).flatMapMany(del -> {
            long[] all = new long[(int) f.physicalRows()];
            for (int i = 0; i < all.length; i++) {
                all[i] = i;
            }
            long[] created;
            long[] updated;
            try (UInt8Vector c = (UInt8Vector) RowVersionColumns.vector(RowVersionColumns.CREATED, to, f.id(), all, alloc);
                 UInt8Vector u = (UInt8Vector) RowVersionColumns.vector(RowVersionColumns.UPDATED, to, f.id(), all, alloc)) {
                created = values(c);
                updated = values(u);
            }
            long[] offs = new long[all.length];
            String[] kinds = new String[all.length];
            long[] at = new long[all.length];
            int n = 0;
            for (int i = 0; i < all.length; i++) {
                if (del.contains(i)) {
                    continue;
                }
                if (created[i] > from) {
                    kinds[n] = "insert";
                    at[n] = created[i];
                } else if (updated[i] > from) {
                    kinds[n] = "update";
                    at[n] = updated[i];
                } else {
                    continue;
                }
                offs[n++] = i;
            }
            return emit(to, f, Arrays.copyOf(offs, n), Arrays.copyOf(kinds, n), Arrays.copyOf(at, n), alloc);
        }), 1);
    }

    private static Flux<VectorSchemaRoot> deletes(Dataset from, long to, Roaring64NavigableMap liveAtTo, BufferAllocator alloc) {
        return from.withFragments(() -> from.rowIds().preload().then(Mono.just(from))).flatMapMany(d -> Flux.fromIterable(d.fragments())
                .concatMap(f -> d.deletions(f).map(del -> {
                    long[] ids = d.rowIds().of(f);
                    List<Long> gone = new ArrayList<>();
                    for (int i = 0; i < ids.length; i++) {
                        if (!del.contains(i) && !liveAtTo.contains(ids[i])) {
                            gone.add((long) i);
                        }
                    }
                    return Map.entry(f, gone.stream().mapToLong(Long::longValue).toArray());
                }), 1)
                .filter(e -> e.getValue().length > 0)
                .collectList()
                .flatMapMany(perFragment -> deletedAt(d, to, perFragment).flatMapMany(when -> Flux.fromIterable(perFragment)
                        .concatMap(e -> {
                            long[] offs = e.getValue();
                            String[] kinds = new String[offs.length];
                            long[] at = new long[offs.length];
                            long[] ids = d.rowIds().of(e.getKey());
                            Arrays.fill(kinds, "delete");
                            for (int i = 0; i < offs.length; i++) {
                                at[i] = when.getOrDefault(ids[(int) offs[i]], to);
                            }
                            return emit(d, e.getKey(), offs, kinds, at, alloc);
                        }, 1))));
    }

    /** For each deleted row id, the first version after {@code from.version()} (up to {@code to}) not holding it. */
    private static Mono<Map<Long, Long>> deletedAt(Dataset from, long to, List<Map.Entry<FragmentInfo, long[]>> gone) {
        Roaring64NavigableMap pending = new Roaring64NavigableMap();
        for (var e : gone) {
            long[] ids = from.rowIds().of(e.getKey());
            for (long o : e.getValue()) {
                pending.addLong(ids[(int) o]);
            }
        }
        Map<Long, Long> when = new java.util.HashMap<>();
        if (pending.isEmpty()) {
            return Mono.just(when);
        }
        return Flux.range(0, (int) (to - from.version() - 1)).map(i -> from.version() + 1 + i)
                .concatMap(v -> Mono.usingWhen(from.checkout(v), ds -> ds.withFragments(() -> ds.rowIds().preload().then(live(ds)))
                                .doOnNext(liveAtV -> {
                                    Roaring64NavigableMap goneNow = pending.clone();
                                    goneNow.andNot(liveAtV);
                                    goneNow.forEach(id -> when.put(id, v));
                                    pending.andNot(goneNow);
                                }), ds -> Mono.fromRunnable(ds::close))
                        .onErrorResume(DatasetNotFoundException.class, e -> Mono.empty()), 1) // cleaned up: attributed later
                .takeUntil(x -> pending.isEmpty())
                .then(Mono.just(when));
    }

    private static long[] values(UInt8Vector v) {
        long[] out = new long[v.getValueCount()];
        for (int i = 0; i < out.length; i++) {
            out[i] = v.get(i);
        }
        return out;
    }

    /** Rows {@code offsets} of {@code f} with the change columns first, a batch at a time. */
    private static Flux<VectorSchemaRoot> emit(Dataset ds, FragmentInfo f, long[] offsets, String[] kinds, long[] at, BufferAllocator alloc) {
        if (offsets.length == 0) {
            return Flux.empty();
        }
        List<String> cols = ds.schema().getFields().stream().map(Field::getName).toList();
        int chunk = Scanner.DEFAULT_BATCH_SIZE;
        return FragmentSource.open(ds, f, cols, ds.io()).flatMapMany(src -> Flux.range(0, (offsets.length + chunk - 1) / chunk)
                .concatMap(c -> {
                    int lo = c * chunk;
                    int hi = Math.min(offsets.length, lo + chunk);
                    long[] offs = Arrays.copyOfRange(offsets, lo, hi);
                    return src.take(offs, cols, alloc).map(data -> {
                        try (data) {
                            return withChangeColumns(ds, f, offs, Arrays.copyOfRange(kinds, lo, hi), Arrays.copyOfRange(at, lo, hi),
                                    BatchSchemas.conform(data, ds.schema()), alloc);
                        }
                    });
                }, 1));
    }

    private static VectorSchemaRoot withChangeColumns(Dataset ds, FragmentInfo f, long[] offs, String[] kinds, long[] at,
                                                      VectorSchemaRoot data, BufferAllocator alloc) {
        List<FieldVector> out = new ArrayList<>();
        try {
            VarCharVector type = new VarCharVector(new Field(TYPE, FieldType.notNullable(ArrowType.Utf8.INSTANCE), null), alloc);
            out.add(type);
            type.allocateNew();
            UInt8Vector version = new UInt8Vector(u64(VERSION), alloc);
            out.add(version);
            version.allocateNew(offs.length);
            for (int i = 0; i < offs.length; i++) {
                type.setSafe(i, kinds[i].getBytes(StandardCharsets.UTF_8));
                version.set(i, at[i]);
            }
            type.setValueCount(offs.length);
            version.setValueCount(offs.length);
            out.add(ds.rowIds().vector(f.id(), offs, alloc));
            out.add(RowVersionColumns.vector(RowVersionColumns.CREATED, ds, f.id(), offs, alloc));
            out.add(RowVersionColumns.vector(RowVersionColumns.UPDATED, ds, f.id(), offs, alloc));
            for (FieldVector v : data.getFieldVectors()) {
                out.add(Batches.move(v, alloc));
            }
            return Batches.root(out, offs.length);
        } catch (RuntimeException e) {
            out.forEach(FieldVector::close);
            throw e;
        }
    }
}
