package io.javelin.interop.namespace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.javelin.engine.namespace.CreateMode;
import io.javelin.engine.namespace.MergeInsertSpec;
import io.javelin.engine.namespace.NamespaceErrorCode;
import io.javelin.engine.namespace.NamespaceException;
import io.javelin.engine.namespace.ObjectId;
import io.javelin.engine.namespace.RestNamespaceClient;
import io.javelin.engine.namespace.TableQuery;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.namespace.RestAdapter;
import reactor.core.publisher.Flux;

/** Javelin's REST namespace client against a server nobody here wrote: lance-core 7.0.0's REST adapter. */
class RestClientInteropTest {

    @TempDir
    Path root;

    @Test
    void javelinsClientTalksToLanceCoresRestServer() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        try (BufferAllocator alloc = new RootAllocator();
             RestAdapter adapter = new RestAdapter("dir", Map.of("root", root.toString()), "127.0.0.1", port)) {
            adapter.start();
            try (RestNamespaceClient client = RestNamespaceClient.connect("http://127.0.0.1:" + port)) {
                ObjectId t = ObjectId.of("ns", "t");
                client.createNamespace(ObjectId.of("ns"), Map.of("k", "v"), CreateMode.CREATE).block();
                assertThat(client.describeNamespace(ObjectId.of("ns")).block()).containsEntry("k", "v");
                client.createTable(t, Flux.defer(() -> Flux.just(NamespaceFixtures.batch(alloc, 0, 40, "a"),
                        NamespaceFixtures.batch(alloc, 40, 20, "a"))), NamespaceFixtures.SCHEMA, CreateMode.CREATE).block();
                client.insertIntoTable(t, Flux.defer(() -> Flux.just(NamespaceFixtures.batch(alloc, 60, 10, "b"))),
                        NamespaceFixtures.SCHEMA, false).block();
                assertThat(client.countTableRows(t, null, null).block()).isEqualTo(70);
                var m = client.mergeInsertIntoTable(t, MergeInsertSpec.upsert("id"),
                        Flux.defer(() -> Flux.just(NamespaceFixtures.batch(alloc, 65, 10, "m"))), NamespaceFixtures.SCHEMA).block();
                assertThat(m.updated()).isEqualTo(5);
                assertThat(m.inserted()).isEqualTo(5);
                List<Long> ids = new ArrayList<>();
                client.queryTable(t, TableQuery.scan(List.of("id"), "id >= 72", 100), alloc).doOnNext(b -> {
                    try (b) {
                        BigIntVector v = (BigIntVector) b.getVector("id");
                        for (int i = 0; i < b.getRowCount(); i++) {
                            ids.add(v.get(i));
                        }
                    }
                }).blockLast();
                assertThat(ids).containsExactlyInAnyOrder(72L, 73L, 74L);
                assertThat(client.listTables(ObjectId.of("ns"), true).block()).containsExactly("t");
                assertThat(client.listTableVersions(t).block()).hasSize(3);
                assertThatThrownBy(() -> client.describeTable(ObjectId.of("ns", "missing")).block())
                        .isInstanceOfSatisfying(NamespaceException.class, e -> assertThat(e.code()).isEqualTo(NamespaceErrorCode.TABLE_NOT_FOUND));
                client.dropTable(t).block();
                assertThat(client.tableExists(t).block()).isFalse();
            } finally {
                adapter.stop();
            }
        }
    }
}
