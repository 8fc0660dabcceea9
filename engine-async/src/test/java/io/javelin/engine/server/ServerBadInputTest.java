package io.javelin.engine.server;

import static io.javelin.engine.server.ServerFixtures.SCHEMA;
import static io.javelin.engine.server.ServerFixtures.rows;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.javelin.engine.namespace.CreateMode;
import io.javelin.engine.namespace.DirectoryNamespace;
import io.javelin.engine.namespace.ObjectId;
import io.javelin.engine.namespace.RestNamespaceClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Mono;

/**
 * Bad input against {@code javelin serve}: malformed JSON, bad / truncated / oversized Arrow IPC, hostile
 * identifiers and locations, unknown tables and operations get the spec's error body with its code and a
 * 4xx status (never a 500 or a stack trace), and change nothing on disk. Also health, metrics and graceful
 * shutdown.
 */
class ServerBadInputTest {

    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path root;

    BufferAllocator alloc;
    DirectoryNamespace dir;
    NamespaceServer server;
    final HttpClient http = HttpClient.newHttpClient();

    @BeforeEach
    void start() {
        alloc = new RootAllocator();
        dir = DirectoryNamespace.open(root.toString(), Map.of());
        server = NamespaceServer.start(dir, ServerOptions.defaults().withPort(0).withLogRequests(false)
                .withLimits(4096, 64 * 1024, 32 * 1024).withShutdownGrace(Duration.ofSeconds(20))).block();
    }

    @AfterEach
    void stop() {
        server.shutdown().block();
        server.close();
        dir.close();
        alloc.close();
    }

    HttpResponse<String> post(String path, byte[] body) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** The answer is the spec's error body with {@code code} and {@code status}, and carries no stack trace. */
    static void assertError(HttpResponse<String> r, int status, int code) throws Exception {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
        JsonNode n = JSON.readTree(r.body());
        assertThat(n.get("code").asInt()).as(r.body()).isEqualTo(code);
        assertThat(n.get("error").asText()).isNotBlank();
        assertThat(r.body()).doesNotContain("\tat ", "at io.javelin", "at reactor.");
    }

    List<String> rootEntries() throws Exception {
        try (Stream<Path> s = Files.list(root)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void hostileIdentifiersAndLocationsAreRefusedAndChangeNothing() throws Exception {
        byte[] ipc = ServerFixtures.ipc(alloc, 0, 10);
        for (String id : List.of("..", "%2E%2E", "%2Fetc%2Fpasswd", "ns%24..%24x", "%252e%252e", "C:%5Cx", "a%00b", "%2e", ".%2F..")) {
            assertError(post("/v1/table/" + id + "/create", ipc), 400, 13);
            assertError(post("/v1/table/" + id + "/describe", "{}".getBytes()), 400, 13);
            assertError(post("/v1/namespace/" + id + "/create", "{}".getBytes()), 400, 13);
        }
        assertError(post("/v1/namespace/../create", "{}".getBytes()), 400, 13);
        for (String loc : List.of("../outside", "/tmp/abs", "file:///tmp/x", "a/../../b", "__manifest", "%2e%2e/x", "")) {
            assertError(post("/v1/table/reg/register", JSON.writeValueAsBytes(Map.of("location", loc))), 400, 13);
        }
        assertThat(rootEntries()).isEmpty();
        assertThat(root.getParent().resolve("outside")).doesNotExist();
    }

    @Test
    void malformedRequestsGetTheSpecsErrorBodies() throws Exception {
        assertError(post("/v1/namespace/ns/create", "{\"properties\": {".getBytes()), 400, 13);
        assertError(post("/v1/namespace/ns/create", "[1,2]".getBytes()), 400, 13);
        assertError(post("/v1/namespace/ns/create", "{\"properties\": [1]}".getBytes()), 400, 13);
        assertError(post("/v1/namespace/ns/create", ("{\"properties\": {\"k\": \"" + "x".repeat(5000) + "\"}}").getBytes()), 400, 13);
        byte[] ipc = ServerFixtures.ipc(alloc, 0, 50);
        assertError(post("/v1/table/t/create", Arrays.copyOf(ipc, ipc.length / 2)), 400, 13);
        assertError(post("/v1/table/t/create", Arrays.copyOf(ipc, 7)), 400, 13);
        assertError(post("/v1/table/t/create", "this is not arrow at all, just text".getBytes()), 400, 13);
        assertError(post("/v1/table/t/create", new byte[0]), 400, 13);
        byte[] big = ServerFixtures.ipc(alloc, 0, 5000);
        assertThat(big.length).isGreaterThan(64 * 1024);
        assertError(post("/v1/table/t/create", big), 400, 13);
        assertThat(rootEntries()).as("nothing is created by a refused body").allMatch(e -> e.equals("__manifest"));
        assertThat(dir.listTables(ObjectId.root(), true).block()).isEmpty();

        // unknown table, operation, bad options and filters
        assertError(post("/v1/table/nope/describe", "{}".getBytes()), 404, 4);
        assertError(post("/v1/table/nope/insert", ipc), 404, 4);
        assertError(post("/v1/namespace/nope/describe", "{}".getBytes()), 404, 1);
        assertError(post("/v1/table/t/frobnicate", "{}".getBytes()), 406, 0);
        assertError(get("/nothing/here"), 406, 0);
        assertError(get("/v1/table/t/drop"), 406, 0);
        assertThat(post("/v1/table/t/create", ipc).statusCode()).isEqualTo(201);
        assertError(post("/v1/table/t/create", ipc), 409, 5);
        assertError(post("/v1/table/t/merge_insert", ipc), 400, 13);
        assertError(post("/v1/table/t/insert?mode=sideways", ipc), 400, 13);
        assertError(post("/v1/table/t/query", "{\"filter\": \"id >>> 3\", \"k\": 5}".getBytes()), 400, 13);
        assertError(post("/v1/table/t/query", "{\"filter\": \"no_such_column = 3\", \"k\": 5}".getBytes()), 400, 13);
        assertError(post("/v1/table/t/query", "{\"vector\": {\"single_vector\": [1, \"x\"]}, \"k\": 5}".getBytes()), 400, 13);
        assertError(post("/v1/table/t/restore", "{\"version\": 42}".getBytes()), 404, 11);
        assertError(post("/v1/table/t/delete", "{}".getBytes()), 400, 13);
        assertThat(post("/v1/table/t/count_rows", "{}".getBytes()).body()).isEqualTo("50");
    }

    @Test
    void healthMetricsAndGracefulShutdown() throws Exception {
        assertThat(get("/health").body()).isEqualTo("{\"status\":\"ok\"}");
        assertThat(post("/v1/namespace/ns/create", "{}".getBytes()).statusCode()).isEqualTo(201);
        HttpResponse<String> metrics = get("/metrics");
        assertThat(metrics.statusCode()).isEqualTo(200);
        assertThat(metrics.body()).contains("javelin_server_requests_seconds_count{operation=\"namespace.create\",status=\"201\"} 1");

        // an insert whose body is still arriving when the shutdown starts completes; later requests are refused
        RestNamespaceClient client = RestNamespaceClient.connect("http://127.0.0.1:" + server.port());
        try {
            client.createTable(ObjectId.of("t"), rows(alloc, 0, 10, 10, "a"), SCHEMA, CreateMode.CREATE).block();
            Mono<Long> slow = client.insertIntoTable(ObjectId.of("t"),
                    rows(alloc, 10, 30, 10, "b").delayElements(Duration.ofMillis(300)), SCHEMA, false).cache();
            slow.subscribe(v -> { }, e -> { });
            Thread.sleep(250);
            assertThat(server.inFlight()).isEqualTo(1);
            Mono<Void> shutdown = server.shutdown().cache();
            shutdown.subscribe();
            Thread.sleep(100);
            assertError(post("/v1/table/t/describe", "{}".getBytes()), 503, 17);
            assertThat(slow.block(Duration.ofSeconds(20))).isEqualTo(2);
            shutdown.block(Duration.ofSeconds(20));
        } finally {
            client.close();
        }
        assertThat(dir.countTableRows(ObjectId.of("t"), null, null).block()).isEqualTo(40);
        try {
            get("/health");
            org.junit.jupiter.api.Assertions.fail("the server still answers after shutdown");
        } catch (java.io.IOException expected) {
            assertThat(expected).isNotNull();
        }
    }
}
