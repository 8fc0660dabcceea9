package io.javelin.engine;

import io.javelin.encoding.writer.LanceFileVersion;
import io.javelin.engine.filter.FilterParseException;
import io.javelin.engine.filter.ValueExpression;
import io.javelin.tx.FragmentInfo;
import io.javelin.tx.Snapshot;
import io.javelin.tx.evolution.EvolutionManifests;
import io.javelin.tx.pb.DataFile;
import io.javelin.tx.pb.DataFragment;
import io.javelin.tx.pb.Manifest;
import io.javelin.tx.schema.ArrowSchemas;
import io.javelin.tx.schema.LanceSchema;
import io.javelin.tx.transaction.Transactions;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.TransferPair;
import org.roaringbitmap.RoaringBitmap;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Schema evolution as Lance does it ({@code schema_evolution.rs}):
 * <ul>
 *   <li>add columns: new field ids from {@code max_field_id + 1} (schema and data-file ids), committed as
 *       <b>Merge</b>; all-null columns change only the schema, backfilled ones get one new data file per
 *       fragment with exactly {@code physical_rows} rows (values from a SQL expression over all rows, or
 *       from a stream aligned with the live rows in fragment order, deleted slots filled);</li>
 *   <li>drop columns: <b>Project</b> (data files keep listing the dropped ids; files left with no field
 *       in the schema are dropped by the manifest builder);</li>
 *   <li>rename (also struct children) and nullability: <b>Project</b>; non-null → nullable only;</li>
 *   <li>cast (integer↔integer, float↔float, temporal↔temporal, utf8↔large_utf8, binary↔large_binary,
 *       decimal↔decimal; lossy values are errors): the column gets a new field id and new data files,
 *       committed as <b>Merge</b>.</li>
 * </ul>
 */
final class SchemaEvolution {

    private SchemaEvolution() {
    }

    // ------------------------------------------------------------------ add

    /** Columns that read as nulls until written: schema only. */
    static Mono<Snapshot> addNullColumns(Dataset ds, List<Field> fields) {
        return Mono.defer(() -> {
            for (Field f : fields) {
                if (!f.isNullable()) {
                    throw error(ds, "All-null columns must be nullable: '" + f.getName() + "'");
                }
            }
            List<io.javelin.encoding.pb.file.Field> added = newFieldIds(ds, fields);
            Manifest m = ds.snapshot().manifestFile().manifest();
            if (ds.isTreeLayout()) {
                // same result as Lance's Merge of unchanged fragments, without listing every fragment
                return Writes.commit(ds.handle(), Transactions.project(ds.version(), concat(m, added)));
            }
            return Writes.commit(ds.handle(), Transactions.merge(ds.version(), records(ds), concat(m, added),
                    m.getSchemaMetadataMap()));
        });
    }

    /** Columns computed by SQL expressions over existing columns ({@code name → expression}, in order). */
    static Mono<Snapshot> addColumns(Dataset ds, Map<String, String> expressions) {
        return Mono.defer(() -> {
            if (expressions.isEmpty()) {
                throw error(ds, "No columns to add");
            }
            Map<String, ValueExpression> exprs = new LinkedHashMap<>();
            List<Field> out = new ArrayList<>();
            Set<String> read = new HashSet<>();
            expressions.forEach((name, sql) -> {
                ValueExpression e = compile(ds, sql);
                exprs.put(name, e);
                out.add(e.resultField(name));
                read.addAll(e.referencedColumns());
            });
            List<String> readCols = ds.schema().getFields().stream().map(Field::getName).filter(read::contains).toList();
            Schema outSchema = new Schema(out);
            return backfill(ds, outSchema, readCols, (src, alloc) -> src.scan(readCols, 0, Long.MAX_VALUE, Scanner.DEFAULT_BATCH_SIZE, alloc)
                    .map(b -> {
                        try (b) {
                            List<FieldVector> vs = new ArrayList<>();
                            try {
                                for (Field f : out) {
                                    vs.add(exprs.get(f.getName()).evaluate(b, f, alloc));
                                }
                            } catch (RuntimeException e) {
                                vs.forEach(FieldVector::close);
                                throw e;
                            }
                            return new VectorSchemaRoot(out, vs, b.getRowCount());
                        }
                    }));
        });
    }

    /**
     * Columns supplied as a stream with one row per live row of the dataset, in fragment order (Lance's
     * {@code add_columns} from a reader). Deleted slots are filled (null, or the fragment's first live
     * value for non-nullable columns) so that every new file has {@code physical_rows} rows.
     */
    static Mono<Snapshot> addColumns(Dataset ds, Flux<VectorSchemaRoot> data, Schema columns) {
        return writeColumnFiles(ds, ds.fragments(), data, columns)
                .flatMap(files -> commitMerge(ds, files, newFieldIds(ds, columns.getFields())));
    }

    /**
     * Distributed new columns, worker side: data files for {@code columns} of {@code frags} only (one row per
     * live row, in the order of {@code frags}), not committed. Field ids are those the dataset version
     * assigns next, so every worker of one version agrees.
     */
    static Mono<List<FragmentMetadata>> writeColumns(Dataset ds, List<Long> fragmentIds, Flux<VectorSchemaRoot> data,
                                                      Schema columns) {
        return Mono.defer(() -> {
            Map<Long, FragmentInfo> byId = new LinkedHashMap<>();
            ds.fragments().forEach(f -> byId.put(f.id(), f));
            List<FragmentInfo> frags = new ArrayList<>();
            for (Long id : fragmentIds) {
                FragmentInfo f = byId.get(id);
                if (f == null) {
                    throw error(ds, "Fragment " + id + " does not exist in this version");
                }
                frags.add(f);
            }
            return writeColumnFiles(ds, frags, data, columns).map(files -> frags.stream()
                    .map(f -> new FragmentMetadata(f.fragment().toBuilder().addFiles(files.get(f.id())).build())).toList());
        });
    }

    /**
     * Distributed new columns, committer side: one Merge of the workers' fragments; fragments no worker
     * covered read the new columns as NULL. A fragment whose data files changed since (compaction, another
     * column) is refused; deletions in between are fine, the new files are aligned by physical row.
     */
    static Mono<Snapshot> commitColumns(Dataset ds, List<FragmentMetadata> written, Schema columns) {
        return Mono.defer(() -> {
            List<io.javelin.encoding.pb.file.Field> added = newFieldIds(ds, columns.getFields());
            java.util.Set<Integer> ids = new java.util.HashSet<>();
            added.forEach(f -> ids.add(f.getId()));
            Map<Long, FragmentInfo> byId = new LinkedHashMap<>();
            ds.fragments().forEach(f -> byId.put(f.id(), f));
            Map<Long, DataFile> files = new LinkedHashMap<>();
            for (FragmentMetadata w : written) {
                DataFragment nf = w.fragment();
                FragmentInfo cur = byId.get(nf.getId());
                int have = cur == null ? -1 : cur.fragment().getFilesCount();
                if (cur == null || nf.getFilesCount() != have + 1
                        || !nf.getFilesList().subList(0, have).equals(cur.fragment().getFilesList())) {
                    throw error(ds, "Fragment " + nf.getId() + " changed since its columns were written; write them again");
                }
                DataFile df = nf.getFiles(have);
                if (!ids.containsAll(df.getFieldsList()) || files.put(nf.getId(), df) != null) {
                    throw error(ds, "Fragment " + nf.getId() + ": new data file has fields " + df.getFieldsList()
                            + ", expected the new columns' ids " + ids + " (once per fragment)");
                }
            }
            return commitMerge(ds, files, added);
        });
    }

    /** Writes one data file of {@code columns} per fragment of {@code frags}, fed by {@code data}. */
    private static Mono<Map<Long, DataFile>> writeColumnFiles(Dataset ds, List<FragmentInfo> frags, Flux<VectorSchemaRoot> data,
                                                              Schema columns) {
        return Mono.defer(() -> writeColumnFiles(ds, frags, data, columns, newFieldIds(ds, columns.getFields())));
    }

    /** As above, the files' fields numbered {@code added} (new ids, or existing all-NULL columns being filled). */
    static Mono<Map<Long, DataFile>> writeColumnFiles(Dataset ds, List<FragmentInfo> frags, Flux<VectorSchemaRoot> data,
                                                      Schema columns, List<io.javelin.encoding.pb.file.Field> added) {
        return Mono.defer(() -> {
            AtomicInteger frag = new AtomicInteger();
            AtomicLong left = new AtomicLong(frags.isEmpty() ? 0 : frags.get(0).liveRows());
            BufferAllocator alloc = new RootAllocator();
            // slice the stream at fragment boundaries (live rows), tagging each slice with its fragment
            Flux<Map.Entry<Integer, VectorSchemaRoot>> slices = data.concatMapIterable(b -> {
                try (b) {
                    checkColumns(ds, b.getSchema(), columns);
                    List<Map.Entry<Integer, VectorSchemaRoot>> out = new ArrayList<>();
                    int at = 0;
                    while (at < b.getRowCount()) {
                        while (left.get() == 0 && frag.get() < frags.size() - 1) {
                            left.set(frags.get(frag.incrementAndGet()).liveRows());
                        }
                        if (left.get() == 0) {
                            out.forEach(e -> e.getValue().close());
                            throw error(ds, "Stream produced more values than expected for dataset (" + ds.snapshot().countRows()
                                    + " rows)");
                        }
                        int n = (int) Math.min(left.get(), b.getRowCount() - at);
                        out.add(Map.entry(frag.get(), Batches.slice(b, at, n, alloc)));
                        left.addAndGet(-n);
                        at += n;
                    }
                    return out;
                }
            });
            AtomicInteger written = new AtomicInteger();
            Map<Long, DataFile> files = new LinkedHashMap<>();
            LanceSchema lance = LanceSchema.fromProto(added, Map.of());
            return slices.windowUntilChanged(Map.Entry::getKey)
                    .concatMap(w -> w.collectList().flatMap(parts -> {
                        FragmentInfo f = frags.get(parts.get(0).getKey());
                        written.incrementAndGet();
                        long got = parts.stream().mapToLong(e -> e.getValue().getRowCount()).sum();
                        if (got != f.liveRows()) {
                            parts.forEach(e -> e.getValue().close());
                            return Mono.error(error(ds, "Stream ended before producing values for all rows in dataset"));
                        }
                        return ds.deletions(f).flatMap(del -> {
                            VectorSchemaRoot full = expand(parts.stream().map(Map.Entry::getValue).toList(), columns, del,
                                    (int) f.physicalRows(), alloc);
                            return writeOne(ds, full, columns, lance).doOnNext(df -> files.put(f.id(), df));
                        });
                    }), 1)
                    .then(Mono.defer(() -> {
                        if (written.get() < frags.size() || left.get() > 0) {
                            return Mono.error(error(ds, "Stream ended before producing values for all rows in dataset"));
                        }
                        return Mono.just(files);
                    }))
                    .doOnDiscard(Map.Entry.class, e -> {
                        if (e.getValue() instanceof VectorSchemaRoot r) {
                            r.close();
                        }
                    })
                    .doOnDiscard(VectorSchemaRoot.class, VectorSchemaRoot::close)
                    .doFinally(s -> alloc.close());
        });
    }

    private static void checkColumns(Dataset ds, Schema got, Schema want) {
        if (got.getFields().size() != want.getFields().size()) {
            throw error(ds, "New column batch has columns " + got.getFields().stream().map(Field::getName).toList()
                    + ", expected " + want.getFields().stream().map(Field::getName).toList());
        }
        for (int i = 0; i < got.getFields().size(); i++) {
            Field a = got.getFields().get(i);
            Field b = want.getFields().get(i);
            if (!a.getName().equals(b.getName()) || !a.getType().equals(b.getType())) {
                throw error(ds, "New column batch field " + a + " does not match " + b);
            }
        }
    }

    /** Live-row slices → one root of {@code physical} rows, deleted slots filled. Closes the slices. */
    private static VectorSchemaRoot expand(List<VectorSchemaRoot> parts, Schema columns, RoaringBitmap deleted, int physical,
                                           BufferAllocator alloc) {
        List<FieldVector> out = new ArrayList<>();
        try {
            for (int c = 0; c < columns.getFields().size(); c++) {
                Field field = columns.getFields().get(c);
                FieldVector v = field.createVector(alloc);
                out.add(v);
                v.allocateNew();
                int partIdx = 0;
                int row = 0;
                VectorSchemaRoot first = parts.get(0);
                TransferPair firstTp = first.getVector(c).makeTransferPair(v);
                TransferPair tp = parts.get(0).getVector(c).makeTransferPair(v);
                for (int p = 0; p < physical; p++) {
                    if (deleted.contains(p)) {
                        if (!field.isNullable()) {
                            firstTp.copyValueSafe(0, p); // Lance fills blanks with a live value too
                        }
                        continue;
                    }
                    while (row >= parts.get(partIdx).getRowCount()) {
                        partIdx++;
                        row = 0;
                        tp = parts.get(partIdx).getVector(c).makeTransferPair(v);
                    }
                    tp.copyValueSafe(row++, p);
                }
                v.setValueCount(physical);
            }
            return new VectorSchemaRoot(columns.getFields(), out, physical);
        } catch (RuntimeException e) {
            out.forEach(FieldVector::close);
            throw e;
        } finally {
            parts.forEach(VectorSchemaRoot::close);
        }
    }

    /**
     * Writes one new data file per fragment from {@code columnsOf(fragment source)} (batches covering all
     * physical rows in order) and commits a Merge adding {@code columns} (new field ids) to the schema.
     */
    private static Mono<Snapshot> backfill(Dataset ds, Schema columns, List<String> readCols,
                                           java.util.function.BiFunction<FragmentSource, BufferAllocator, Flux<VectorSchemaRoot>> columnsOf) {
        List<io.javelin.encoding.pb.file.Field> added = newFieldIds(ds, columns.getFields());
        LanceSchema lance = LanceSchema.fromProto(added, Map.of());
        Map<Long, DataFile> files = new LinkedHashMap<>();
        return Mono.usingWhen(Mono.fromCallable(RootAllocator::new),
                alloc -> Flux.fromIterable(ds.fragments())
                        .concatMap(f -> FragmentSource.open(ds, f, readCols, ds.io())
                                .flatMap(src -> Writes.writeFiles(ds.handle(), columnsOf.apply(src, alloc), columns, lance,
                                        fileVersion(ds), Long.MAX_VALUE).collectList())
                                .doOnNext(list -> files.put(f.id(), single(f, list))), 1)
                        .then(Mono.defer(() -> commitMerge(ds, files, added))),
                alloc -> Mono.fromRunnable(alloc::close));
    }

    /** The one data file written for fragment {@code f}; it must hold exactly its physical rows. */
    private static DataFile single(FragmentInfo f, List<DataFragment> written) {
        long rows = written.stream().mapToLong(DataFragment::getPhysicalRows).sum();
        if (written.size() != 1 || rows != f.physicalRows()) {
            throw new IllegalStateException("New column data for fragment " + f.id() + " has " + rows + " rows in "
                    + written.size() + " files, expected " + f.physicalRows() + " rows in one");
        }
        return written.get(0).getFiles(0);
    }

    private static Mono<DataFile> writeOne(Dataset ds, VectorSchemaRoot root, Schema columns, LanceSchema lance) {
        return Writes.writeFiles(ds.handle(), Flux.just(root), columns, lance, fileVersion(ds), Long.MAX_VALUE)
                .single().map(fr -> fr.getFiles(0));
    }

    private static Mono<Snapshot> commitMerge(Dataset ds, Map<Long, DataFile> files, List<io.javelin.encoding.pb.file.Field> added) {
        Manifest m = ds.snapshot().manifestFile().manifest();
        List<DataFragment> frags = new ArrayList<>();
        for (DataFragment f : records(ds)) {
            DataFile nf = files.get(f.getId());
            frags.add(nf == null ? f : f.toBuilder().addFiles(nf).build());
        }
        return Writes.commit(ds.handle(), Transactions.merge(ds.version(), frags, concat(m, added), m.getSchemaMetadataMap()));
    }

    // ------------------------------------------------------------------ drop, alter

    static Mono<Snapshot> dropColumns(Dataset ds, List<String> paths) {
        return Mono.defer(() -> {
            Manifest m = ds.snapshot().manifestFile().manifest();
            Set<Integer> drop = new HashSet<>();
            for (String p : paths) {
                io.javelin.encoding.pb.file.Field f = byPath(ds, m, p);
                drop.addAll(subtree(m, f.getId()));
            }
            List<io.javelin.encoding.pb.file.Field> kept = m.getFieldsList().stream().filter(f -> !drop.contains(f.getId())).toList();
            if (kept.stream().noneMatch(f -> f.getParentId() == -1)) {
                throw error(ds, "Cannot drop all columns from a dataset");
            }
            return Writes.commit(ds.handle(), Transactions.project(ds.version(), kept));
        });
    }

    static Mono<Snapshot> alterColumns(Dataset ds, List<ColumnAlteration> alterations) {
        return Mono.defer(() -> {
            Manifest m = ds.snapshot().manifestFile().manifest();
            List<io.javelin.encoding.pb.file.Field> schema = new ArrayList<>(m.getFieldsList());
            int next = maxFieldId(ds, m) + 1;
            List<String> castSources = new ArrayList<>();
            List<Field> castTargets = new ArrayList<>();
            Set<Integer> replaced = new HashSet<>();
            for (ColumnAlteration a : alterations) {
                io.javelin.encoding.pb.file.Field src = byPath(ds, m, a.path());
                int idx = indexOf(schema, src.getId());
                io.javelin.encoding.pb.file.Field.Builder b = schema.get(idx).toBuilder();
                if (a.nullable() != null) {
                    if (src.getNullable() && !a.nullable()) {
                        throw error(ds, "Column \"" + a.path() + "\" is already nullable and thus cannot be made non-nullable");
                    }
                    b.setNullable(a.nullable());
                }
                if (a.rename() != null) {
                    if (a.rename().isEmpty() || a.rename().contains(".")) {
                        throw error(ds, "Invalid column name '" + a.rename() + "'");
                    }
                    for (io.javelin.encoding.pb.file.Field s : schema) {
                        if (s.getParentId() == src.getParentId() && s.getId() != src.getId() && s.getName().equals(a.rename())) {
                            throw error(ds, "Cannot rename \"" + a.path() + "\" to \"" + a.rename() + "\": the name is taken");
                        }
                    }
                    b.setName(a.rename());
                }
                if (a.castTo() != null) {
                    if (src.getParentId() != -1) {
                        throw error(ds, "Casting nested field \"" + a.path() + "\" is not supported");
                    }
                    Field old = ds.schema().findField(src.getName());
                    if (!castAllowed(old.getType(), a.castTo())) {
                        throw error(ds, "Cannot cast column \"" + a.path() + "\" from " + old.getType() + " to " + a.castTo());
                    }
                    Field target = new Field(b.getName(), new org.apache.arrow.vector.types.pojo.FieldType(b.getNullable(), a.castTo(),
                            null), null);
                    b.setLogicalType(ArrowSchemas.logicalType(target)).setId(next++).clearMetadata();
                    replaced.add(src.getId());
                    castSources.add(src.getName());
                    castTargets.add(target);
                }
                schema.set(idx, b.build());
            }
            LanceSchema check = LanceSchema.fromProto(schema, Map.of()); // validates tree and ids
            if (check.fields().isEmpty()) {
                throw error(ds, "Empty schema");
            }
            if (castTargets.isEmpty()) {
                return Writes.commit(ds.handle(), Transactions.project(ds.version(), schema));
            }
            Schema outSchema = new Schema(castTargets);
            Set<Integer> newIds = new HashSet<>();
            for (io.javelin.encoding.pb.file.Field f : schema) {
                if (f.getId() > maxFieldId(ds, m)) {
                    newIds.add(f.getId());
                }
            }
            // "added" carries the full new schema; ids not cast are left out of the written file
            Set<Integer> notWritten = new HashSet<>();
            schema.forEach(f -> {
                if (!newIds.contains(f.getId())) {
                    notWritten.add(f.getId());
                }
            });
            List<ValueExpression> casts = new ArrayList<>();
            for (String s : castSources) {
                casts.add(compile(ds, "`" + s + "`"));
            }
            return castBackfill(ds, outSchema, schema, notWritten, castSources, casts);
        });
    }

    private static Mono<Snapshot> castBackfill(Dataset ds, Schema out, List<io.javelin.encoding.pb.file.Field> schema,
                                               Set<Integer> notWritten, List<String> sources, List<ValueExpression> casts) {
        List<String> read = List.copyOf(new java.util.LinkedHashSet<>(sources));
        LanceSchema lance = LanceSchema.fromProto(schema.stream().filter(f -> !notWritten.contains(f.getId())).toList(), Map.of());
        Map<Long, DataFile> files = new LinkedHashMap<>();
        return Mono.usingWhen(Mono.fromCallable(RootAllocator::new),
                alloc -> Flux.fromIterable(ds.fragments())
                        .concatMap(f -> FragmentSource.open(ds, f, read, ds.io()).flatMap(src -> Writes.writeFiles(ds.handle(),
                                        src.scan(read, 0, Long.MAX_VALUE, Scanner.DEFAULT_BATCH_SIZE, alloc).map(b -> {
                                            try (b) {
                                                List<FieldVector> vs = new ArrayList<>();
                                                try {
                                                    for (int i = 0; i < casts.size(); i++) {
                                                        vs.add(casts.get(i).evaluate(b, out.getFields().get(i), alloc));
                                                    }
                                                } catch (RuntimeException e) {
                                                    vs.forEach(FieldVector::close);
                                                    throw e;
                                                }
                                                return new VectorSchemaRoot(out.getFields(), vs, b.getRowCount());
                                            }
                                        }), out, lance, fileVersion(ds), Long.MAX_VALUE)
                                .single()
                                .doOnNext(fr -> files.put(f.id(), fr.getFiles(0)))), 1)
                        .then(Mono.defer(() -> {
                            Manifest m = ds.snapshot().manifestFile().manifest();
                            Set<Integer> live = new HashSet<>();
                            schema.forEach(x -> live.add(x.getId()));
                            List<DataFragment> frags = new ArrayList<>();
                            for (DataFragment f : records(ds)) {
                                DataFragment.Builder b = f.toBuilder().clearFiles();
                                f.getFilesList().stream().filter(df -> df.getFieldsList().stream().anyMatch(live::contains))
                                        .forEach(b::addFiles);
                                b.addFiles(files.get(f.getId()));
                                frags.add(b.build());
                            }
                            return Writes.commit(ds.handle(), Transactions.merge(ds.version(), frags, schema, m.getSchemaMetadataMap()));
                        })),
                alloc -> Mono.fromRunnable(alloc::close));
    }

    /** Lance's {@code is_upcast_downcast} (plus Arrow castability) for the types this engine can convert. */
    static boolean castAllowed(ArrowType from, ArrowType to) {
        return switch (from) {
            case ArrowType.Int i -> to instanceof ArrowType.Int;
            case ArrowType.FloatingPoint f -> to instanceof ArrowType.FloatingPoint fp
                    && fp.getPrecision() != org.apache.arrow.vector.types.FloatingPointPrecision.HALF;
            case ArrowType.Date d -> to instanceof ArrowType.Date || to instanceof ArrowType.Timestamp;
            case ArrowType.Timestamp t -> to instanceof ArrowType.Timestamp || to instanceof ArrowType.Date;
            case ArrowType.Utf8 u -> to instanceof ArrowType.Utf8 || to instanceof ArrowType.LargeUtf8;
            case ArrowType.LargeUtf8 u -> to instanceof ArrowType.Utf8 || to instanceof ArrowType.LargeUtf8;
            case ArrowType.Binary b -> to instanceof ArrowType.Binary || to instanceof ArrowType.LargeBinary;
            case ArrowType.LargeBinary b -> to instanceof ArrowType.Binary || to instanceof ArrowType.LargeBinary;
            case ArrowType.Decimal d -> to instanceof ArrowType.Decimal dd && dd.getBitWidth() == 128 && d.getBitWidth() == 128;
            case ArrowType.Bool b -> to instanceof ArrowType.Bool;
            default -> false;
        };
    }

    // ------------------------------------------------------------------ helpers

    static LanceFileVersion fileVersion(Dataset ds) {
        return WriteVersions.of(ds.dataStorageVersion(), LanceFileVersion.V2_0);
    }

    static ValueExpression compile(Dataset ds, String sql) {
        try {
            return ValueExpression.compile(sql, ds.schema());
        } catch (FilterParseException e) {
            throw new InvalidScanException(ds.uri(), ds.version(), "Invalid expression: " + e.getMessage(), e);
        }
    }

    /** Lance field protos for new top-level {@code fields}, ids from {@code max_field_id + 1} in pre-order. */
    static List<io.javelin.encoding.pb.file.Field> newFieldIds(Dataset ds, List<Field> fields) {
        Manifest m = ds.snapshot().manifestFile().manifest();
        Set<String> names = new HashSet<>();
        ds.schema().getFields().forEach(f -> names.add(f.getName()));
        for (Field f : fields) {
            if (names.contains(f.getName()) || !names.add(f.getName())) {
                throw error(ds, "Column " + f.getName() + " already exists in the dataset");
            }
        }
        int base = maxFieldId(ds, m) + 1;
        List<io.javelin.encoding.pb.file.Field> out = new ArrayList<>();
        for (io.javelin.encoding.pb.file.Field f : ArrowSchemas.fromArrow(new Schema(fields)).toProto()) {
            out.add(f.toBuilder().setId(f.getId() + base).setParentId(f.getParentId() < 0 ? -1 : f.getParentId() + base).build());
        }
        return out;
    }

    private static List<io.javelin.encoding.pb.file.Field> concat(Manifest m, List<io.javelin.encoding.pb.file.Field> added) {
        List<io.javelin.encoding.pb.file.Field> all = new ArrayList<>(m.getFieldsList());
        all.addAll(added);
        return all;
    }

    /** The schema field at a dotted path ({@code s.a}); a typed error naming the path if absent. */
    static io.javelin.encoding.pb.file.Field byPath(Dataset ds, Manifest m, String path) {
        String[] parts = path.split("\\.");
        int parent = -1;
        io.javelin.encoding.pb.file.Field hit = null;
        for (String p : parts) {
            hit = null;
            for (io.javelin.encoding.pb.file.Field f : m.getFieldsList()) {
                if (f.getParentId() == parent && f.getName().equals(p)) {
                    hit = f;
                }
            }
            if (hit == null) {
                throw error(ds, "Column \"" + path + "\" does not exist in the dataset");
            }
            parent = hit.getId();
        }
        return hit;
    }

    private static Set<Integer> subtree(Manifest m, int id) {
        Set<Integer> out = new HashSet<>();
        out.add(id);
        boolean grew = true;
        while (grew) {
            grew = false;
            for (io.javelin.encoding.pb.file.Field f : m.getFieldsList()) {
                if (out.contains(f.getParentId()) && out.add(f.getId())) {
                    grew = true;
                }
            }
        }
        return out;
    }

    private static int indexOf(List<io.javelin.encoding.pb.file.Field> schema, int id) {
        for (int i = 0; i < schema.size(); i++) {
            if (schema.get(i).getId() == id) {
                return i;
            }
        }
        return -1;
    }

    /**
     * Lance's max field id: schema ids and ids in any data file. A tree table's manifest lists no
     * fragments, so its loaded fragment records are scanned too (a dropped column's id must not be reused).
     */
    static int maxFieldId(Dataset ds, Manifest m) {
        int max = EvolutionManifests.maxFieldId(m);
        for (FragmentInfo f : ds.snapshot().catalog().loaded().orElse(List.of())) {
            for (DataFile df : f.fragment().getFilesList()) {
                for (int id : df.getFieldsList()) {
                    max = Math.max(max, id);
                }
            }
        }
        return max;
    }

    static SchemaEvolutionException error(Dataset ds, String message) {
        return new SchemaEvolutionException(ds.uri(), ds.version(), message);
    }

    /** Fragment records of this version (a tree table's come from its leaves, loaded before any operation). */
    private static List<DataFragment> records(Dataset ds) {
        return ds.fragments().stream().map(io.javelin.tx.FragmentInfo::fragment).toList();
    }
}
