package io.javelin.engine;

import io.javelin.engine.filter.FilterParseException;
import io.javelin.engine.filter.Predicate;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Merge-insert ("upsert") keyed by one or more columns, as Lance's {@code MergeInsertBuilder}: an
 * immutable builder from {@link Dataset#mergeInsert(List)}.
 *
 * <pre>{@code
 * ds.mergeInsert(List.of("id")).whenMatchedUpdateAll().whenNotMatchedInsertAll()
 *   .whenNotMatchedBySourceDelete("region = 'eu'").execute(batches).block();
 * }</pre>
 *
 * Semantics (Lance's): a single-column key treats NULL as equal to NULL; a composite key with a NULL in
 * any key column never matches (such source rows are inserted when inserting, such target rows count as
 * "not matched by source"); two source rows matching one
 * target row are an error ("Ambiguous merge insert"); the update condition may read {@code source.col}
 * and {@code target.col}. Defaults are Lance's: matched rows are kept, unmatched source rows inserted,
 * target rows missing from the source kept. Matched rows are rewritten (deleted + written again) and
 * everything commits atomically as one {@code Update} transaction. The source is streamed through a
 * bounded-memory hash join ({@link MergeRun}, {@link MergeInsertOptions}); the target is read by key
 * columns only, whole rows only where a partial source or an update condition needs them.
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

    /** Runs the merge with {@link MergeInsertOptions#DEFAULTS}. */
    public Mono<MergeInsertResult> execute(Flux<VectorSchemaRoot> source) {
        return execute(source, MergeInsertOptions.DEFAULTS);
    }

    /**
     * Runs the merge against the dataset version this builder came from. The source may hold any subset
     * of the dataset's columns that includes the keys: matched rows then keep their other columns, and
     * inserted rows read NULL there. Memory stays within {@code options}' budget whatever the source size.
     */
    public Mono<MergeInsertResult> execute(Flux<VectorSchemaRoot> source, MergeInsertOptions options) {
        return ds.withFragments(() -> Mono.defer(() -> {
            validate();
            Predicate bySource = bySourceFilter == null ? null : ds.compile(bySourceFilter);
            return Mono.usingWhen(Mono.fromCallable(() -> options.allocator() == null ? new RootAllocator()
                                    : options.allocator().newChildAllocator("merge-insert", 0, Long.MAX_VALUE)),
                            alloc -> Mono.usingWhen(Mono.fromCallable(() -> new MergeRun(ds, this, options, alloc, bySource)),
                                    run -> run.ingest(source).flatMap(spilled -> RowRewrites.commitStreamed(ds, run::plan,
                                                    run.rows(spilled), preservedFields()))
                                            .map(s -> new MergeInsertResult(ds.derive(s), run.inserted(), run.updated(), run.deleted()))
                                            .switchIfEmpty(Mono.fromCallable(() -> new MergeInsertResult(ds.retained(), 0, 0, 0))),
                                    run -> Mono.fromRunnable(run::cleanup).subscribeOn(Schedulers.boundedElastic())),
                            alloc -> Mono.fromRunnable(alloc::close))
                    .doOnDiscard(VectorSchemaRoot.class, VectorSchemaRoot::close);
        })).onErrorMap(e -> Dataset.translate(ds.uri(), ds.version(), e));
    }

    private List<Integer> preservedFields() {
        List<Integer> preserve = new ArrayList<>();
        ds.lanceSchema().fields().forEach(f -> preserve.add(f.id()));
        return preserve;
    }

    List<String> on() {
        return on;
    }

    boolean updatesMatched() {
        return updateMatched;
    }

    boolean insertsNotMatched() {
        return insertNotMatched;
    }

    boolean deletesNotMatchedBySource() {
        return deleteNotMatchedBySource;
    }

    /** The update condition over {@code source.*} (the source's columns) and {@code target.*}; null when unconditional. */
    Predicate condition(Schema sourceSchema) {
        if (matchedCondition == null) {
            return null;
        }
        Schema both = new Schema(List.of(
                new Field("source", FieldType.nullable(ArrowType.Struct.INSTANCE), sourceSchema.getFields()),
                new Field("target", FieldType.nullable(ArrowType.Struct.INSTANCE), ds.schema().getFields())));
        try {
            return Predicate.compile(matchedCondition, both);
        } catch (FilterParseException e) {
            throw new InvalidScanException(ds.uri(), ds.version(), "Invalid merge condition: " + e.getMessage(), e);
        }
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

    @Override
    public String toString() {
        return "MergeInsert[on=" + on + ", updateMatched=" + updateMatched + (matchedCondition != null ? " if " + matchedCondition : "")
                + ", insertNotMatched=" + insertNotMatched + ", deleteNotMatchedBySource=" + deleteNotMatchedBySource
                + (bySourceFilter != null ? " if " + bySourceFilter : "") + "]";
    }
}
