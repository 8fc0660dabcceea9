package io.javelin.tx.tag;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.javelin.tx.CorruptFileException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The tag file as Lance 7.0.0 writes it: serde_json pretty printing (2-space indent, {@code ": "}, no
 * trailing newline) with keys in the order {@code branch, version, createdAt, updatedAt, manifestSize,
 * metadata}. Reading ignores unknown keys, as serde does.
 */
public final class TagJson {

    private static final ObjectMapper JSON = new ObjectMapper();

    private TagJson() {
    }

    public static byte[] encode(Tag tag) {
        StringBuilder sb = new StringBuilder("{\n");
        sb.append("  \"branch\": ").append(tag.branch() == null ? "null" : string(tag.branch())).append(",\n");
        sb.append("  \"version\": ").append(Long.toUnsignedString(tag.version())).append(",\n");
        if (tag.createdAt() != null) {
            sb.append("  \"createdAt\": ").append(string(tag.createdAt().toString())).append(",\n");
        }
        if (tag.updatedAt() != null) {
            sb.append("  \"updatedAt\": ").append(string(tag.updatedAt().toString())).append(",\n");
        }
        sb.append("  \"manifestSize\": ").append(tag.manifestSize()).append(",\n");
        sb.append("  \"metadata\": ");
        if (tag.metadata().isEmpty()) {
            sb.append("{}");
        } else {
            sb.append("{\n");
            int i = 0;
            for (Map.Entry<String, String> e : tag.metadata().entrySet()) {
                sb.append("    ").append(string(e.getKey())).append(": ").append(string(e.getValue()));
                sb.append(++i < tag.metadata().size() ? ",\n" : "\n");
            }
            sb.append("  }");
        }
        return sb.append("\n}").toString().getBytes(StandardCharsets.UTF_8);
    }

    public static Tag decode(String name, String path, byte[] bytes) {
        JsonNode root;
        try {
            root = JSON.readTree(bytes);
        } catch (IOException e) {
            throw new CorruptFileException(path, "Tag file is not JSON", e);
        }
        if (root == null || !root.isObject()) {
            throw new CorruptFileException(path, "Tag file is not a JSON object");
        }
        JsonNode version = root.get("version");
        if (version == null || !version.canConvertToLong() || version.asLong() < 1) {
            throw new CorruptFileException(path, "Tag has no positive integer \"version\"");
        }
        JsonNode branch = root.get("branch");
        if (branch != null && !branch.isNull() && !branch.isTextual()) {
            throw new CorruptFileException(path, "Tag \"branch\" must be null or a string");
        }
        JsonNode size = root.get("manifestSize");
        if (size != null && !size.canConvertToLong()) {
            throw new CorruptFileException(path, "Tag \"manifestSize\" must be an integer");
        }
        Map<String, String> metadata = new LinkedHashMap<>();
        JsonNode md = root.get("metadata");
        if (md != null && !md.isNull()) {
            if (!md.isObject()) {
                throw new CorruptFileException(path, "Tag \"metadata\" must be an object");
            }
            md.properties().forEach(e -> metadata.put(e.getKey(), e.getValue().asText()));
        }
        return new Tag(name, branch == null || branch.isNull() ? null : branch.asText(), version.asLong(),
                instant(path, root.get("createdAt")), instant(path, root.get("updatedAt")),
                size == null ? 0 : size.asLong(), metadata);
    }

    private static Instant instant(String path, JsonNode n) {
        if (n == null || n.isNull()) {
            return null;
        }
        try {
            return java.time.OffsetDateTime.parse(n.asText()).toInstant();
        } catch (DateTimeParseException e) {
            throw new CorruptFileException(path, "Tag timestamp is not RFC 3339: " + n.asText(), e);
        }
    }

    /** A JSON string escaped like serde_json: quote, backslash and control characters only. */
    static String string(String s) {
        StringBuilder sb = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                case '\b' -> sb.append("\\b");
                case '\f' -> sb.append("\\f");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.append('"').toString();
    }
}
