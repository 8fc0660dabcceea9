package io.javelin.engine.namespace;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.javelin.engine.Dataset;
import io.javelin.engine.DatasetNotFoundException;
import io.javelin.engine.VersionInfo;
import io.javelin.engine.WriteMode;
import io.javelin.engine.WriteParams;
import io.javelin.engine.index.IndexInfo;
import io.javelin.engine.index.IndexKind;
import io.javelin.engine.index.IndexParams;
import io.javelin.engine.index.NearestQuery;
import io.javelin.objectstore.ObjectMeta;
import io.javelin.objectstore.ObjectNotFoundException;
import io.javelin.objectstore.ObjectStore;
import io.javelin.objectstore.ObjectStores;
import io.javelin.tx.version.ManifestNaming;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Function;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A namespace over a directory (any store URI) with lance-core 7.0.0's {@code DirectoryNamespace} layout, so
 * either engine sees the other's namespaces and tables: child namespaces and tables are rows of the
 * {@code __manifest} table ({@link ManifestTable}); a table of a child namespace lives in
 * {@code <8 hex>_<ns$...$name>/}, a root table in {@code <name>.lance/} (lance-core's compatibility mode,
 * which also lists root {@code *.lance} directories that are not in the manifest, skipping those with a
 * {@code .lance-deregistered} marker). A declared table is a manifest row plus a {@code .lance-reserved}
 * marker in its directory.
 */
public final class DirectoryNamespace implements LanceNamespace {

    static final String RESERVED = ".lance-reserved";
    static final String DEREGISTERED = ".lance-deregistered";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final String root;
    private final Map<String, String> storageOptions;
    private final ObjectStore store;
    private final BufferAllocator allocator;
    private final ManifestTable manifest;
    private final java.util.concurrent.ConcurrentHashMap<String, GroupCommitter> committers = new java.util.concurrent.ConcurrentHashMap<>();

    private DirectoryNamespace(String root, Map<String, String> storageOptions) {
        this.root = root;
        this.storageOptions = Map.copyOf(storageOptions);
        this.store = ObjectStores.open(root, this.storageOptions);
        this.allocator = new RootAllocator();
        this.manifest = new ManifestTable(root, this.storageOptions, allocator);
    }

    /** A namespace rooted at {@code root} (a local path or a store URI); nothing is read or written yet. */
    public static DirectoryNamespace open(String root, Map<String, String> storageOptions) {
        return new DirectoryNamespace(normalize(root), storageOptions == null ? Map.of() : storageOptions);
    }

    static String normalize(String root) {
        if (root == null || root.isBlank()) {
            throw NamespaceException.invalid("The namespace root is empty");
        }
        String r = root.contains("://") ? root : Path.of(root).toAbsolutePath().normalize().toUri().toString();
        while (r.endsWith("/") && !r.endsWith("://")) {
            r = r.substring(0, r.length() - 1);
        }
        return r;
    }

    public String root() {
        return root;
    }

    // ------------------------------------------------------------------ namespaces

    @Override
    public Mono<Boolean> namespaceExists(ObjectId id) {
        if (id.isRoot()) {
            return Mono.just(true);
        }
        return manifest.find(id.joined()).map(ManifestEntry::isNamespace).defaultIfEmpty(false);
    }

    private Mono<Void> requireNamespace(ObjectId id) {
        return namespaceExists(id).flatMap(ok -> ok ? Mono.<Void>empty() : Mono.error(NamespaceException.namespaceNotFound(id)));
    }

    @Override
    public Mono<List<String>> listNamespaces(ObjectId parent) {
        return guard(parent, requireNamespace(parent).then(manifest.entries())
                .map(es -> children(es, parent, ManifestEntry::isNamespace)));
    }

    private static List<String> children(List<ManifestEntry> es, ObjectId parent, java.util.function.Predicate<ManifestEntry> kind) {
        TreeSet<String> out = new TreeSet<>();
        String prefix = parent.isRoot() ? "" : parent.joined() + ObjectId.DEFAULT_DELIMITER;
        for (ManifestEntry e : es) {
            if (kind.test(e) && e.objectId().startsWith(prefix)) {
                String rest = e.objectId().substring(prefix.length());
                if (!rest.isEmpty() && !rest.contains(ObjectId.DEFAULT_DELIMITER)) {
                    out.add(rest);
                }
            }
        }
        return new ArrayList<>(out);
    }

    @Override
    public Mono<Map<String, String>> createNamespace(ObjectId id, Map<String, String> properties, CreateMode mode) {
        if (id.isRoot()) {
            return Mono.error(new NamespaceException(NamespaceErrorCode.NAMESPACE_ALREADY_EXISTS, "The root namespace always exists"));
        }
        Map<String, String> props = properties == null ? Map.of() : Map.copyOf(properties);
        ManifestEntry entry = new ManifestEntry(id.joined(), ManifestEntry.NAMESPACE, null, props.isEmpty() ? null : toJson(props));
        Mono<Map<String, String>> op = requireNamespace(id.parent()).then(manifest.insert(entry)).flatMap(inserted -> {
            if (inserted) {
                return Mono.just(props);
            }
            return manifest.find(id.joined()).flatMap(existing -> {
                if (!existing.isNamespace() || mode == CreateMode.CREATE) {
                    return Mono.error(new NamespaceException(NamespaceErrorCode.NAMESPACE_ALREADY_EXISTS, "Namespace already exists: " + id));
                }
                if (mode == CreateMode.EXIST_OK) {
                    return Mono.just(fromJson(existing.metadata()));
                }
                return manifest.remove(id.joined()).then(manifest.insert(entry)).thenReturn(props);
            });
        });
        return guard(id, op);
    }

    @Override
    public Mono<Map<String, String>> describeNamespace(ObjectId id) {
        if (id.isRoot()) {
            return Mono.just(Map.of());
        }
        return guard(id, manifest.find(id.joined()).filter(ManifestEntry::isNamespace)
                .switchIfEmpty(Mono.error(NamespaceException.namespaceNotFound(id)))
                .map(e -> fromJson(e.metadata())));
    }

    @Override
    public Mono<Void> dropNamespace(ObjectId id) {
        if (id.isRoot()) {
            return Mono.error(NamespaceException.invalid("The root namespace cannot be dropped"));
        }
        String prefix = id.joined() + ObjectId.DEFAULT_DELIMITER;
        return guard(id, manifest.entries().flatMap(es -> {
            if (es.stream().noneMatch(e -> e.isNamespace() && e.objectId().equals(id.joined()))) {
                return Mono.error(NamespaceException.namespaceNotFound(id));
            }
            long children = es.stream().filter(e -> e.objectId().startsWith(prefix)).count();
            if (children > 0) {
                return Mono.error(new NamespaceException(NamespaceErrorCode.NAMESPACE_NOT_EMPTY,
                        "Namespace not empty: " + id + " (contains " + children + " child objects)"));
            }
            return manifest.remove(id.joined()).then();
        }));
    }

    // ------------------------------------------------------------------ tables: catalog

    @Override
    public Mono<List<String>> listTables(ObjectId namespace, boolean includeDeclared) {
        Mono<List<String>> listed = requireNamespace(namespace).then(manifest.entries()).flatMap(es -> {
            Map<String, ManifestEntry> tables = new LinkedHashMap<>();
            for (String name : children(es, namespace, ManifestEntry::isTable)) {
                tables.put(name, es.stream().filter(e -> e.objectId().equals(namespace.child(name).joined())).findFirst().orElseThrow());
            }
            Mono<List<String>> fromManifest = Flux.fromIterable(tables.entrySet())
                    .filterWhen(t -> includeDeclared ? Mono.just(true) : exists(t.getValue().location() + "/" + RESERVED).map(r -> !r))
                    .map(Map.Entry::getKey).collectList();
            Mono<List<String>> fromDirs = namespace.isRoot() ? rootDirectoryTables() : Mono.just(List.of());
            return Mono.zip(fromManifest, fromDirs).map(t -> {
                TreeSet<String> all = new TreeSet<>(t.getT1());
                all.addAll(t.getT2());
                return new ArrayList<>(all);
            });
        });
        return guard(namespace, listed);
    }

    /** Root {@code <name>.lance} directories with data and without the deregistered marker (V1 tables). */
    private Mono<List<String>> rootDirectoryTables() {
        return store.listWithDelimiter("").flatMapMany(p -> Flux.fromIterable(p.commonPrefixes()))
                .map(p -> p.endsWith("/") ? p.substring(0, p.length() - 1) : p)
                .filter(p -> p.endsWith(".lance") && p.length() > ".lance".length())
                .filterWhen(p -> exists(p + "/" + DEREGISTERED).map(d -> !d))
                .filterWhen(p -> exists(p + "/" + RESERVED).map(d -> !d))
                .map(p -> p.substring(0, p.length() - ".lance".length()))
                .filter(DirectoryNamespace::validName)
                .collectList();
    }

    private static boolean validName(String n) {
        try {
            ObjectId.checkName(n);
            return true;
        } catch (NamespaceException e) {
            return false;
        }
    }

    private Mono<Boolean> exists(String path) {
        return store.head(path).map(m -> true).onErrorResume(ObjectNotFoundException.class, e -> Mono.just(false));
    }

    private Mono<Boolean> hasObjects(String dir) {
        return store.listPage(dir + "/", null, null, 1).map(p -> !p.objects().isEmpty() || !p.commonPrefixes().isEmpty());
    }

    /** The table's location relative to the root: its manifest row, else (root tables) a V1 directory. */
    private Mono<String> locate(ObjectId id) {
        if (id.isRoot()) {
            return Mono.error(NamespaceException.invalid("The root namespace is not a table"));
        }
        Mono<String> v1 = Mono.defer(() -> {
            if (id.parts().size() != 1) {
                return Mono.empty();
            }
            String dir = id.name() + ".lance";
            return hasObjects(dir).filter(b -> b)
                    .flatMap(b -> exists(dir + "/" + DEREGISTERED)).filter(d -> !d).map(d -> dir);
        });
        return manifest.find(id.joined()).filter(ManifestEntry::isTable).map(ManifestEntry::location)
                .switchIfEmpty(v1)
                .switchIfEmpty(Mono.error(NamespaceException.tableNotFound(id)));
    }

    private String uriOf(String location) {
        return root + "/" + location;
    }

    @Override
    public Mono<Boolean> tableExists(ObjectId id) {
        return locate(id).map(l -> true).onErrorResume(NamespaceException.class,
                e -> e.code() == NamespaceErrorCode.TABLE_NOT_FOUND ? Mono.just(false) : Mono.error(e));
    }

    @Override
    public Mono<TableInfo> describeTable(ObjectId id) {
        return guard(id, locate(id).flatMap(loc -> Dataset.open(uriOf(loc), storageOptions)
                .map(ds -> {
                    try (ds) {
                        return new TableInfo(id, uriOf(loc), ds.version(), ds.schema(), Map.of());
                    }
                })
                .onErrorResume(DatasetNotFoundException.class, e -> exists(loc + "/" + RESERVED).flatMap(declared -> declared
                        ? Mono.just(new TableInfo(id, uriOf(loc), -1, null, Map.of()))
                        : Mono.error(NamespaceException.tableNotFound(id))))));
    }

    private String newLocation(ObjectId id) {
        if (id.parts().size() == 1) {
            return id.name() + ".lance";
        }
        // spreads tables over key prefixes; not a secret, so no SecureRandom (it reads /dev/urandom, blocking)
        return HexFormat.of().toHexDigits(java.util.concurrent.ThreadLocalRandom.current().nextInt()) + "_" + id.joined();
    }

    /** Reserves {@code id}: its manifest row (the atomic step) and, for a root table, no V1 directory in the way. */
    private Mono<String> reserve(ObjectId id, String location) {
        Mono<Void> noV1 = id.parts().size() == 1
                ? hasObjects(id.name() + ".lance").flatMap(has -> has && !location.equals(id.name() + ".lance")
                        ? Mono.error(alreadyExists(id)) : Mono.<Void>empty())
                : Mono.empty();
        return requireNamespace(id.parent()).then(noV1)
                .then(manifest.insert(new ManifestEntry(id.joined(), ManifestEntry.TABLE, location, null)))
                .flatMap(ok -> ok ? Mono.just(location) : Mono.error(alreadyExists(id)));
    }

    private static NamespaceException alreadyExists(ObjectId id) {
        return new NamespaceException(NamespaceErrorCode.TABLE_ALREADY_EXISTS, "Table already exists: " + id);
    }

    @Override
    public Mono<TableInfo> createTable(ObjectId id, Flux<VectorSchemaRoot> data, Schema schema, CreateMode mode) {
        Mono<TableInfo> op = manifest.find(id.joined()).filter(ManifestEntry::isTable).map(ManifestEntry::location)
                .flatMap(loc -> Dataset.open(uriOf(loc), storageOptions).map(ds -> {
                            ds.close();
                            return Map.entry(loc, true);
                        })
                        .onErrorResume(DatasetNotFoundException.class, e -> Mono.just(Map.entry(loc, false))))
                .flatMap(existing -> {
                    String loc = existing.getKey();
                    if (!existing.getValue()) {
                        // declared earlier: the data goes where the declaration reserved
                        return write(id, loc, data, schema, WriteMode.CREATE)
                                .flatMap(t -> store.delete(loc + "/" + RESERVED).onErrorResume(ObjectNotFoundException.class, e -> Mono.empty())
                                        .thenReturn(t));
                    }
                    return switch (mode) {
                        case CREATE -> Mono.error(alreadyExists(id));
                        case EXIST_OK -> describeTable(id);
                        case OVERWRITE -> write(id, loc, data, schema, WriteMode.OVERWRITE);
                    };
                })
                .switchIfEmpty(Mono.defer(() -> {
                    String loc = newLocation(id);
                    return reserve(id, loc).flatMap(l -> write(id, l, data, schema, WriteMode.CREATE)
                            .onErrorResume(e -> manifest.remove(id.joined()).onErrorResume(x -> Mono.empty()).then(Mono.error(e))));
                }));
        return guard(id, op);
    }

    private Mono<TableInfo> write(ObjectId id, String loc, Flux<VectorSchemaRoot> data, Schema schema, WriteMode mode) {
        return Dataset.write(uriOf(loc), storageOptions, data, schema, WriteParams.of(mode)).map(ds -> {
            try (ds) {
                return new TableInfo(id, uriOf(loc), ds.version(), ds.schema(), Map.of());
            }
        });
    }

    @Override
    public Mono<TableInfo> declareTable(ObjectId id) {
        return guard(id, Mono.defer(() -> {
            String loc = newLocation(id);
            return reserve(id, loc).flatMap(l -> store.put(l + "/" + RESERVED, new byte[0]))
                    .thenReturn(new TableInfo(id, uriOf(loc), -1, null, Map.of()));
        }));
    }

    @Override
    public Mono<TableInfo> registerTable(ObjectId id, String location) {
        return guard(id, Mono.defer(() -> {
            String loc = relativeLocation(location);
            return Dataset.open(uriOf(loc), storageOptions)
                    .onErrorMap(DatasetNotFoundException.class, e -> NamespaceException.invalid("No Lance table at location '" + location + "'"))
                    .flatMap(ds -> {
                        try (ds) {
                            TableInfo info = new TableInfo(id, uriOf(loc), ds.version(), ds.schema(), Map.of());
                            return reserve(id, loc).thenReturn(info);
                        }
                    });
        }));
    }

    /** A registered location must stay inside the root: relative, no {@code ..}, no scheme, no escapes. */
    static String relativeLocation(String location) {
        if (location == null || location.isBlank()) {
            throw NamespaceException.invalid("location is required");
        }
        String l = location;
        while (l.endsWith("/")) {
            l = l.substring(0, l.length() - 1);
        }
        if (l.startsWith("/") || l.startsWith("\\") || l.contains("://") || l.contains("\\") || l.contains("%") || l.contains(":")) {
            throw NamespaceException.invalid("location must be a path relative to the namespace root: '" + location + "'");
        }
        for (String seg : l.split("/")) {
            if (seg.isEmpty() || seg.equals(".") || seg.equals("..") || seg.equals(ManifestTable.DIR)
                    || seg.chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
                throw NamespaceException.invalid("location has a segment that is not allowed: '" + location + "'");
            }
        }
        return l;
    }

    @Override
    public Mono<TableInfo> deregisterTable(ObjectId id) {
        return guard(id, locate(id).flatMap(loc -> manifest.remove(id.joined()).flatMap(removed -> removed
                ? Mono.just(new TableInfo(id, uriOf(loc), -1, null, Map.of()))
                // a V1 root table: the marker hides it, the data stays
                : store.put(loc + "/" + DEREGISTERED, new byte[0]).thenReturn(new TableInfo(id, uriOf(loc), -1, null, Map.of())))));
    }

    @Override
    public Mono<TableInfo> dropTable(ObjectId id) {
        return guard(id, locate(id).flatMap(loc -> manifest.remove(id.joined())
                .then(store.list(loc + "/").map(ObjectMeta::path).collectList())
                .flatMap(paths -> store.deleteAll(paths))
                .thenReturn(new TableInfo(id, uriOf(loc), -1, null, Map.of()))));
    }

    @Override
    public Mono<Void> renameTable(ObjectId id, ObjectId newId) {
        return guard(id, locate(id).flatMap(loc -> reserve(newId, loc).then(manifest.remove(id.joined())).then()));
    }

    // ------------------------------------------------------------------ tables: data

    private <T> Mono<T> withTable(ObjectId id, Long version, Function<Dataset, Mono<T>> op) {
        return guard(id, locate(id).flatMap(loc -> Mono.usingWhen(
                version == null ? Dataset.open(uriOf(loc), storageOptions) : Dataset.open(uriOf(loc), storageOptions, version),
                op, ds -> Mono.fromRunnable(ds::close))));
    }

    private static long versionOf(Dataset ds) {
        try (ds) {
            return ds.version();
        }
    }

    @Override
    public Mono<Long> insertIntoTable(ObjectId id, Flux<VectorSchemaRoot> data, Schema schema, boolean overwrite) {
        if (overwrite) {
            return withTable(id, null, ds -> ds.overwrite(data, schema, WriteParams.of(WriteMode.OVERWRITE)).map(DirectoryNamespace::versionOf));
        }
        // data files in parallel, the commit with whatever other appends to this table are waiting
        return guard(id, locate(id).flatMap(loc -> {
            String uri = uriOf(loc);
            return Dataset.open(uri, storageOptions).doOnNext(Dataset::close)
                    .then(Dataset.writeFragments(uri, storageOptions, data, schema, WriteParams.of(WriteMode.APPEND)))
                    .flatMap(frags -> committers.computeIfAbsent(uri, u -> new GroupCommitter(u, storageOptions)).append(frags, schema));
        }));
    }

    @Override
    public Mono<MergeInsertOutcome> mergeInsertIntoTable(ObjectId id, MergeInsertSpec spec, Flux<VectorSchemaRoot> data, Schema schema) {
        return withTable(id, null, ds -> {
            var m = ds.mergeInsert(spec.on());
            if (spec.whenMatchedUpdateAll()) {
                m = spec.whenMatchedUpdateAllFilter() == null ? m.whenMatchedUpdateAll() : m.whenMatchedUpdateAll(spec.whenMatchedUpdateAllFilter());
            } else {
                m = m.whenMatchedDoNothing();
            }
            m = spec.whenNotMatchedInsertAll() ? m.whenNotMatchedInsertAll() : m.whenNotMatchedDoNothing();
            if (spec.whenNotMatchedBySourceDelete()) {
                m = spec.whenNotMatchedBySourceDeleteFilter() == null ? m.whenNotMatchedBySourceDelete()
                        : m.whenNotMatchedBySourceDelete(spec.whenNotMatchedBySourceDeleteFilter());
            }
            return m.execute(data).map(r -> new MergeInsertOutcome(r.updated(), r.inserted(), r.deleted(), versionOf(r.dataset())));
        });
    }

    @Override
    public Mono<UpdateOutcome> updateTable(ObjectId id, String predicate, Map<String, String> set) {
        if (set == null || set.isEmpty()) {
            return Mono.error(NamespaceException.invalid("update needs at least one column to set"));
        }
        return withTable(id, null, ds -> ds.update(predicate, set).map(r -> new UpdateOutcome(r.rowsUpdated(), versionOf(r.dataset()))));
    }

    @Override
    public Mono<Long> deleteFromTable(ObjectId id, String predicate) {
        if (predicate == null || predicate.isBlank()) {
            return Mono.error(NamespaceException.invalid("delete needs a predicate"));
        }
        return withTable(id, null, ds -> ds.delete(predicate).map(DirectoryNamespace::versionOf));
    }

    @Override
    public Mono<Long> countTableRows(ObjectId id, String predicate, Long version) {
        return withTable(id, version, ds -> predicate == null || predicate.isBlank() ? ds.count() : ds.count(predicate));
    }

    @Override
    public Flux<VectorSchemaRoot> queryTable(ObjectId id, TableQuery q, BufferAllocator alloc) {
        return guard(id, locate(id)).flatMapMany(loc -> Flux.usingWhen(
                q.version() == null ? Dataset.open(uriOf(loc), storageOptions) : Dataset.open(uriOf(loc), storageOptions, q.version()),
                ds -> query(ds, q, alloc), ds -> Mono.fromRunnable(ds::close)))
                .onErrorMap(e -> NamespaceErrors.map(e, id));
    }

    private static Flux<VectorSchemaRoot> query(Dataset ds, TableQuery q, BufferAllocator alloc) {
        var s = ds.scanner();
        if (q.columns() != null && !q.columns().isEmpty()) {
            s = s.columns(q.columns());
        }
        if (q.filter() != null && !q.filter().isBlank()) {
            s = s.filter(q.filter());
        }
        if (q.withRowId()) {
            s = s.withRowId(true);
        }
        if (q.vector() == null) {
            if (q.k() > 0) {
                s = s.limit(q.k());
            }
            if (q.offset() > 0) {
                s = s.offset(q.offset());
            }
            // no matching row still answers the result's columns: one empty batch
            var scanner = s;
            return s.scan(alloc).switchIfEmpty(Flux.defer(() -> {
                VectorSchemaRoot empty = VectorSchemaRoot.create(scanner.outputSchema(), alloc);
                empty.setRowCount(0);
                return Flux.just(empty);
            }));
        }
        if (q.offset() > 0) {
            return Flux.error(new NamespaceException(NamespaceErrorCode.UNSUPPORTED, "offset is not supported with a vector query"));
        }
        String column = q.vectorColumn() != null ? q.vectorColumn() : vectorColumn(ds.schema());
        NearestQuery n = s.nearest(column, q.vector(), q.k());
        if (q.nprobes() != null && q.nprobes() > 0) {
            n = n.nprobes(q.nprobes());
        }
        if (q.refineFactor() != null && q.refineFactor() > 0) {
            n = n.refineFactor(q.refineFactor());
        }
        if (q.ef() != null && q.ef() > 0) {
            n = n.ef(q.ef());
        }
        if (q.distanceType() != null && !q.distanceType().isBlank()) {
            n = n.metric(q.distanceType());
        }
        if (q.bypassVectorIndex()) {
            n = n.useIndex(false);
        }
        return n.scan(alloc);
    }

    /** The only float vector column, as lance-core picks it when the query names none. */
    static String vectorColumn(Schema schema) {
        List<String> found = new ArrayList<>();
        for (Field f : schema.getFields()) {
            if (f.getType() instanceof ArrowType.FixedSizeList && f.getChildren().size() == 1
                    && f.getChildren().getFirst().getType() instanceof ArrowType.FloatingPoint fp
                    && fp.getPrecision() != FloatingPointPrecision.DOUBLE) {
                found.add(f.getName());
            }
        }
        if (found.size() != 1) {
            throw NamespaceException.invalid("vector_column is required: the table has " + found.size() + " vector columns " + found);
        }
        return found.getFirst();
    }

    // ------------------------------------------------------------------ indexes and versions

    @Override
    public Mono<Void> createTableIndex(ObjectId id, String column, String indexType, String name, String distanceType) {
        return withTable(id, null, ds -> Mono.defer(() -> {
            if (column == null || column.isBlank()) {
                return Mono.error(NamespaceException.invalid("create_index needs a column"));
            }
            IndexKind kind = IndexKind.parse(indexType == null || indexType.isBlank() ? "BTREE" : indexType);
            IndexParams p = IndexParams.defaults().withName(name == null || name.isBlank() ? column + "_idx" : name);
            if (distanceType != null && !distanceType.isBlank()) {
                p = p.withMetric(distanceType);
            }
            if (ds.listIndexes().stream().anyMatch(ix -> ix.name().equals(name == null || name.isBlank() ? column + "_idx" : name))) {
                return Mono.error(new NamespaceException(NamespaceErrorCode.TABLE_INDEX_ALREADY_EXISTS, "Index already exists on " + column));
            }
            return ds.createIndex(List.of(column), kind, p).doOnNext(Dataset::close).then();
        }));
    }

    @Override
    public Mono<List<IndexDescription>> listTableIndices(ObjectId id) {
        return withTable(id, null, ds -> Mono.fromSupplier(() -> {
            Map<String, IndexDescription> byName = new LinkedHashMap<>();
            for (IndexInfo ix : ds.listIndexes()) {
                byName.putIfAbsent(ix.name(), new IndexDescription(ix.name(), ix.uuid().toString(), ix.columns(), "SUCCEEDED"));
            }
            return List.copyOf(byName.values());
        }));
    }

    @Override
    public Mono<List<TableVersionInfo>> listTableVersions(ObjectId id) {
        return guard(id, locate(id).flatMap(loc -> Mono.usingWhen(Dataset.open(uriOf(loc), storageOptions),
                ds -> ds.versions().map(vs -> {
                    List<TableVersionInfo> out = new ArrayList<>(vs.size());
                    for (VersionInfo v : vs) {
                        out.add(new TableVersionInfo(v.version(), v.timestamp().toEpochMilli(),
                                loc + "/" + ManifestNaming.V2.path(v.version()), -1));
                    }
                    return out;
                }),
                ds -> Mono.fromRunnable(ds::close))));
    }

    @Override
    public Mono<Long> restoreTable(ObjectId id, long version) {
        if (version <= 0) {
            return Mono.error(NamespaceException.invalid("version must be >= 1, got " + version));
        }
        return withTable(id, version, ds -> ds.restore().map(DirectoryNamespace::versionOf));
    }

    // ------------------------------------------------------------------ helpers

    private static <T> Mono<T> guard(ObjectId id, Mono<T> op) {
        return op.onErrorMap(e -> NamespaceErrors.map(e, id));
    }

    private static String toJson(Map<String, String> m) {
        try {
            return JSON.writeValueAsString(m);
        } catch (Exception e) {
            throw NamespaceException.invalid("properties are not serializable: " + e.getMessage());
        }
    }

    static Map<String, String> fromJson(String json) {
        if (json == null || json.isBlank()) {
            return Map.of();
        }
        try {
            return JSON.readValue(json, new TypeReference<LinkedHashMap<String, String>>() {
            });
        } catch (Exception e) {
            return Map.of();
        }
    }

    @Override
    public void close() {
        store.close();
        allocator.close();
    }
}
