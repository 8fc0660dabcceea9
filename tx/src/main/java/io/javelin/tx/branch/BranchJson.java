package io.javelin.tx.branch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javelin.tx.InvalidTableMetadataException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Branch JSON as Lance 7.0.0 writes it (serde camelCase, except {@code identifier.version_mapping}). */
public final class BranchJson {

    private static final ObjectMapper JSON = new ObjectMapper();

    private BranchJson() {
    }

    public static byte[] encode(Branch b) {
        ObjectNode o = JSON.createObjectNode();
        if (b.parentBranch() == null) {
            o.putNull("parentBranch");
        } else {
            o.put("parentBranch", b.parentBranch());
        }
        ArrayNode mapping = o.putObject("identifier").putArray("version_mapping");
        for (Branch.VersionMapping m : b.versionMapping()) {
            mapping.addArray().add(m.version()).add(m.uuid());
        }
        o.put("parentVersion", b.parentVersion());
        o.put("createAt", b.createAt());
        o.put("manifestSize", b.manifestSize());
        ObjectNode md = o.putObject("metadata");
        b.metadata().forEach(md::put);
        try {
            return JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(o);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    public static Branch decode(String name, String path, byte[] bytes) {
        try {
            JsonNode o = JSON.readTree(bytes);
            if (o == null || !o.isObject() || !o.path("parentVersion").canConvertToLong()) {
                throw new InvalidTableMetadataException("Branch file " + path + " has no parentVersion");
            }
            List<Branch.VersionMapping> mapping = new ArrayList<>();
            for (JsonNode m : o.path("identifier").path("version_mapping")) {
                mapping.add(new Branch.VersionMapping(m.path(0).asLong(), m.path(1).asText()));
            }
            Map<String, String> md = new LinkedHashMap<>();
            o.path("metadata").fields().forEachRemaining(e -> md.put(e.getKey(), e.getValue().asText()));
            JsonNode parent = o.get("parentBranch");
            return new Branch(name, parent == null || parent.isNull() ? null : parent.asText(), o.get("parentVersion").asLong(),
                    o.path("createAt").asLong(), o.path("manifestSize").asLong(), mapping, md);
        } catch (IOException e) {
            throw new InvalidTableMetadataException("Branch file " + path + " is not valid JSON: " + e.getMessage());
        }
    }
}
