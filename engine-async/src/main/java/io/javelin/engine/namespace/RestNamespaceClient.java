package io.javelin.engine.namespace;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.HttpHeaderNames;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.ByteBufFlux;
import reactor.netty.http.client.HttpClient;
import reactor.netty.http.client.HttpClientResponse;

/**
 * A {@link LanceNamespace} over any server speaking the Lance REST namespace spec (e.g. {@code javelin serve}
 * or lance-core's REST adapter), on reactor-netty: writes stream their batches as an Arrow IPC body, query
 * results are decoded batch by batch as they arrive. Error bodies become {@link NamespaceException}s with
 * the server's code (the status alone when the body has none).
 */
public final class RestNamespaceClient implements LanceNamespace {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final JsonNodeFactory F = JsonNodeFactory.instance;
    private static final long MAX_MESSAGE = 1L << 30;

    private final HttpClient http;
    private final String delimiter;
    private final BufferAllocator allocator = new RootAllocator();

    private RestNamespaceClient(HttpClient http, String delimiter) {
        this.http = http;
        this.delimiter = delimiter;
    }

    /** A client of the server at {@code baseUri} (e.g. {@code http://127.0.0.1:2333}); {@code headers} go with every request. */
    public static RestNamespaceClient connect(String baseUri, Map<String, String> headers, Duration responseTimeout) {
        String base = baseUri.endsWith("/") ? baseUri.substring(0, baseUri.length() - 1) : baseUri;
        HttpClient c = HttpClient.create().baseUrl(base).responseTimeout(responseTimeout)
                .headers(h -> (headers == null ? Map.<String, String>of() : headers).forEach(h::set));
        return new RestNamespaceClient(c, ObjectId.DEFAULT_DELIMITER);
    }

    public static RestNamespaceClient connect(String baseUri) {
        return connect(baseUri, Map.of(), Duration.ofMinutes(5));
    }

    private String path(String kind, ObjectId id, String op, Map<String, String> params) {
        StringBuilder b = new StringBuilder("/v1/").append(kind).append('/').append(enc(id.joined(delimiter))).append('/').append(op)
                .append("?delimiter=").append(enc(delimiter));
        params.forEach((k, v) -> {
            if (v != null) {
                b.append('&').append(enc(k)).append('=').append(enc(v));
            }
        });
        return b.toString();
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }

    private static ObjectNode body(ObjectId id) {
        ObjectNode o = F.objectNode();
        ArrayNode a = o.putArray("id");
        id.parts().forEach(a::add);
        return o;
    }

    // ------------------------------------------------------------------ transport

    private Mono<JsonNode> call(String method, String uri, JsonNode json) {
        byte[] bytes = json == null ? new byte[0] : json.toString().getBytes(StandardCharsets.UTF_8);
        HttpClient.ResponseReceiver<?> r = method.equals("GET") ? http.get().uri(uri)
                : http.headers(h -> h.set(HttpHeaderNames.CONTENT_TYPE, "application/json")).post().uri(uri)
                        .send(Mono.just(Unpooled.wrappedBuffer(bytes)));
        return r.responseSingle((res, content) -> content.asByteArray().defaultIfEmpty(new byte[0])
                .flatMap(b -> res.status().code() >= 400 ? Mono.error(error(res, b)) : Mono.just(parse(b))));
    }

    private Mono<JsonNode> sendArrow(String uri, Flux<VectorSchemaRoot> data, Schema schema) {
        Flux<io.netty.buffer.ByteBuf> ipc = IpcEncoders.stream(data, schema, allocator).map(Unpooled::wrappedBuffer);
        return http.headers(h -> h.set(HttpHeaderNames.CONTENT_TYPE, "application/vnd.apache.arrow.stream")).post().uri(uri)
                .send(ipc)
                .responseSingle((res, content) -> content.asByteArray().defaultIfEmpty(new byte[0])
                        .flatMap(b -> res.status().code() >= 400 ? Mono.error(error(res, b)) : Mono.just(parse(b))));
    }

    private static JsonNode parse(byte[] b) {
        if (b.length == 0) {
            return NullNode.instance;
        }
        try {
            return JSON.readTree(b);
        } catch (Exception e) {
            throw new NamespaceException(NamespaceErrorCode.INTERNAL, "The server answered malformed JSON: " + e.getMessage());
        }
    }

    private static NamespaceException error(HttpClientResponse res, byte[] b) {
        int status = res.status().code();
        try {
            JsonNode n = b.length == 0 ? null : JSON.readTree(b);
            if (n != null && n.hasNonNull("code") && n.get("code").canConvertToInt()) {
                String msg = n.hasNonNull("error") ? n.get("error").asText() : "HTTP " + status;
                return new NamespaceException(NamespaceErrorCode.of(n.get("code").asInt()), msg);
            }
        } catch (Exception e) {
            // not a spec error body: the status decides
        }
        String text = new String(b, 0, Math.min(b.length, 512), StandardCharsets.UTF_8);
        return new NamespaceException(NamespaceErrorCode.ofStatus(status), "HTTP " + status + (text.isBlank() ? "" : ": " + text));
    }

    private static Map<String, String> props(JsonNode n, String field) {
        Map<String, String> out = new LinkedHashMap<>();
        if (n != null && n.has(field) && n.get(field).isObject()) {
            n.get(field).fields().forEachRemaining(e -> out.put(e.getKey(), e.getValue().asText()));
        }
        return out;
    }

    private static List<String> strings(JsonNode n, String field) {
        List<String> out = new ArrayList<>();
        if (n != null && n.has(field)) {
            n.get(field).forEach(e -> out.add(e.asText()));
        }
        return out;
    }

    private static long longOf(JsonNode n, String field, long dflt) {
        return n != null && n.hasNonNull(field) ? n.get(field).asLong() : dflt;
    }

    /** Every page of a list operation, following {@code page_token}. */
    private Mono<List<String>> listAll(String kind, ObjectId id, String op, String field, Map<String, String> params) {
        return Mono.defer(() -> page(kind, id, op, field, params, null))
                .expand(p -> p.next == null ? Mono.empty() : page(kind, id, op, field, params, p.next))
                .concatMapIterable(p -> p.names).collectList();
    }

    private record Page(List<String> names, String next) {
    }

    private Mono<Page> page(String kind, ObjectId id, String op, String field, Map<String, String> params, String token) {
        Map<String, String> p = new LinkedHashMap<>(params);
        if (token != null) {
            p.put("page_token", token);
        }
        return call("GET", path(kind, id, op, p), null).map(n -> new Page(strings(n, field),
                n.hasNonNull("page_token") && !n.get("page_token").asText().isEmpty() ? n.get("page_token").asText() : null));
    }

    // ------------------------------------------------------------------ namespaces

    @Override
    public Mono<List<String>> listNamespaces(ObjectId parent) {
        return listAll("namespace", parent, "list", "namespaces", Map.of());
    }

    @Override
    public Mono<Map<String, String>> createNamespace(ObjectId id, Map<String, String> properties, CreateMode mode) {
        ObjectNode b = body(id).put("mode", mode.name().toLowerCase(java.util.Locale.ROOT));
        ObjectNode p = b.putObject("properties");
        (properties == null ? Map.<String, String>of() : properties).forEach(p::put);
        return call("POST", path("namespace", id, "create", Map.of()), b).map(n -> props(n, "properties"));
    }

    @Override
    public Mono<Map<String, String>> describeNamespace(ObjectId id) {
        return call("POST", path("namespace", id, "describe", Map.of()), body(id)).map(n -> props(n, "properties"));
    }

    @Override
    public Mono<Void> dropNamespace(ObjectId id) {
        return call("POST", path("namespace", id, "drop", Map.of()), body(id)).then();
    }

    @Override
    public Mono<Boolean> namespaceExists(ObjectId id) {
        return exists("namespace", id, NamespaceErrorCode.NAMESPACE_NOT_FOUND);
    }

    private Mono<Boolean> exists(String kind, ObjectId id, NamespaceErrorCode notFound) {
        return call("POST", path(kind, id, "exists", Map.of()), body(id)).thenReturn(true)
                .onErrorResume(NamespaceException.class, e -> e.code() == notFound ? Mono.just(false) : Mono.error(e));
    }

    // ------------------------------------------------------------------ tables

    @Override
    public Mono<List<String>> listTables(ObjectId namespace, boolean includeDeclared) {
        return listAll("namespace", namespace, "table/list", "tables", Map.of("include_declared", Boolean.toString(includeDeclared)));
    }

    @Override
    public Mono<TableInfo> createTable(ObjectId id, Flux<VectorSchemaRoot> data, Schema schema, CreateMode mode) {
        return sendArrow(path("table", id, "create", Map.of("mode", mode.name().toLowerCase(java.util.Locale.ROOT))), data, schema)
                .map(n -> new TableInfo(id, n.path("location").asText(null), longOf(n, "version", -1), null, props(n, "properties")));
    }

    @Override
    public Mono<TableInfo> declareTable(ObjectId id) {
        return call("POST", path("table", id, "declare", Map.of()), body(id))
                .map(n -> new TableInfo(id, n.path("location").asText(null), -1, null, Map.of()));
    }

    @Override
    public Mono<TableInfo> registerTable(ObjectId id, String location) {
        return call("POST", path("table", id, "register", Map.of()), body(id).put("location", location))
                .map(n -> new TableInfo(id, n.path("location").asText(location), -1, null, Map.of()));
    }

    @Override
    public Mono<TableInfo> describeTable(ObjectId id) {
        return call("POST", path("table", id, "describe", Map.of()), body(id))
                .map(n -> new TableInfo(id, n.path("location").asText(null), longOf(n, "version", -1), null, props(n, "properties")));
    }

    @Override
    public Mono<Boolean> tableExists(ObjectId id) {
        return exists("table", id, NamespaceErrorCode.TABLE_NOT_FOUND);
    }

    @Override
    public Mono<TableInfo> dropTable(ObjectId id) {
        return call("POST", path("table", id, "drop", Map.of()), body(id))
                .map(n -> new TableInfo(id, n.path("location").asText(null), -1, null, Map.of()));
    }

    @Override
    public Mono<TableInfo> deregisterTable(ObjectId id) {
        return call("POST", path("table", id, "deregister", Map.of()), body(id))
                .map(n -> new TableInfo(id, n.path("location").asText(null), -1, null, Map.of()));
    }

    @Override
    public Mono<Void> renameTable(ObjectId id, ObjectId newId) {
        ObjectNode b = body(id).put("new_table_name", newId.name());
        ArrayNode ns = b.putArray("new_namespace_id");
        newId.parent().parts().forEach(ns::add);
        return call("POST", path("table", id, "rename", Map.of()), b).then();
    }

    @Override
    public Mono<Long> insertIntoTable(ObjectId id, Flux<VectorSchemaRoot> data, Schema schema, boolean overwrite) {
        return sendArrow(path("table", id, "insert", Map.of("mode", overwrite ? "overwrite" : "append")), data, schema)
                .map(n -> longOf(n, "version", -1));
    }

    @Override
    public Mono<MergeInsertOutcome> mergeInsertIntoTable(ObjectId id, MergeInsertSpec spec, Flux<VectorSchemaRoot> data, Schema schema) {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("on", String.join(",", spec.on()));
        p.put("when_matched_update_all", Boolean.toString(spec.whenMatchedUpdateAll()));
        p.put("when_matched_update_all_filt", spec.whenMatchedUpdateAllFilter());
        p.put("when_not_matched_insert_all", Boolean.toString(spec.whenNotMatchedInsertAll()));
        p.put("when_not_matched_by_source_delete", Boolean.toString(spec.whenNotMatchedBySourceDelete()));
        p.put("when_not_matched_by_source_delete_filt", spec.whenNotMatchedBySourceDeleteFilter());
        return sendArrow(path("table", id, "merge_insert", p), data, schema).map(n -> new MergeInsertOutcome(
                longOf(n, "num_updated_rows", 0), longOf(n, "num_inserted_rows", 0), longOf(n, "num_deleted_rows", 0), longOf(n, "version", -1)));
    }

    @Override
    public Mono<UpdateOutcome> updateTable(ObjectId id, String predicate, Map<String, String> set) {
        ObjectNode b = body(id);
        if (predicate != null) {
            b.put("predicate", predicate);
        }
        ArrayNode u = b.putArray("updates");
        set.forEach((k, v) -> u.addArray().add(k).add(v));
        return call("POST", path("table", id, "update", Map.of()), b)
                .map(n -> new UpdateOutcome(longOf(n, "updated_rows", 0), longOf(n, "version", -1)));
    }

    @Override
    public Mono<Long> deleteFromTable(ObjectId id, String predicate) {
        return call("POST", path("table", id, "delete", Map.of()), body(id).put("predicate", predicate)).map(n -> longOf(n, "version", -1));
    }

    @Override
    public Mono<Long> countTableRows(ObjectId id, String predicate, Long version) {
        // GET with parameters, as lance-core's client sends it (its REST adapter refuses POST here)
        Map<String, String> p = new LinkedHashMap<>();
        p.put("predicate", predicate);
        p.put("version", version == null ? null : Long.toString(version));
        // a bare integer (lance-core 7.0.0's client reads that; javelin serve answers it) or {"count": n}
        return call("GET", path("table", id, "count_rows", p), null).map(n -> n.isNumber() ? n.asLong() : longOf(n, "count", 0));
    }

    @Override
    public Flux<VectorSchemaRoot> queryTable(ObjectId id, TableQuery q, BufferAllocator alloc) {
        ObjectNode b = body(id).put("k", q.k()).put("offset", q.offset()).put("with_row_id", q.withRowId())
                .put("bypass_vector_index", q.bypassVectorIndex());
        if (q.columns() != null) {
            ArrayNode c = b.putObject("columns").putArray("column_names");
            q.columns().forEach(c::add);
        }
        if (q.filter() != null) {
            b.put("filter", q.filter());
        }
        // servers generated from the spec require the vector object even for a plain query
        ObjectNode vec = b.putObject("vector");
        if (q.vector() != null) {
            ArrayNode v = vec.putArray("single_vector");
            for (float f : q.vector()) {
                v.add(f);
            }
        }
        putIf(b, "vector_column", q.vectorColumn());
        putIf(b, "distance_type", q.distanceType());
        if (q.nprobes() != null) {
            b.put("nprobes", q.nprobes());
        }
        if (q.refineFactor() != null) {
            b.put("refine_factor", q.refineFactor());
        }
        if (q.ef() != null) {
            b.put("ef", q.ef());
        }
        if (q.version() != null) {
            b.put("version", q.version());
        }
        byte[] json = b.toString().getBytes(StandardCharsets.UTF_8);
        Flux<byte[]> bytes = http.headers(h -> h.set(HttpHeaderNames.CONTENT_TYPE, "application/json")).post()
                .uri(path("table", id, "query", Map.of()))
                .send(Mono.just(Unpooled.wrappedBuffer(json)))
                .response((res, content) -> res.status().code() >= 400
                        ? content.aggregate().asByteArray().defaultIfEmpty(new byte[0]).flatMap(e -> Mono.<byte[]>error(error(res, e)))
                        : content.asByteArray());
        return IpcStreamDecoder.decode(bytes, alloc, MAX_MESSAGE).skip(1).cast(VectorSchemaRoot.class);
    }

    private static void putIf(ObjectNode b, String f, String v) {
        if (v != null) {
            b.put(f, v);
        }
    }

    @Override
    public Mono<Void> createTableIndex(ObjectId id, String column, String indexType, String name, String distanceType) {
        ObjectNode b = body(id).put("column", column).put("index_type", indexType);
        putIf(b, "name", name);
        putIf(b, "distance_type", distanceType);
        return call("POST", path("table", id, "create_index", Map.of()), b).then();
    }

    @Override
    public Mono<List<IndexDescription>> listTableIndices(ObjectId id) {
        return call("POST", path("table", id, "index/list", Map.of()), body(id)).map(n -> {
            List<IndexDescription> out = new ArrayList<>();
            n.path("indexes").forEach(ix -> out.add(new IndexDescription(ix.path("index_name").asText(), ix.path("index_uuid").asText(null),
                    strings(ix, "columns"), ix.path("status").asText(null))));
            return out;
        });
    }

    @Override
    public Mono<List<TableVersionInfo>> listTableVersions(ObjectId id) {
        return call("POST", path("table", id, "version/list", Map.of()), body(id)).map(n -> {
            List<TableVersionInfo> out = new ArrayList<>();
            n.path("versions").forEach(v -> out.add(new TableVersionInfo(v.path("version").asLong(), v.path("timestamp_millis").asLong(),
                    v.path("manifest_path").asText(null), v.hasNonNull("manifest_size") ? v.get("manifest_size").asLong() : -1)));
            return out;
        });
    }

    @Override
    public Mono<Long> restoreTable(ObjectId id, long version) {
        return call("POST", path("table", id, "restore", Map.of()), body(id).put("version", version)).map(n -> longOf(n, "version", -1));
    }

    @Override
    public void close() {
        allocator.close();
    }
}
