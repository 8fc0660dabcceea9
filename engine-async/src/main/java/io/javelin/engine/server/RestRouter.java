package io.javelin.engine.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javelin.engine.namespace.CreateMode;
import io.javelin.engine.namespace.IndexDescription;
import io.javelin.engine.namespace.IpcEncoders;
import io.javelin.engine.namespace.IpcStreamDecoder;
import io.javelin.engine.namespace.LanceNamespace;
import io.javelin.engine.namespace.MergeInsertSpec;
import io.javelin.engine.namespace.NamespaceErrorCode;
import io.javelin.engine.namespace.NamespaceException;
import io.javelin.engine.namespace.ObjectId;
import io.javelin.engine.namespace.TableInfo;
import io.javelin.engine.namespace.TableQuery;
import io.javelin.engine.namespace.TableVersionInfo;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The REST namespace operations ({@code /v1/namespace/{id}/...}, {@code /v1/table/{id}/...}) over a
 * {@link LanceNamespace}: request fields in, spec response bodies out. Arrow IPC bodies reach the namespace
 * as a stream of batches; query results leave as an Arrow IPC file stream.
 */
final class RestRouter {

    private static final JsonNodeFactory F = JsonNodeFactory.instance;
    /** Operations a GET may run (lance-core's client sends these as GET); everything else needs POST. */
    private static final java.util.Set<String> READS = java.util.Set.of("list", "table/list", "count_rows", "describe", "exists",
            "index/list", "version/list");

    private final LanceNamespace ns;
    private final BufferAllocator allocator;
    private final ServerOptions options;

    RestRouter(LanceNamespace ns, BufferAllocator allocator, ServerOptions options) {
        this.ns = ns;
        this.allocator = allocator;
        this.options = options;
    }

    /** A label of the operation for metrics and logs (never the identifier). */
    static String operationName(RequestPath p) {
        if (p.segments().size() >= 3 && p.segments().getFirst().equals("v1")) {
            return p.segments().get(1) + "." + p.operation().replace('/', '_');
        }
        return "unknown";
    }

    /** Whether this operation's body is Arrow IPC (streamed) rather than JSON. */
    static boolean hasArrowBody(RequestPath p) {
        if (p.segments().size() < 4 || !p.segments().get(1).equals("table")) {
            return false;
        }
        return switch (p.operation()) {
            case "create", "insert", "merge_insert" -> true;
            default -> false;
        };
    }

    Mono<Reply> json(String method, RequestPath p, byte[] body) {
        return Mono.defer(() -> {
            if (p.segments().size() < 4 || !p.segments().getFirst().equals("v1")) {
                return Mono.error(unknown(method, p));
            }
            ObjectId id = p.id();
            JsonBody b = JsonBody.parse(body, p);
            String kind = p.segments().get(1);
            String op = p.operation();
            if (method.equals("GET") && !READS.contains(op)) {
                return Mono.error(new NamespaceException(NamespaceErrorCode.UNSUPPORTED, op + " changes state: use POST"));
            }
            if (kind.equals("namespace")) {
                return namespaceOp(method, op, id, b, p);
            }
            if (kind.equals("table")) {
                return tableOp(method, op, id, b, p);
            }
            return Mono.error(unknown(method, p));
        });
    }

    private static NamespaceException unknown(String method, RequestPath p) {
        return new NamespaceException(NamespaceErrorCode.UNSUPPORTED, "No such operation: " + method + " /" + String.join("/", p.segments()));
    }

    private Mono<Reply> namespaceOp(String method, String op, ObjectId id, JsonBody b, RequestPath p) {
        return switch (op) {
            case "create" -> ns.createNamespace(id, b.stringMap("properties"), CreateMode.parse(b.string("mode")))
                    .map(props -> Reply.json(201, obj().set("properties", map(props))));
            case "describe" -> ns.describeNamespace(id).map(props -> Reply.json(200, obj().set("properties", map(props))));
            case "drop" -> ns.dropNamespace(id).thenReturn(Reply.json(200, obj()));
            case "exists" -> ns.namespaceExists(id).flatMap(ok -> ok ? Mono.just(Reply.empty(204))
                    : Mono.error(new NamespaceException(NamespaceErrorCode.NAMESPACE_NOT_FOUND, "Namespace not found: " + id)));
            case "list" -> ns.listNamespaces(id).map(names -> Reply.json(200, page("namespaces", names, b)));
            case "table/list" -> ns.listTables(id, b.bool("include_declared", true)).map(names -> Reply.json(200, page("tables", names, b)));
            default -> Mono.error(unknown(method, p));
        };
    }

    private Mono<Reply> tableOp(String method, String op, ObjectId id, JsonBody b, RequestPath p) {
        return switch (op) {
            case "describe" -> ns.describeTable(id).map(t -> Reply.json(200, describe(t)));
            case "exists" -> ns.tableExists(id).flatMap(ok -> ok ? Mono.just(Reply.empty(204))
                    : Mono.error(new NamespaceException(NamespaceErrorCode.TABLE_NOT_FOUND, "Table not found: " + id)));
            case "declare" -> ns.declareTable(id).map(t -> Reply.json(201, obj().put("location", t.location())
                    .set("properties", obj())));
            case "register" -> ns.registerTable(id, b.requiredString("location")).map(t -> Reply.json(200, obj().put("location", b.string("location"))));
            case "drop" -> ns.dropTable(id).map(t -> Reply.json(200, dropped(t)));
            case "deregister" -> ns.deregisterTable(id).map(t -> Reply.json(200, dropped(t)));
            case "rename" -> {
                List<String> newNs = b.stringList("new_namespace_id");
                ObjectId target = new ObjectId(newNs == null || newNs.isEmpty() ? id.parent().parts() : newNs).child(b.requiredString("new_table_name"));
                yield ns.renameTable(id, target).thenReturn(Reply.json(200, obj()));
            }
            case "update" -> ns.updateTable(id, b.string("predicate"), updates(b))
                    .map(u -> Reply.json(200, obj().put("updated_rows", u.updatedRows()).put("version", u.version())));
            case "delete" -> ns.deleteFromTable(id, b.requiredString("predicate")).map(v -> Reply.json(200, obj().put("version", v)));
            // lance-core 7.0.0's client reads a bare integer here
            case "count_rows" -> ns.countTableRows(id, b.string("predicate"), b.longOrNull("version"))
                    .map(n -> Reply.json(200, F.numberNode(n)));
            case "query" -> Mono.just(Reply.arrow(IpcEncoders.file(ns.queryTable(id, query(b), allocator), null, allocator)));
            case "create_index", "create_scalar_index" -> ns.createTableIndex(id, b.requiredString("column"), b.string("index_type"),
                    b.string("name"), b.string("distance_type")).thenReturn(Reply.json(201, obj()));
            case "index/list" -> ns.listTableIndices(id).map(list -> {
                ArrayNode a = F.arrayNode();
                for (IndexDescription d : list) {
                    ObjectNode o = obj().put("index_name", d.name()).put("index_uuid", d.uuid()).put("status", d.status());
                    ArrayNode cols = o.putArray("columns");
                    d.columns().forEach(cols::add);
                    a.add(o);
                }
                return Reply.json(200, obj().set("indexes", a));
            });
            case "version/list" -> ns.listTableVersions(id).map(list -> {
                ArrayNode a = F.arrayNode();
                for (TableVersionInfo v : list) {
                    ObjectNode o = obj().put("version", v.version()).put("manifest_path", v.manifestPath())
                            .put("timestamp_millis", v.timestampMillis());
                    if (v.manifestSize() >= 0) {
                        o.put("manifest_size", v.manifestSize());
                    }
                    o.set("metadata", obj());
                    a.add(o);
                }
                return Reply.json(200, obj().set("versions", a));
            });
            case "restore" -> {
                Long v = b.longOrNull("version");
                if (v == null) {
                    yield Mono.error(JsonBody.invalid("'version' is required"));
                }
                yield ns.restoreTable(id, v).map(nv -> Reply.json(200, obj()));
            }
            default -> Mono.error(unknown(method, p));
        };
    }

    /** The Arrow IPC operations: the body's schema first, then its batches straight into the write. */
    Mono<Reply> arrow(RequestPath p, Flux<byte[]> body) {
        return Mono.defer(() -> {
            ObjectId id = p.id();
            JsonBody b = JsonBody.ofParams(p);
            Function<Data, Mono<Reply>> op = switch (p.operation()) {
                case "create" -> {
                    CreateMode mode = CreateMode.parse(b.string("mode"));
                    yield d -> ns.createTable(id, d.batches, d.schema, mode).map(t -> Reply.json(201,
                            obj().put("location", t.location()).put("version", t.version()).set("properties", obj())));
                }
                case "insert" -> {
                    String mode = b.string("mode");
                    boolean overwrite = mode != null && mode.equalsIgnoreCase("overwrite");
                    if (mode != null && !overwrite && !mode.equalsIgnoreCase("append")) {
                        throw JsonBody.invalid("Unknown insert mode '" + mode + "' (append or overwrite)");
                    }
                    yield d -> ns.insertIntoTable(id, d.batches, d.schema, overwrite).map(v -> Reply.json(200, obj().put("version", v)));
                }
                case "merge_insert" -> {
                    List<String> on = b.stringList("on");
                    List<String> keys = new ArrayList<>();
                    if (on != null) {
                        for (String s : on) {
                            for (String k : s.split(",")) {
                                if (!k.isBlank()) {
                                    keys.add(k.trim());
                                }
                            }
                        }
                    }
                    MergeInsertSpec spec = new MergeInsertSpec(keys, b.bool("when_matched_update_all", false),
                            b.string("when_matched_update_all_filt"), b.bool("when_not_matched_insert_all", false),
                            b.bool("when_not_matched_by_source_delete", false), b.string("when_not_matched_by_source_delete_filt"));
                    yield d -> ns.mergeInsertIntoTable(id, spec, d.batches, d.schema).map(r -> Reply.json(200, obj()
                            .put("num_updated_rows", r.updated()).put("num_inserted_rows", r.inserted())
                            .put("num_deleted_rows", r.deleted()).put("version", r.version())));
                }
                default -> throw unknown("POST", p);
            };
            return IpcStreamDecoder.decode(body, allocator, options.maxMessageBytes())
                    .switchOnFirst((first, all) -> {
                        if (first.hasValue() && first.get() instanceof Schema s) {
                            return op.apply(new Data(s, all.skip(1).cast(VectorSchemaRoot.class))).flux();
                        }
                        return all.then(Mono.<Reply>error(JsonBody.invalid("Invalid Arrow IPC body: no schema"))).flux();
                    })
                    .single();
        });
    }

    private record Data(Schema schema, Flux<VectorSchemaRoot> batches) {
    }

    private static Map<String, String> updates(JsonBody b) {
        JsonNode u = b.raw("updates");
        Map<String, String> set = new LinkedHashMap<>();
        if (u == null || u.isNull()) {
            return set;
        }
        if (u.isObject()) {
            u.fields().forEachRemaining(e -> set.put(e.getKey(), e.getValue().asText()));
            return set;
        }
        if (!u.isArray()) {
            throw JsonBody.invalid("'updates' must be a list of [column, expression] pairs");
        }
        for (JsonNode pair : u) {
            if (!pair.isArray() || pair.size() != 2 || !pair.get(0).isTextual() || !pair.get(1).isTextual()) {
                throw JsonBody.invalid("'updates' must be a list of [column, expression] pairs");
            }
            set.put(pair.get(0).asText(), pair.get(1).asText());
        }
        return set;
    }

    static TableQuery query(JsonBody b) {
        List<String> columns = null;
        JsonNode c = b.raw("columns");
        if (c != null && !c.isNull()) {
            if (c.isArray()) {
                columns = b.stringList("columns");
            } else if (c.isObject() && c.has("column_names") && !c.get("column_names").isNull()) {
                columns = new ArrayList<>();
                for (JsonNode n : c.get("column_names")) {
                    columns.add(n.asText());
                }
            }
        }
        float[] vector = vector(b.raw("vector"));
        Integer k = b.intOrNull("k");
        Integer offset = b.intOrNull("offset");
        return new TableQuery(columns, b.string("filter"), k == null ? (vector == null ? 0 : 10) : k, offset == null ? 0 : offset,
                vector, b.string("vector_column"), b.intOrNull("nprobes"), b.intOrNull("refine_factor"), b.intOrNull("ef"),
                b.string("distance_type"), b.bool("with_row_id", false), b.longOrNull("version"), b.bool("bypass_vector_index", false));
    }

    private static float[] vector(JsonNode v) {
        if (v == null || v.isNull()) {
            return null;
        }
        JsonNode arr = v;
        if (v.isObject()) {
            arr = v.get("single_vector");
            JsonNode multi = v.get("multi_vector");
            if ((arr == null || arr.isNull() || arr.isEmpty()) && multi != null && multi.isArray() && !multi.isEmpty()) {
                throw new NamespaceException(NamespaceErrorCode.UNSUPPORTED, "multi-vector queries are not supported");
            }
        }
        if (arr == null || arr.isNull() || (arr.isArray() && arr.isEmpty())) {
            return null;
        }
        if (!arr.isArray()) {
            throw JsonBody.invalid("'vector' must be a list of numbers");
        }
        float[] out = new float[arr.size()];
        for (int i = 0; i < out.length; i++) {
            if (!arr.get(i).isNumber()) {
                throw JsonBody.invalid("'vector' must be a list of numbers");
            }
            out[i] = arr.get(i).floatValue();
        }
        return out;
    }

    private static ObjectNode describe(TableInfo t) {
        ObjectNode o = obj().put("table", t.id().name()).put("location", t.location()).put("table_uri", t.location());
        ArrayNode nsArr = o.putArray("namespace");
        t.id().parent().parts().forEach(nsArr::add);
        if (t.version() > 0) {
            o.put("version", t.version());
        }
        if (t.onlyDeclared()) {
            o.put("is_only_declared", true);
        }
        o.set("storage_options", obj());
        return o;
    }

    private static ObjectNode dropped(TableInfo t) {
        ObjectNode o = obj();
        ArrayNode idArr = o.putArray("id");
        t.id().parts().forEach(idArr::add);
        return o.put("location", t.location());
    }

    /** One page of sorted names: those after {@code page_token}, at most {@code limit}, and the next token. */
    private static ObjectNode page(String field, List<String> names, JsonBody b) {
        String token = b.string("page_token");
        Integer limit = b.intOrNull("limit");
        List<String> rest = token == null || token.isEmpty() ? names : names.stream().filter(n -> n.compareTo(token) > 0).toList();
        ObjectNode o = obj();
        ArrayNode a = o.putArray(field);
        int n = limit == null || limit <= 0 ? rest.size() : Math.min(limit, rest.size());
        rest.subList(0, n).forEach(a::add);
        if (n < rest.size()) {
            o.put("page_token", rest.get(n - 1));
        }
        return o;
    }

    private static ObjectNode map(Map<String, String> m) {
        ObjectNode o = obj();
        m.forEach(o::put);
        return o;
    }

    static ObjectNode obj() {
        return F.objectNode();
    }
}
