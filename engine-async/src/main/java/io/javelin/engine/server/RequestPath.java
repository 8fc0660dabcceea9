package io.javelin.engine.server;

import io.javelin.engine.namespace.NamespaceException;
import io.javelin.engine.namespace.ObjectId;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A request URI split as the REST spec lays it out: {@code /v1/{kind}/{id}/{operation...}} with the
 * identifier's names joined by the {@code delimiter} query parameter ({@code $} by default). Path
 * segments are percent-decoded exactly once; the identifier's names are then checked by {@link ObjectId}.
 */
record RequestPath(List<String> segments, Map<String, List<String>> params) {

    static RequestPath parse(String uri) {
        QueryStringDecoder q = new QueryStringDecoder(uri, StandardCharsets.UTF_8, true);
        String raw = q.rawPath();
        List<String> segs = new ArrayList<>();
        for (String s : raw.split("/", -1)) {
            if (!s.isEmpty()) {
                // '+' is literal in a path (QueryStringDecoder would read it as a space)
                segs.add(QueryStringDecoder.decodeComponent(s.replace("+", "%2B"), StandardCharsets.UTF_8));
            }
        }
        return new RequestPath(List.copyOf(segs), q.parameters());
    }

    String param(String name) {
        List<String> v = params.get(name);
        return v == null || v.isEmpty() ? null : v.getFirst();
    }

    String delimiter() {
        String d = param("delimiter");
        return d == null || d.isEmpty() ? ObjectId.DEFAULT_DELIMITER : d;
    }

    /** The identifier segment (index 2), parsed and checked. */
    ObjectId id() {
        if (segments.size() < 3) {
            throw new NamespaceException(io.javelin.engine.namespace.NamespaceErrorCode.INVALID_INPUT, "The path has no identifier");
        }
        return ObjectId.parse(segments.get(2), delimiter());
    }

    /** The operation: the segments after the identifier, joined by '/' (e.g. {@code create}, {@code table/list}). */
    String operation() {
        return segments.size() <= 3 ? "" : String.join("/", segments.subList(3, segments.size()));
    }
}
