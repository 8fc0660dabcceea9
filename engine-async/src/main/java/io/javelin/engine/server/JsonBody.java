package io.javelin.engine.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javelin.engine.namespace.NamespaceErrorCode;
import io.javelin.engine.namespace.NamespaceException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A request's fields: its JSON body merged with its query parameters (lance-core's client sends the
 * options of create / insert / merge-insert as parameters, the others as a body, some both). A body field
 * wins over a parameter of the same name. Typed getters fail with {@code INVALID_INPUT}.
 */
final class JsonBody {

    static final ObjectMapper MAPPER = new ObjectMapper();

    private final ObjectNode node;

    private JsonBody(ObjectNode node) {
        this.node = node;
    }

    static JsonBody parse(byte[] body, RequestPath path) {
        ObjectNode n = JsonNodeFactory.instance.objectNode();
        path.params().forEach((k, v) -> {
            if (!v.isEmpty()) {
                String s = v.getFirst();
                JsonNode val = JsonNodeFactory.instance.textNode(s);
                if (s.startsWith("{") || s.startsWith("[")) {
                    try {
                        val = MAPPER.readTree(s);
                    } catch (Exception e) {
                        throw invalid("query parameter '" + k + "' is not valid JSON");
                    }
                }
                n.set(k, val);
            }
        });
        if (body != null && body.length > 0) {
            JsonNode parsed;
            try {
                parsed = MAPPER.readTree(body);
            } catch (Exception e) {
                throw invalid("malformed JSON body: " + firstLine(e.getMessage()));
            }
            if (parsed != null && parsed.isObject()) {
                n.setAll((ObjectNode) parsed);
            } else if (parsed != null && !parsed.isNull() && !parsed.isMissingNode()) {
                throw invalid("the JSON body must be an object");
            }
        }
        return new JsonBody(n);
    }

    static JsonBody ofParams(RequestPath path) {
        return parse(null, path);
    }

    private static String firstLine(String m) {
        if (m == null) {
            return "";
        }
        int nl = m.indexOf('\n');
        return nl < 0 ? m : m.substring(0, nl);
    }

    static NamespaceException invalid(String m) {
        return new NamespaceException(NamespaceErrorCode.INVALID_INPUT, m);
    }

    boolean has(String f) {
        JsonNode v = node.get(f);
        return v != null && !v.isNull();
    }

    String string(String f) {
        JsonNode v = node.get(f);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isValueNode()) {
            throw invalid("'" + f + "' must be a string");
        }
        return v.asText();
    }

    String requiredString(String f) {
        String s = string(f);
        if (s == null) {
            throw invalid("'" + f + "' is required");
        }
        return s;
    }

    boolean bool(String f, boolean dflt) {
        JsonNode v = node.get(f);
        if (v == null || v.isNull()) {
            return dflt;
        }
        if (v.isBoolean()) {
            return v.booleanValue();
        }
        if (v.isTextual() && (v.asText().equalsIgnoreCase("true") || v.asText().equalsIgnoreCase("false"))) {
            return Boolean.parseBoolean(v.asText());
        }
        throw invalid("'" + f + "' must be a boolean");
    }

    Long longOrNull(String f) {
        JsonNode v = node.get(f);
        if (v == null || v.isNull()) {
            return null;
        }
        if (v.isIntegralNumber() && v.canConvertToLong()) {
            return v.longValue();
        }
        if (v.isTextual()) {
            try {
                return Long.parseLong(v.asText().trim());
            } catch (NumberFormatException e) {
                throw invalid("'" + f + "' must be an integer");
            }
        }
        throw invalid("'" + f + "' must be an integer");
    }

    Integer intOrNull(String f) {
        Long l = longOrNull(f);
        if (l == null) {
            return null;
        }
        if (l > Integer.MAX_VALUE || l < Integer.MIN_VALUE) {
            throw invalid("'" + f + "' is out of range");
        }
        return l.intValue();
    }

    Map<String, String> stringMap(String f) {
        JsonNode v = node.get(f);
        Map<String, String> out = new LinkedHashMap<>();
        if (v == null || v.isNull()) {
            return out;
        }
        if (!v.isObject()) {
            throw invalid("'" + f + "' must be an object of strings");
        }
        v.fields().forEachRemaining(e -> {
            if (!e.getValue().isValueNode()) {
                throw invalid("'" + f + "." + e.getKey() + "' must be a string");
            }
            out.put(e.getKey(), e.getValue().asText());
        });
        return out;
    }

    List<String> stringList(String f) {
        JsonNode v = node.get(f);
        if (v == null || v.isNull()) {
            return null;
        }
        if (v.isTextual()) {
            return List.of(v.asText());
        }
        if (!v.isArray()) {
            throw invalid("'" + f + "' must be a list of strings");
        }
        List<String> out = new ArrayList<>();
        for (JsonNode e : v) {
            if (!e.isValueNode() || e.isNull()) {
                throw invalid("'" + f + "' must be a list of strings");
            }
            out.add(e.asText());
        }
        return out;
    }

    JsonNode raw(String f) {
        return node.get(f);
    }
}
