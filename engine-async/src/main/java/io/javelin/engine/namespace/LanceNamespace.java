package io.javelin.engine.namespace;

import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The Lance Namespace operations (names as in the REST spec), all non-blocking. Errors are
 * {@link NamespaceException}s with the spec's codes. Data arguments are owned by the call (each batch is
 * closed once written); query results are owned by the subscriber.
 * Implementations: {@link DirectoryNamespace} (a directory of tables plus the {@code __manifest} table,
 * as lance-core's) and {@link RestNamespaceClient} (any server speaking the spec).
 */
public interface LanceNamespace extends AutoCloseable {

    Mono<List<String>> listNamespaces(ObjectId parent);

    Mono<Map<String, String>> createNamespace(ObjectId id, Map<String, String> properties, CreateMode mode);

    Mono<Map<String, String>> describeNamespace(ObjectId id);

    Mono<Void> dropNamespace(ObjectId id);

    Mono<Boolean> namespaceExists(ObjectId id);

    Mono<List<String>> listTables(ObjectId namespace, boolean includeDeclared);

    /** Creates a table from {@code data} (which may be empty: the schema alone). */
    Mono<TableInfo> createTable(ObjectId id, Flux<VectorSchemaRoot> data, Schema schema, CreateMode mode);

    /** Reserves a table name and location without data. */
    Mono<TableInfo> declareTable(ObjectId id);

    /** Adds an existing dataset at {@code location} (relative to the namespace root) under {@code id}. */
    Mono<TableInfo> registerTable(ObjectId id, String location);

    Mono<TableInfo> describeTable(ObjectId id);

    Mono<Boolean> tableExists(ObjectId id);

    /** Removes the table and deletes its data. */
    Mono<TableInfo> dropTable(ObjectId id);

    /** Removes the table from the namespace, keeping its data. */
    Mono<TableInfo> deregisterTable(ObjectId id);

    Mono<Void> renameTable(ObjectId id, ObjectId newId);

    /** Appends (or with {@code overwrite} replaces) rows; the committed version. */
    Mono<Long> insertIntoTable(ObjectId id, Flux<VectorSchemaRoot> data, Schema schema, boolean overwrite);

    Mono<MergeInsertOutcome> mergeInsertIntoTable(ObjectId id, MergeInsertSpec spec, Flux<VectorSchemaRoot> data, Schema schema);

    /** SQL {@code set} expressions per column for the rows matching {@code predicate} (null: all). */
    Mono<UpdateOutcome> updateTable(ObjectId id, String predicate, Map<String, String> set);

    /** Deletes the rows matching {@code predicate}; the committed version. */
    Mono<Long> deleteFromTable(ObjectId id, String predicate);

    Mono<Long> countTableRows(ObjectId id, String predicate, Long version);

    Flux<VectorSchemaRoot> queryTable(ObjectId id, TableQuery query, BufferAllocator allocator);

    /** Builds an index ({@code indexType} a Lance index type name, e.g. BTREE, IVF_PQ) on one column. */
    Mono<Void> createTableIndex(ObjectId id, String column, String indexType, String name, String distanceType);

    Mono<List<IndexDescription>> listTableIndices(ObjectId id);

    Mono<List<TableVersionInfo>> listTableVersions(ObjectId id);

    /** Makes {@code version} the latest again (a new version); the new version number. */
    Mono<Long> restoreTable(ObjectId id, long version);

    @Override
    default void close() {
    }
}
