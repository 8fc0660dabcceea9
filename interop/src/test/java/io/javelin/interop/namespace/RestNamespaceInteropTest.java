package io.javelin.interop.namespace;

import static io.javelin.interop.namespace.NamespaceFixtures.ids;
import static io.javelin.interop.namespace.NamespaceFixtures.ipc;
import static io.javelin.interop.namespace.NamespaceFixtures.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.javelin.engine.namespace.DirectoryNamespace;
import io.javelin.engine.server.NamespaceServer;
import io.javelin.engine.server.ServerOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.namespace.RestNamespace;
import org.lance.namespace.errors.NamespaceAlreadyExistsException;
import org.lance.namespace.errors.NamespaceNotEmptyException;
import org.lance.namespace.errors.TableNotFoundException;
import org.lance.namespace.model.CountTableRowsRequest;
import org.lance.namespace.model.CreateNamespaceRequest;
import org.lance.namespace.model.CreateTableIndexRequest;
import org.lance.namespace.model.CreateTableRequest;
import org.lance.namespace.model.DeclareTableRequest;
import org.lance.namespace.model.DeleteFromTableRequest;
import org.lance.namespace.model.DeregisterTableRequest;
import org.lance.namespace.model.DescribeNamespaceRequest;
import org.lance.namespace.model.DescribeTableRequest;
import org.lance.namespace.model.DropNamespaceRequest;
import org.lance.namespace.model.DropTableRequest;
import org.lance.namespace.model.IndexContent;
import org.lance.namespace.model.InsertIntoTableRequest;
import org.lance.namespace.model.ListNamespacesRequest;
import org.lance.namespace.model.ListTableIndicesRequest;
import org.lance.namespace.model.ListTableVersionsRequest;
import org.lance.namespace.model.ListTablesRequest;
import org.lance.namespace.model.MergeInsertIntoTableRequest;
import org.lance.namespace.model.QueryTableRequest;
import org.lance.namespace.model.QueryTableRequestColumns;
import org.lance.namespace.model.QueryTableRequestVector;
import org.lance.namespace.model.RegisterTableRequest;
import org.lance.namespace.model.RestoreTableRequest;
import org.lance.namespace.model.TableExistsRequest;
import org.lance.namespace.model.TableVersion;
import org.lance.namespace.model.UpdateTableRequest;

/**
 * lance-core 7.0.0's own REST client ({@code org.lance.namespace.RestNamespace}, Rust over JNI) against
 * {@code javelin serve} in-process on 127.0.0.1: every operation it has, with asserted results.
 */
class RestNamespaceInteropTest {

    @TempDir
    Path root;

    BufferAllocator alloc;
    DirectoryNamespace dir;
    NamespaceServer server;
    RestNamespace client;

    @BeforeEach
    void start() {
        alloc = new RootAllocator();
        dir = DirectoryNamespace.open(root.toString(), Map.of());
        server = NamespaceServer.start(dir, ServerOptions.defaults().withPort(0).withLogRequests(false)).block();
        client = new RestNamespace();
        client.initialize(Map.of("uri", "http://127.0.0.1:" + server.port()), alloc);
    }

    @AfterEach
    void stop() {
        client.close();
        server.shutdown().block();
        server.close();
        dir.close();
        alloc.close();
    }

    static final List<String> T = List.of("prod", "items");

    /** lance-core's client needs {@code k} and a vector object (empty for a plain query) in every query. */
    byte[] query(QueryTableRequest q) {
        if (q.getK() == null) {
            q.k(1000);
        }
        if (q.getVector() == null) {
            q.vector(new QueryTableRequestVector());
        }
        return client.queryTable(q.id(T));
    }

    @Test
    void lanceCoresRestClientRunsEveryOperation() throws Exception {
        // namespaces
        client.createNamespace(new CreateNamespaceRequest().id(List.of("prod")).properties(Map.of("owner", "ml")));
        assertThat(client.describeNamespace(new DescribeNamespaceRequest().id(List.of("prod"))).getProperties())
                .containsEntry("owner", "ml");
        assertThat(client.listNamespaces(new ListNamespacesRequest().id(List.of())).getNamespaces()).containsExactly("prod");
        assertThatThrownBy(() -> client.createNamespace(new CreateNamespaceRequest().id(List.of("prod"))))
                .isInstanceOf(NamespaceAlreadyExistsException.class);

        // create from Arrow IPC, insert, merge-insert, count
        var created = client.createTable(new CreateTableRequest().id(T), ipc(alloc, 0, 100, "n"));
        assertThat(created.getVersion()).isEqualTo(1L);
        assertThat(created.getLocation()).contains("_prod$items");
        client.insertIntoTable(new InsertIntoTableRequest().id(T).mode("append"), ipc(alloc, 100, 50, "n"));
        assertThat(client.countTableRows(new CountTableRowsRequest().id(T))).isEqualTo(150L);
        var merged = client.mergeInsertIntoTable(new MergeInsertIntoTableRequest().id(T).on("id")
                .whenMatchedUpdateAll(true).whenNotMatchedInsertAll(true), ipc(alloc, 140, 20, "m"));
        assertThat(merged.getNumUpdatedRows()).isEqualTo(10L);
        assertThat(merged.getNumInsertedRows()).isEqualTo(10L);
        assertThat(client.countTableRows(new CountTableRowsRequest().id(T))).isEqualTo(160L);

        // query: filter + projection + limit, then vector search
        byte[] filtered = query(new QueryTableRequest().filter("id >= 138 AND id < 142").k(100)
                .vector(new QueryTableRequestVector())
                .columns(new QueryTableRequestColumns().columnNames(List.of("id", "name"))));
        assertThat(rows(filtered, alloc, "id", "name")).containsExactlyInAnyOrder(
                List.of(138L, "n138"), List.of(139L, "n139"), List.of(140L, "m140"), List.of(141L, "m141"));
        float[] v = NamespaceFixtures.vec(42);
        List<Float> qv = new ArrayList<>();
        for (float f : v) {
            qv.add(f);
        }
        byte[] nearest = query(new QueryTableRequest().vector(new QueryTableRequestVector().singleVector(qv)).k(3).vectorColumn("vec"));
        List<List<Object>> hits = rows(nearest, alloc, "id", "_distance");
        assertThat(hits).hasSize(3);
        assertThat(hits.getFirst()).containsExactly(42L, 0.0f);

        // update and delete
        var updated = client.updateTable(new UpdateTableRequest().id(T).predicate("id = 1").updates(List.of(List.of("name", "'renamed'"))));
        assertThat(updated.getUpdatedRows()).isEqualTo(1L);
        assertThat(rows(query(new QueryTableRequest().filter("id = 1").vector(new QueryTableRequestVector())), alloc, "name"))
                .containsExactly(List.of("renamed"));
        client.deleteFromTable(new DeleteFromTableRequest().id(T).predicate("id >= 150"));
        assertThat(client.countTableRows(new CountTableRowsRequest().id(T))).isEqualTo(150L);

        // indexes: scalar and vector, then a search that can use the vector index
        client.createTableIndex(new CreateTableIndexRequest().id(T).column("id").indexType("BTREE"));
        client.createTableIndex(new CreateTableIndexRequest().id(T).column("vec").indexType("IVF_FLAT").distanceType("l2"));
        List<IndexContent> indexes = client.listTableIndices(new ListTableIndicesRequest().id(T)).getIndexes();
        assertThat(indexes).extracting(IndexContent::getIndexName).containsExactlyInAnyOrder("id_idx", "vec_idx");
        assertThat(indexes).filteredOn(i -> i.getIndexName().equals("vec_idx")).singleElement()
                .extracting(IndexContent::getColumns).isEqualTo(List.of("vec"));
        assertThat(ids(query(new QueryTableRequest().filter("id = 77").vector(new QueryTableRequestVector())), alloc)).containsExactly(77L);
        byte[] indexed = query(new QueryTableRequest().vector(new QueryTableRequestVector().singleVector(qv)).k(1).nprobes(4));
        assertThat(ids(indexed, alloc)).containsExactly(42L);

        // versions and restore
        List<TableVersion> versions = client.listTableVersions(new ListTableVersionsRequest().id(T)).getVersions();
        assertThat(versions).extracting(TableVersion::getVersion).containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L);
        client.restoreTable(new RestoreTableRequest().id(T).version(2L));
        assertThat(client.countTableRows(new CountTableRowsRequest().id(T))).isEqualTo(150L);
        assertThat(ids(query(new QueryTableRequest().filter("id = 145").vector(new QueryTableRequestVector())
                .columns(new QueryTableRequestColumns().columnNames(List.of("id", "name")))), alloc)).containsExactly(145L);
        assertThat(rows(query(new QueryTableRequest().filter("id = 145").vector(new QueryTableRequestVector())), alloc, "name"))
                .containsExactly(List.of("n145"));
        assertThat(client.listTableVersions(new ListTableVersionsRequest().id(T)).getVersions()).hasSize(8);

        // catalog: describe, exists, list, declare, register / deregister, drop
        var described = client.describeTable(new DescribeTableRequest().id(T));
        assertThat(described.getLocation()).isEqualTo(created.getLocation());
        client.tableExists(new TableExistsRequest().id(T));
        client.declareTable(new DeclareTableRequest().id(List.of("prod", "later")));
        assertThat(client.listTables(new ListTablesRequest().id(List.of("prod"))).getTables()).containsExactly("items", "later");
        String rel = created.getLocation().substring(created.getLocation().lastIndexOf('/') + 1);
        client.registerTable(new RegisterTableRequest().id(List.of("alias")).location(rel));
        assertThat(client.countTableRows(new CountTableRowsRequest().id(List.of("alias")))).isEqualTo(150L);
        client.deregisterTable(new DeregisterTableRequest().id(List.of("alias")));
        assertThatThrownBy(() -> client.describeTable(new DescribeTableRequest().id(List.of("alias"))))
                .isInstanceOf(TableNotFoundException.class);
        assertThatThrownBy(() -> client.dropNamespace(new DropNamespaceRequest().id(List.of("prod"))))
                .isInstanceOf(NamespaceNotEmptyException.class);
        client.dropTable(new DropTableRequest().id(T));
        client.dropTable(new DropTableRequest().id(List.of("prod", "later")));
        assertThatThrownBy(() -> client.tableExists(new TableExistsRequest().id(T))).isInstanceOf(TableNotFoundException.class);
        assertThatThrownBy(() -> client.describeTable(new DescribeTableRequest().id(List.of("prod", "nope"))))
                .isInstanceOf(TableNotFoundException.class);
        client.dropNamespace(new DropNamespaceRequest().id(List.of("prod")));
        assertThat(client.listNamespaces(new ListNamespacesRequest().id(List.of())).getNamespaces()).isEmpty();
    }
}
