package io.javelin.interop.namespace;

import static io.javelin.interop.namespace.NamespaceFixtures.ids;
import static io.javelin.interop.namespace.NamespaceFixtures.ipc;
import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.engine.namespace.CreateMode;
import io.javelin.engine.namespace.DirectoryNamespace;
import io.javelin.engine.namespace.ObjectId;
import io.javelin.engine.namespace.TableQuery;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.namespace.model.CountTableRowsRequest;
import org.lance.namespace.model.CreateNamespaceRequest;
import org.lance.namespace.model.CreateTableRequest;
import org.lance.namespace.model.DescribeNamespaceRequest;
import org.lance.namespace.model.DescribeTableRequest;
import org.lance.namespace.model.InsertIntoTableRequest;
import org.lance.namespace.model.ListNamespacesRequest;
import org.lance.namespace.model.ListTablesRequest;
import org.lance.namespace.model.QueryTableRequest;
import org.lance.namespace.model.QueryTableRequestVector;
import reactor.core.publisher.Flux;

/**
 * lance-core 7.0.0's {@code DirectoryNamespace} and Javelin's read and write each other's namespace
 * directories: the {@code __manifest} table, nested namespaces with properties, {@code <hash>_<ns$name>}
 * and root {@code <name>.lance} tables, declared tables, data written by either.
 */
class DirectoryNamespaceInteropTest {

    @TempDir
    Path root;

    BufferAllocator alloc;
    org.lance.namespace.DirectoryNamespace lance;
    DirectoryNamespace javelin;

    @BeforeEach
    void open() {
        alloc = new RootAllocator();
        lance = new org.lance.namespace.DirectoryNamespace();
        lance.initialize(Map.of("root", root.toString()), alloc);
        javelin = DirectoryNamespace.open(root.toString(), Map.of());
    }

    @AfterEach
    void close() {
        lance.close();
        javelin.close();
        alloc.close();
    }

    Flux<VectorSchemaRoot> rows(long from, int n) {
        return Flux.defer(() -> Flux.just(NamespaceFixtures.batch(alloc, from, n, "j")));
    }

    List<Long> javelinIds(ObjectId t, String filter) {
        List<Long> out = new ArrayList<>();
        javelin.queryTable(t, TableQuery.scan(List.of("id"), filter, 0), alloc).doOnNext(b -> {
            try (b) {
                BigIntVector v = (BigIntVector) b.getVector("id");
                for (int i = 0; i < b.getRowCount(); i++) {
                    out.add(v.get(i));
                }
            }
        }).blockLast();
        out.sort(null);
        return out;
    }

    @Test
    void lanceCoreReadsAndWritesJavelinsNamespace() throws Exception {
        javelin.createNamespace(ObjectId.of("ns1"), Map.of("owner", "javelin"), CreateMode.CREATE).block();
        javelin.createNamespace(ObjectId.of("ns1", "deep"), Map.of(), CreateMode.CREATE).block();
        var t = javelin.createTable(ObjectId.of("ns1", "t"), rows(0, 100), NamespaceFixtures.SCHEMA, CreateMode.CREATE).block();
        javelin.createTable(ObjectId.of("r"), rows(0, 10), NamespaceFixtures.SCHEMA, CreateMode.CREATE).block();
        javelin.declareTable(ObjectId.of("ns1", "d")).block();

        assertThat(lance.listNamespaces(new ListNamespacesRequest().id(List.of())).getNamespaces()).containsExactly("ns1");
        assertThat(lance.listNamespaces(new ListNamespacesRequest().id(List.of("ns1"))).getNamespaces()).containsExactly("deep");
        assertThat(lance.describeNamespace(new DescribeNamespaceRequest().id(List.of("ns1"))).getProperties())
                .containsEntry("owner", "javelin");
        assertThat(lance.listTables(new ListTablesRequest().id(List.of("ns1")).includeDeclared(true)).getTables())
                .containsExactlyInAnyOrder("t", "d");
        assertThat(lance.listTables(new ListTablesRequest().id(List.of())).getTables()).contains("r");
        assertThat(lance.describeTable(new DescribeTableRequest().id(List.of("ns1", "t"))).getLocation()).isEqualTo(t.location());
        assertThat(lance.countTableRows(new CountTableRowsRequest().id(List.of("ns1", "t")))).isEqualTo(100L);
        assertThat(lance.countTableRows(new CountTableRowsRequest().id(List.of("r")))).isEqualTo(10L);
        byte[] q = lance.queryTable(new QueryTableRequest().id(List.of("ns1", "t")).filter("id >= 97").k(100)
                .vector(new QueryTableRequestVector()));
        assertThat(ids(q, alloc)).containsExactlyInAnyOrder(97L, 98L, 99L);

        // lance-core appends to Javelin's table; Javelin sees the rows
        lance.insertIntoTable(new InsertIntoTableRequest().id(List.of("ns1", "t")), ipc(alloc, 100, 5, "l"));
        assertThat(javelin.countTableRows(ObjectId.of("ns1", "t"), null, null).block()).isEqualTo(105);
        assertThat(javelinIds(ObjectId.of("ns1", "t"), "id >= 98")).containsExactly(98L, 99L, 100L, 101L, 102L, 103L, 104L);
    }

    @Test
    void javelinReadsAndWritesLanceCoresNamespace() throws Exception {
        lance.createNamespace(new CreateNamespaceRequest().id(List.of("a")).properties(Map.of("team", "lance")));
        lance.createNamespace(new CreateNamespaceRequest().id(List.of("a", "b")));
        var created = lance.createTable(new CreateTableRequest().id(List.of("a", "x")), ipc(alloc, 0, 30, "l"));
        lance.createTable(new CreateTableRequest().id(List.of("y")), ipc(alloc, 0, 7, "l"));

        assertThat(javelin.listNamespaces(ObjectId.root()).block()).containsExactly("a");
        assertThat(javelin.listNamespaces(ObjectId.of("a")).block()).containsExactly("b");
        assertThat(javelin.describeNamespace(ObjectId.of("a")).block()).containsEntry("team", "lance");
        assertThat(javelin.listTables(ObjectId.of("a"), true).block()).containsExactly("x");
        assertThat(javelin.listTables(ObjectId.root(), true).block()).containsExactly("y");
        assertThat(javelin.describeTable(ObjectId.of("a", "x")).block().location()).isEqualTo(created.getLocation());
        assertThat(javelin.countTableRows(ObjectId.of("a", "x"), null, null).block()).isEqualTo(30);
        assertThat(javelin.countTableRows(ObjectId.of("y"), null, null).block()).isEqualTo(7);
        assertThat(javelinIds(ObjectId.of("a", "x"), "id < 3")).containsExactly(0L, 1L, 2L);

        // Javelin appends and creates; lance-core sees both
        javelin.insertIntoTable(ObjectId.of("a", "x"), rows(30, 10), NamespaceFixtures.SCHEMA, false).block();
        assertThat(lance.countTableRows(new CountTableRowsRequest().id(List.of("a", "x")))).isEqualTo(40L);
        javelin.createTable(ObjectId.of("a", "b", "z"), rows(0, 4), NamespaceFixtures.SCHEMA, CreateMode.CREATE).block();
        assertThat(lance.listTables(new ListTablesRequest().id(List.of("a", "b"))).getTables()).containsExactly("z");
        assertThat(lance.countTableRows(new CountTableRowsRequest().id(List.of("a", "b", "z")))).isEqualTo(4L);
        javelin.dropTable(ObjectId.of("a", "x")).block();
        assertThat(lance.listTables(new ListTablesRequest().id(List.of("a"))).getTables()).isEmpty();
    }
}
