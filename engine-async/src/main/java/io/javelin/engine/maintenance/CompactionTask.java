package io.javelin.engine.maintenance;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

/**
 * One unit of a distributed compaction (Lance {@code CompactionTask}): adjacent fragments of version
 * {@code readVersion} to rewrite together. Ship it to a worker as a Java-serialized value or as
 * {@link #toJson()}; the worker runs {@code Dataset.executeCompactionTask}.
 */
public record CompactionTask(long readVersion, List<Long> fragmentIds, CompactionOptions options) implements Serializable {

    static final ObjectMapper JSON = new ObjectMapper();

    public CompactionTask {
        fragmentIds = List.copyOf(fragmentIds);
        if (fragmentIds.isEmpty()) {
            throw new IllegalArgumentException("A compaction task needs at least one fragment");
        }
    }

    public String toJson() {
        ObjectNode o = JSON.createObjectNode();
        o.put("read_version", readVersion);
        fragmentIds.forEach(o.putArray("fragments")::add);
        o.set("options", options(options));
        return o.toString();
    }

    public static CompactionTask fromJson(String json) {
        JsonNode o = parse(json, "compaction task");
        if (!o.has("read_version") || !o.has("fragments")) {
            throw new IllegalArgumentException("Compaction task JSON needs 'read_version' and 'fragments': " + json);
        }
        List<Long> ids = new ArrayList<>();
        o.get("fragments").forEach(x -> ids.add(x.asLong()));
        return new CompactionTask(o.get("read_version").asLong(), ids, options(o.path("options")));
    }

    static JsonNode parse(String json, String what) {
        try {
            JsonNode o = JSON.readTree(json);
            if (o == null || !o.isObject()) {
                throw new IllegalArgumentException("Invalid " + what + " JSON (not an object): " + json);
            }
            return o;
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException("Invalid " + what + " JSON: " + e.getMessage(), e);
        }
    }

    static ObjectNode options(CompactionOptions c) {
        ObjectNode o = JSON.createObjectNode();
        o.put("target_rows_per_fragment", c.targetRowsPerFragment());
        o.put("max_rows_per_group", c.maxRowsPerGroup());
        o.put("materialize_deletions", c.materializeDeletions());
        o.put("materialize_deletions_threshold", c.materializeDeletionsThreshold());
        o.put("defer_index_remap", c.deferIndexRemap());
        return o;
    }

    static CompactionOptions options(JsonNode o) {
        CompactionOptions d = CompactionOptions.defaults();
        return new CompactionOptions(o.path("target_rows_per_fragment").asLong(d.targetRowsPerFragment()),
                o.path("max_rows_per_group").asInt(d.maxRowsPerGroup()),
                o.path("materialize_deletions").asBoolean(d.materializeDeletions()),
                o.path("materialize_deletions_threshold").asDouble(d.materializeDeletionsThreshold()),
                o.path("defer_index_remap").asBoolean(d.deferIndexRemap()));
    }
}
