package io.javelin.engine;

import io.javelin.encoding.file.LanceFileReader;
import io.javelin.encoding.io.ObjectStoreSource;
import io.javelin.encoding.writer.LanceFileVersion;
import io.javelin.encoding.writer.LanceFileWriter;
import io.javelin.encoding.writer.WriteOptions;
import io.javelin.engine.filter.Predicate;
import io.javelin.tx.FragmentInfo;
import io.javelin.tx.Snapshot;
import io.javelin.tx.VersionNotFoundException;
import io.javelin.tx.deletion.DeletionFiles;
import io.javelin.tx.pb.DataFile;
import io.javelin.tx.pb.DataFragment;
import io.javelin.tx.pb.Transaction;
import io.javelin.tx.schema.ArrowSchemas;
import io.javelin.tx.schema.LanceField;
import io.javelin.tx.schema.LanceSchema;
import io.javelin.tx.transaction.Transactions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.roaringbitmap.RoaringBitmap;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** Write paths: data files → fragments → one transaction through the commit engine. */
final class Writes {

    private Writes() {
    }

    private static Mono<Optional<Snapshot>> latest(Dataset.Handle h) {
        return h.table.open().map(Optional::of)
                .onErrorResume(VersionNotFoundException.class, e -> Mono.just(Optional.empty()));
    }

    static Mono<Snapshot> write(Dataset.Handle h, Flux<VectorSchemaRoot> input, Schema given, WriteParams params) {
        // files and manifest never record Arrow Java's $data$; JSON text columns are stored as JSONB
        Schema named = JsonColumns.storageSchema(BatchSchemas.withItemNames(given));
        Flux<VectorSchemaRoot> data = jsonb(input, given);
        return latest(h).flatMap(cur -> {
            Schema schema = named;
            WriteMode mode = params.mode();
            if (mode == WriteMode.CREATE && cur.isPresent()) {
                return Mono.error(new DatasetAlreadyExistsException(h.uri, cur.get().version(), "Dataset already exists"));
            }
            boolean append = mode == WriteMode.APPEND && cur.isPresent();
            LanceSchema lance;
            LanceFileVersion fileVersion;
            if (append) {
                Snapshot s = cur.get();
                lance = s.schema();
                checkSameSchema(h.uri, s.version(), ArrowSchemas.toArrow(lance), schema);
                schema = BlobWritePrep.withStoredThresholds(h.uri, ArrowSchemas.toArrow(lance), schema);
                fileVersion = WriteVersions.of(s.dataStorageVersion(), params.dataStorageVersion());
            } else {
                lance = ArrowSchemas.fromArrow(schema);
                fileVersion = params.dataStorageVersion();
            }
            long readVersion = cur.map(Snapshot::version).orElse(0L);
            return writeFiles(h, data, schema, lance, fileVersion, params.maxRowsPerFile(), params.maxBytesPerFile(), params.blobs()).collectList().flatMap(frags -> {
                Transaction txn = append
                        ? Transactions.append(readVersion, frags)
                        : Transactions.overwrite(readVersion, frags, lance.toProto(), params.tableConfig());
                return h.commits.commit(txn, params.enableStableRowIds()).flatMap(r -> h.table.snapshotOf(r.manifest()));
            });
        }).doOnDiscard(VectorSchemaRoot.class, VectorSchemaRoot::close);
    }

    static Mono<Snapshot> commit(Dataset.Handle h, Transaction txn) {
        // the committed manifest is in hand (as written): no read-back
        return h.commits.commit(txn).flatMap(r -> h.table.snapshotOf(r.manifest()));
    }

    static Mono<List<FragmentMetadata>> writeFragments(Dataset.Handle h, Flux<VectorSchemaRoot> input, Schema given,
                                                       WriteParams params) {
        Schema schema = JsonColumns.storageSchema(BatchSchemas.withItemNames(given));
        Flux<VectorSchemaRoot> data = jsonb(input, given);
        return latest(h).flatMap(cur -> {
            LanceSchema lance = cur.isPresent() && params.mode() == WriteMode.APPEND ? cur.get().schema() : ArrowSchemas.fromArrow(schema);
            if (cur.isPresent() && params.mode() == WriteMode.APPEND) {
                checkSameSchema(h.uri, cur.get().version(), ArrowSchemas.toArrow(lance), schema);
            }
            return writeFiles(h, data, schema, lance, params.dataStorageVersion(), params.maxRowsPerFile(), params.maxBytesPerFile(), params.blobs())
                    .map(FragmentMetadata::new).collectList();
        }).doOnDiscard(VectorSchemaRoot.class, VectorSchemaRoot::close);
    }

    static Mono<Snapshot> commitFragments(Dataset.Handle h, WriteMode mode, List<FragmentMetadata> fragments, Schema given) {
        Schema schema = JsonColumns.storageSchema(BatchSchemas.withItemNames(given));
        List<DataFragment> frags = fragments.stream().map(FragmentMetadata::fragment).toList();
        return latest(h).flatMap(cur -> {
            long readVersion = cur.map(Snapshot::version).orElse(0L);
            Transaction txn = switch (mode) {
                case APPEND -> {
                    if (cur.isEmpty()) {
                        yield Transactions.overwrite(0, frags, ArrowSchemas.fromArrow(schema).toProto(), Map.of());
                    }
                    checkSameSchema(h.uri, readVersion, ArrowSchemas.toArrow(cur.get().schema()), schema);
                    yield Transactions.append(readVersion, frags);
                }
                case OVERWRITE -> Transactions.overwrite(readVersion, frags, ArrowSchemas.fromArrow(schema).toProto(), Map.of());
                case CREATE -> {
                    if (cur.isPresent()) {
                        throw new DatasetAlreadyExistsException(h.uri, readVersion, "Dataset already exists");
                    }
                    yield Transactions.overwrite(0, frags, ArrowSchemas.fromArrow(schema).toProto(), Map.of());
                }
            };
            return commit(h, txn);
        });
    }

    /** JSON text columns of {@code given} encoded as JSONB (the incoming batch is closed whatever happens). */
    static Flux<VectorSchemaRoot> jsonb(Flux<VectorSchemaRoot> data, Schema given) {
        if (JsonColumns.storageSchema(given) == given) {
            return data;
        }
        return data.map(b -> {
            try {
                return JsonColumns.toJsonb(b, given);
            } catch (RuntimeException e) {
                b.close();
                throw e;
            }
        });
    }

    /** Splits the stream into files of at most about {@code maxRows} rows; each becomes one fragment. */
    static Flux<DataFragment> writeFiles(Dataset.Handle h, Flux<VectorSchemaRoot> data, Schema schema, LanceSchema lance,
                                         LanceFileVersion version, long maxRows, BlobWriteOptions blobs) {
        return writeFiles(h, data, schema, lance, version, maxRows, WriteParams.DEFAULT_MAX_BYTES_PER_FILE, blobs);
    }

    /**
     * ... also closing a file once its batches reach {@code maxBytes} of Arrow data (Lance checks the bytes
     * written after each batch the same way, so a file may exceed the cap by one batch).
     */
    static Flux<DataFragment> writeFiles(Dataset.Handle h, Flux<VectorSchemaRoot> data, Schema schema, LanceSchema lance,
                                         LanceFileVersion version, long maxRows, long maxBytes, BlobWriteOptions blobs) {
        BlobWritePrep.validateSchema(h.uri, schema, version);
        return Flux.defer(() -> {
            AtomicLong inFile = new AtomicLong();
            AtomicLong bytesInFile = new AtomicLong();
            return data.windowUntil(b -> {
                long bytes = 0;
                for (var v : b.getFieldVectors()) {
                    bytes += v.getBufferSize();
                }
                if (inFile.addAndGet(b.getRowCount()) >= maxRows | bytesInFile.addAndGet(bytes) >= maxBytes) {
                    inFile.set(0);
                    bytesInFile.set(0);
                    return true;
                }
                return false;
            }, false, 1).concatMap(w -> writeFile(h, w, schema, lance, version, blobs), 1);
        });
    }

    static Flux<DataFragment> writeFiles(Dataset.Handle h, Flux<VectorSchemaRoot> data, Schema schema, LanceSchema lance,
                                         LanceFileVersion version, long maxRows) {
        return writeFiles(h, data, schema, lance, version, maxRows, BlobWriteOptions.DEFAULTS);
    }

    /** {@code raw}: batches this file owns (each closed once encoded). */
    private static Mono<DataFragment> writeFile(Dataset.Handle h, Flux<VectorSchemaRoot> raw, Schema schema, LanceSchema lance,
                                                LanceFileVersion version, BlobWriteOptions blobs) {
        String name = dataFileName();
        String path = "data/" + name;
        BlobWritePrep prep = BlobWritePrep.of(h.store, h.uri, name, schema, blobs);
        Schema fileSchema = prep == null ? schema : BlobWritePrep.preparedSchema(schema);
        Flux<VectorSchemaRoot> batches = prep == null
                ? raw.concatMap(b -> Mono.just(b).doFinally(sig -> b.close()), 1)
                : raw.concatMap(b -> prep.prepare(b, fileSchema).flatMap(p -> Mono.just(p).doFinally(sig -> p.close())), 1);
        return LanceFileWriter.write(batches, fileSchema, h.store, path, WriteOptions.of(version))
                .flatMap(res -> prep == null ? Mono.just(res) : prep.finish().thenReturn(res)).flatMap(res -> {
            if (res.rows() == 0) {
                return h.store.delete(path).then(Mono.<DataFragment>empty());
            }
            return LanceFileReader.open(new ObjectStoreSource(h.store, path)).map(r -> {
                DataFile.Builder df = DataFile.newBuilder().setPath(name)
                        .setFileMajorVersion(version == LanceFileVersion.V2_0 ? 0 : version.footerMajor())
                        .setFileMinorVersion(version == LanceFileVersion.V2_0 ? 3 : version.footerMinor())
                        .setFileSizeBytes(res.bytes());
                mapFields(r.metadata().fields(), lance.fields(), df);
                return DataFragment.newBuilder().setId(0).addFiles(df).setPhysicalRows(res.rows()).build();
            });
        });
    }

    /** DataFile.fields (dataset field ids) and column_indices (file columns), pre-order, matched by name. */
    private static void mapFields(List<io.javelin.encoding.file.LanceField> file, List<LanceField> dataset, DataFile.Builder df) {
        mapFields(file, dataset, df, false);
    }

    /** {@code positional}: the only child of a list, whose name differs between Arrow implementations. */
    private static void mapFields(List<io.javelin.encoding.file.LanceField> file, List<LanceField> dataset, DataFile.Builder df,
                                  boolean positional) {
        for (var f : file) {
            LanceField d = positional && file.size() == 1 && dataset.size() == 1 ? dataset.get(0) : null;
            for (LanceField x : dataset) {
                if (d == null && x.name().equals(f.name())) {
                    d = x;
                }
            }
            if (d == null) {
                throw new IllegalStateException("Written field " + f.name() + " is not in the dataset schema");
            }
            df.addFields(d.id()).addColumnIndices(f.column());
            if (f.blob() && f.packed() && f.isStruct()) {
                continue; // blob v2: one column; the dataset keeps the logical children, the file the descriptor
            }
            mapFields(f.children(), d.children(), df, d.logicalType().startsWith("list") || d.logicalType().startsWith("large_list"));
        }
    }

    /** Lance's data file name: 24 binary digits of 3 random bytes, then 26 hex digits of 13 more, {@code .lance}. */
    static String dataFileName() {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        StringBuilder sb = new StringBuilder(56);
        for (int i = 0; i < 24; i++) {
            sb.append(r.nextBoolean() ? '1' : '0');
        }
        for (int i = 0; i < 26; i++) {
            sb.append(Character.forDigit(r.nextInt(16), 16));
        }
        return sb.append(".lance").toString();
    }

    static void checkSameSchema(String uri, long version, Schema dataset, Schema incoming) {
        if (!sameFields(dataset.getFields(), incoming.getFields())) {
            throw new SchemaMismatchException(uri, version, "Data schema " + brief(incoming) + " does not match the dataset's "
                    + brief(dataset));
        }
    }

    private static boolean sameFields(List<Field> a, List<Field> b) {
        return sameFields(a, b, false);
    }

    /** {@code positional}: a list's or map's children, whose names Arrow Java does not keep ($data$). */
    private static boolean sameFields(List<Field> a, List<Field> b, boolean positional) {
        if (a.size() != b.size()) {
            return false;
        }
        for (int i = 0; i < a.size(); i++) {
            Field x = a.get(i);
            Field y = b.get(i);
            if (!positional && !x.getName().equals(y.getName()) || !x.getType().equals(y.getType())
                    || !sameFields(x.getChildren(), y.getChildren(), !(x.getType() instanceof org.apache.arrow.vector.types.pojo.ArrowType.Struct))) {
                return false;
            }
        }
        return true;
    }

    private static String brief(Schema s) {
        return s.getFields().stream().map(f -> f.getName() + ":" + f.getType()).toList().toString();
    }

    // ------------------------------------------------------------------ delete

    private record Change(DataFragment updated, Long removed) {
    }

    static Mono<Snapshot> delete(Dataset ds, String filter) {
        return Mono.defer(() -> {
            Predicate pred = ds.compile(filter);
            List<String> cols = new ArrayList<>();
            for (var f : ds.schema().getFields()) {
                if (pred.referencedColumns().contains(f.getName())) {
                    cols.add(f.getName());
                }
            }
            Dataset.Handle h = ds.handle();
            return commitDeletes(ds, Flux.fromIterable(ds.fragments())
                    .concatMap(f -> Mono.zip(ds.deletions(f), Scan.matching(ds, f, pred, cols, Scanner.DEFAULT_BATCH_SIZE))
                            .flatMap(t -> change(h, ds.version(), f, t.getT1(), t.getT2())), 1), filter);
        });
    }

    /** Deletes the given live offsets per fragment ({@code _rowid} deletes), committed as one Delete. */
    static Mono<Snapshot> deleteOffsets(Dataset ds, Map<FragmentInfo, RoaringBitmap> hits, String predicate) {
        Dataset.Handle h = ds.handle();
        return commitDeletes(ds, Flux.fromIterable(hits.entrySet())
                .concatMap(e -> ds.deletions(e.getKey()).flatMap(old -> change(h, ds.version(), e.getKey(), old, e.getValue())), 1),
                predicate);
    }

    private static Mono<Snapshot> commitDeletes(Dataset ds, Flux<Change> changed, String filter) {
        Dataset.Handle h = ds.handle();
        return Mono.defer(() -> {
            return changed
                    .collectList()
                    .flatMap(changes -> {
                        List<DataFragment> updated = new ArrayList<>();
                        List<Long> removed = new ArrayList<>();
                        for (Change c : changes) {
                            if (c.updated() != null) {
                                updated.add(c.updated());
                            } else {
                                removed.add(c.removed());
                            }
                        }
                        return commit(h, Transactions.delete(ds.version(), updated, removed, filter));
                    });
        });
    }

    private static Mono<Change> change(Dataset.Handle h, long readVersion, FragmentInfo f, RoaringBitmap old, RoaringBitmap hits) {
        if (hits.isEmpty()) {
            return Mono.empty();
        }
        RoaringBitmap all = RoaringBitmap.or(old, hits);
        if (all.getLongCardinality() >= f.physicalRows()) {
            return Mono.just(new Change(null, f.id()));
        }
        return DeletionFiles.write(h.manifests, f.id(), readVersion, all)
                .map(df -> new Change(f.fragment().toBuilder().setDeletionFile(df).build(), null));
    }
}
