package io.javelin.engine.namespace;

import io.javelin.engine.Dataset;
import io.javelin.engine.DatasetAlreadyExistsException;
import io.javelin.engine.DatasetNotFoundException;
import io.javelin.engine.WriteMode;
import io.javelin.engine.WriteParams;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.retry.Retry;

/**
 * The {@code __manifest} Lance table of a directory namespace (lance-core's V2 layout): one row per child
 * namespace and table. Reads scan the (small) table of the latest version, cached per version; an insert
 * is a merge-insert on {@code object_id} inserting only when absent, so two concurrent creators of one
 * name cannot both succeed; removal is a delete by {@code object_id}.
 */
final class ManifestTable {

    static final String DIR = "__manifest";
    private static final String PK = "lance-schema:unenforced-primary-key:position";

    static final Schema SCHEMA = new Schema(List.of(
            new Field("object_id", new FieldType(false, ArrowType.Utf8.INSTANCE, null, Map.of(PK, "0")), null),
            new Field("object_type", FieldType.notNullable(ArrowType.Utf8.INSTANCE), null),
            new Field("location", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
            new Field("metadata", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
            new Field("base_objects", FieldType.nullable(ArrowType.List.INSTANCE),
                    List.of(new Field("object_id", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)))));

    private record Cached(long version, List<ManifestEntry> entries) {
    }

    private final String uri;
    private final Map<String, String> storageOptions;
    private final BufferAllocator allocator;
    private final AtomicReference<Cached> cache = new AtomicReference<>();

    ManifestTable(String rootUri, Map<String, String> storageOptions, BufferAllocator allocator) {
        this.uri = rootUri + "/" + DIR;
        this.storageOptions = storageOptions;
        this.allocator = allocator;
    }

    /** Every entry of the latest version (empty when the manifest does not exist yet). */
    Mono<List<ManifestEntry>> entries() {
        return Mono.usingWhen(open(), this::entriesOf, ds -> Mono.fromRunnable(ds::close))
                .switchIfEmpty(Mono.fromSupplier(List::of));
    }

    Mono<ManifestEntry> find(String objectId) {
        return entries().flatMap(es -> Mono.justOrEmpty(es.stream().filter(e -> e.objectId().equals(objectId)).findFirst()));
    }

    private Mono<Dataset> open() {
        return Dataset.open(uri, storageOptions).onErrorResume(DatasetNotFoundException.class, e -> Mono.empty());
    }

    private Mono<List<ManifestEntry>> entriesOf(Dataset ds) {
        Cached c = cache.get();
        if (c != null && c.version() == ds.version()) {
            return Mono.just(c.entries());
        }
        return ds.scanner().columns("object_id", "object_type", "location", "metadata").scan(allocator)
                .concatMapIterable(b -> {
                    try (b) {
                        return rows(b);
                    }
                })
                .collectList()
                .doOnNext(list -> cache.set(new Cached(ds.version(), List.copyOf(list))));
    }

    private static List<ManifestEntry> rows(VectorSchemaRoot b) {
        VarCharVector id = (VarCharVector) b.getVector("object_id");
        VarCharVector type = (VarCharVector) b.getVector("object_type");
        VarCharVector loc = (VarCharVector) b.getVector("location");
        VarCharVector meta = (VarCharVector) b.getVector("metadata");
        List<ManifestEntry> out = new ArrayList<>(b.getRowCount());
        for (int i = 0; i < b.getRowCount(); i++) {
            out.add(new ManifestEntry(str(id, i), str(type, i), str(loc, i), str(meta, i)));
        }
        return out;
    }

    private static String str(VarCharVector v, int i) {
        return v.isNull(i) ? null : new String(v.get(i), StandardCharsets.UTF_8);
    }

    /** Adds {@code e}; false when an entry with its {@code object_id} exists already. */
    Mono<Boolean> insert(ManifestEntry e) {
        return Mono.defer(() -> Mono.usingWhen(open(),
                        ds -> ds.mergeInsert(List.of("object_id")).whenMatchedDoNothing().whenNotMatchedInsertAll()
                                .execute(Flux.defer(() -> Flux.just(batch(e))))
                                .map(r -> {
                                    r.dataset().close();
                                    return r.inserted() > 0;
                                }),
                        ds -> Mono.fromRunnable(ds::close))
                .switchIfEmpty(Mono.defer(() -> Dataset.write(uri, storageOptions, Flux.defer(() -> Flux.just(batch(e))), SCHEMA,
                        WriteParams.of(WriteMode.CREATE)).map(ds -> {
                            ds.close();
                            return true;
                        }))))
                // the first two creators of the manifest race; the loser merges into the winner's table
                .retryWhen(Retry.max(3).filter(t -> t instanceof DatasetAlreadyExistsException));
    }

    /** Removes the entry {@code objectId}; false when there was none. */
    Mono<Boolean> remove(String objectId) {
        return Mono.usingWhen(open(),
                ds -> ds.delete("object_id = " + quote(objectId)).map(after -> {
                    boolean changed = after.version() != ds.version();
                    after.close();
                    return changed;
                }),
                ds -> Mono.fromRunnable(ds::close)).defaultIfEmpty(false);
    }

    static String quote(String s) {
        return "'" + s.replace("'", "''") + "'";
    }

    private VectorSchemaRoot batch(ManifestEntry e) {
        VectorSchemaRoot r = VectorSchemaRoot.create(SCHEMA, allocator);
        try {
            r.allocateNew();
            ((VarCharVector) r.getVector("object_id")).setSafe(0, e.objectId().getBytes(StandardCharsets.UTF_8));
            ((VarCharVector) r.getVector("object_type")).setSafe(0, e.objectType().getBytes(StandardCharsets.UTF_8));
            set((VarCharVector) r.getVector("location"), e.location());
            set((VarCharVector) r.getVector("metadata"), e.metadata());
            r.getVector("base_objects").setNull(0);
            r.setRowCount(1);
            return r;
        } catch (RuntimeException ex) {
            r.close();
            throw ex;
        }
    }

    private static void set(VarCharVector v, String s) {
        if (s == null) {
            v.setNull(0);
        } else {
            v.setSafe(0, s.getBytes(StandardCharsets.UTF_8));
        }
    }
}
