package io.javelin.engine.server;

import static io.javelin.engine.server.ServerFixtures.SCHEMA;
import static io.javelin.engine.server.ServerFixtures.ids;
import static io.javelin.engine.server.ServerFixtures.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.javelin.engine.namespace.CreateMode;
import io.javelin.engine.namespace.DirectoryNamespace;
import io.javelin.engine.namespace.IndexDescription;
import io.javelin.engine.namespace.MergeInsertSpec;
import io.javelin.engine.namespace.NamespaceErrorCode;
import io.javelin.engine.namespace.NamespaceException;
import io.javelin.engine.namespace.ObjectId;
import io.javelin.engine.namespace.RestNamespaceClient;
import io.javelin.engine.namespace.TableQuery;
import io.javelin.engine.namespace.TableVersionInfo;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Javelin's REST namespace client against {@code javelin serve} over a directory namespace: every operation. */
class NamespaceServerTest {

    @TempDir
    Path root;

    BufferAllocator alloc;
    DirectoryNamespace dir;
    NamespaceServer server;
    RestNamespaceClient client;

    @BeforeEach
    void start() {
        alloc = new RootAllocator();
        dir = DirectoryNamespace.open(root.toString(), Map.of());
        server = NamespaceServer.start(dir, ServerOptions.defaults().withPort(0).withLogRequests(false)).block();
        client = RestNamespaceClient.connect("http://127.0.0.1:" + server.port());
    }

    @AfterEach
    void stop() {
        client.close();
        server.shutdown().block();
        server.close();
        dir.close();
        alloc.close();
    }

    static NamespaceErrorCode code(Throwable t) {
        return ((NamespaceException) t).code();
    }

    List<Long> query(ObjectId t, TableQuery q) {
        return ids(client.queryTable(t, q, alloc).collectList().block());
    }

    @Test
    void javelinClientRunsEveryOperation() {
        ObjectId ns = ObjectId.of("team");
        ObjectId t = ns.child("events");
        assertThat(client.createNamespace(ns, Map.of("k", "v"), CreateMode.CREATE).block()).containsEntry("k", "v");
        assertThat(client.createNamespace(ns.child("sub"), Map.of(), CreateMode.CREATE).block()).isEmpty();
        assertThat(client.listNamespaces(ObjectId.root()).block()).containsExactly("team");
        assertThat(client.listNamespaces(ns).block()).containsExactly("sub");
        assertThat(client.describeNamespace(ns).block()).containsEntry("k", "v");
        assertThat(client.namespaceExists(ns).block()).isTrue();
        assertThat(client.namespaceExists(ObjectId.of("nope")).block()).isFalse();
        assertThat(client.createNamespace(ns, Map.of(), CreateMode.EXIST_OK).block()).containsEntry("k", "v");
        assertThatThrownBy(() -> client.createNamespace(ns, Map.of(), CreateMode.CREATE).block())
                .satisfies(e -> assertThat(code(e)).isEqualTo(NamespaceErrorCode.NAMESPACE_ALREADY_EXISTS));

        // create streams several batches; insert, merge-insert, count
        var created = client.createTable(t, rows(alloc, 0, 1000, 300, "a"), SCHEMA, CreateMode.CREATE).block();
        assertThat(created.version()).isEqualTo(1);
        assertThat(created.location()).contains("_team$events");
        assertThat(client.insertIntoTable(t, rows(alloc, 1000, 500, 200, "a"), SCHEMA, false).block()).isEqualTo(2);
        assertThat(client.countTableRows(t, null, null).block()).isEqualTo(1500);
        var merged = client.mergeInsertIntoTable(t, MergeInsertSpec.upsert("id"), rows(alloc, 1490, 20, 20, "m"), SCHEMA).block();
        assertThat(merged.updated()).isEqualTo(10);
        assertThat(merged.inserted()).isEqualTo(10);
        assertThat(client.countTableRows(t, null, null).block()).isEqualTo(1510);
        assertThat(client.countTableRows(t, "id >= 1500", null).block()).isEqualTo(10);
        assertThat(client.countTableRows(t, null, 1L).block()).isEqualTo(1000);

        // queries: filter + limit + offset, projection, vector search
        assertThat(query(t, TableQuery.scan(List.of("id"), "id BETWEEN 10 AND 14", 0))).containsExactly(10L, 11L, 12L, 13L, 14L);
        assertThat(query(t, TableQuery.scan(null, "id < 100", 3))).hasSize(3);
        assertThat(query(t, TableQuery.nearest("vec", new float[] {700, -700}, 3))).containsExactly(700L, 699L, 701L);
        List<VectorSchemaRoot> projected = client.queryTable(t, TableQuery.scan(List.of("name"), "id = 1495", 0), alloc).collectList().block();
        assertThat(projected).hasSize(1);
        try (VectorSchemaRoot b = projected.getFirst()) {
            assertThat(b.getSchema().getFields()).extracting(f -> f.getName()).containsExactly("name");
            assertThat(b.getVector("name").getObject(0).toString()).isEqualTo("m1495");
        }

        List<VectorSchemaRoot> none = client.queryTable(t, TableQuery.scan(List.of("id", "name"), "id < 0", 0), alloc).collectList().block();
        assertThat(none).isNotEmpty();
        assertThat(none.getFirst().getSchema().getFields()).extracting(f -> f.getName()).containsExactly("id", "name");
        assertThat(ids(none)).isEmpty();

        // update, delete
        var updated = client.updateTable(t, "id < 5", Map.of("name", "'u'")).block();
        assertThat(updated.updatedRows()).isEqualTo(5);
        assertThat(client.countTableRows(t, "name = 'u'", null).block()).isEqualTo(5);
        long afterDelete = client.deleteFromTable(t, "id >= 1500").block();
        assertThat(client.countTableRows(t, null, null).block()).isEqualTo(1500);

        // indexes
        client.createTableIndex(t, "id", "BTREE", null, null).block();
        client.createTableIndex(t, "vec", "IVF_FLAT", "vec_ivf", "l2").block();
        assertThat(client.listTableIndices(t).block()).extracting(IndexDescription::name).containsExactlyInAnyOrder("id_idx", "vec_ivf");
        assertThatThrownBy(() -> client.createTableIndex(t, "id", "BTREE", null, null).block())
                .satisfies(e -> assertThat(code(e)).isEqualTo(NamespaceErrorCode.TABLE_INDEX_ALREADY_EXISTS));
        assertThat(query(t, TableQuery.scan(List.of("id"), "id = 321", 0))).containsExactly(321L);
        assertThat(query(t, TableQuery.nearest("vec", new float[] {42, -42}, 1).withNprobes(8))).containsExactly(42L);

        // versions, restore
        List<TableVersionInfo> versions = client.listTableVersions(t).block();
        assertThat(versions).extracting(TableVersionInfo::version).containsExactly(1L, 2L, 3L, 4L, afterDelete, afterDelete + 1, afterDelete + 2);
        client.restoreTable(t, 2).block();
        assertThat(client.countTableRows(t, null, null).block()).isEqualTo(1500);
        assertThat(client.countTableRows(t, "name = 'u'", null).block()).isZero();
        assertThatThrownBy(() -> client.restoreTable(t, 99).block())
                .satisfies(e -> assertThat(code(e)).isEqualTo(NamespaceErrorCode.TABLE_VERSION_NOT_FOUND));

        // catalog: declare, register, rename, deregister, drop
        var declared = client.declareTable(ns.child("later")).block();
        assertThat(declared.location()).contains("_team$later");
        assertThat(client.listTables(ns, true).block()).containsExactly("events", "later");
        assertThat(client.listTables(ns, false).block()).containsExactly("events");
        String rel = created.location().substring(created.location().lastIndexOf('/') + 1);
        client.registerTable(ObjectId.of("alias"), rel).block();
        assertThat(client.countTableRows(ObjectId.of("alias"), null, null).block()).isEqualTo(1500);
        client.renameTable(ObjectId.of("alias"), ns.child("alias2")).block();
        assertThat(client.tableExists(ObjectId.of("alias")).block()).isFalse();
        assertThat(client.describeTable(ns.child("alias2")).block().location()).isEqualTo(created.location());
        client.deregisterTable(ns.child("alias2")).block();
        assertThat(client.tableExists(ns.child("alias2")).block()).isFalse();
        assertThat(client.tableExists(t).block()).isTrue();
        assertThatThrownBy(() -> client.dropNamespace(ns).block())
                .satisfies(e -> assertThat(code(e)).isEqualTo(NamespaceErrorCode.NAMESPACE_NOT_EMPTY));
        client.dropTable(t).block();
        client.dropTable(ns.child("later")).block();
        assertThatThrownBy(() -> client.describeTable(t).block())
                .satisfies(e -> assertThat(code(e)).isEqualTo(NamespaceErrorCode.TABLE_NOT_FOUND));
        assertThatThrownBy(() -> client.queryTable(t, TableQuery.scan(null, null, 0), alloc).blockLast())
                .satisfies(e -> assertThat(code(e)).isEqualTo(NamespaceErrorCode.TABLE_NOT_FOUND));
        client.dropNamespace(ns.child("sub")).block();
        client.dropNamespace(ns).block();
        assertThat(client.listNamespaces(ObjectId.root()).block()).isEmpty();
        assertThat(filesUnder(root.resolve(rel))).as("files left by the dropped table").isZero();
    }

    static long filesUnder(Path p) {
        if (!java.nio.file.Files.exists(p)) {
            return 0;
        }
        try (var w = java.nio.file.Files.walk(p)) {
            return w.filter(java.nio.file.Files::isRegularFile).count();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void rootTablesUseTheV1LayoutAndPagesFollowTokens() {
        for (String name : List.of("a", "b", "c")) {
            client.createTable(ObjectId.of(name), rows(alloc, 0, 10, 10, name), SCHEMA, CreateMode.CREATE).block();
        }
        assertThat(root.resolve("b.lance")).isDirectory();
        assertThat(client.listTables(ObjectId.root(), true).block()).containsExactly("a", "b", "c");
        assertThatThrownBy(() -> client.createTable(ObjectId.of("a"), rows(alloc, 0, 1, 1, "x"), SCHEMA, CreateMode.CREATE).block())
                .satisfies(e -> assertThat(code(e)).isEqualTo(NamespaceErrorCode.TABLE_ALREADY_EXISTS));
        assertThat(client.createTable(ObjectId.of("a"), rows(alloc, 0, 3, 3, "x"), SCHEMA, CreateMode.OVERWRITE).block().version()).isEqualTo(2);
        assertThat(client.countTableRows(ObjectId.of("a"), null, null).block()).isEqualTo(3);
        assertThat(client.insertIntoTable(ObjectId.of("b"), rows(alloc, 0, 4, 4, "x"), SCHEMA, true).block()).isEqualTo(2);
        assertThat(client.countTableRows(ObjectId.of("b"), null, null).block()).isEqualTo(4);
    }
}
