package io.javelin.tx.version;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.javelin.tx.CorruptFileException;
import java.nio.charset.StandardCharsets;

/**
 * {@code _versions/latest_version_hint.json} = {@code {"version":N}} (exactly, no spaces). Best effort:
 * a hint may lag behind, so it is a starting point for probing, never the answer.
 */
public final class VersionHint {

    public static final String PATH = ManifestNaming.VERSIONS_DIR + "latest_version_hint.json";
    private static final ObjectMapper JSON = new ObjectMapper();

    private VersionHint() {
    }

    public static byte[] encode(long version) {
        return ("{\"version\":" + version + "}").getBytes(StandardCharsets.UTF_8);
    }

    public static long decode(byte[] bytes) {
        try {
            JsonNode node = JSON.readTree(bytes);
            JsonNode v = node == null ? null : node.get("version");
            if (v == null || !v.canConvertToLong() || v.asLong() < 1) {
                throw new CorruptFileException(PATH, "Version hint has no positive integer \"version\"");
            }
            return v.asLong();
        } catch (java.io.IOException e) {
            throw new CorruptFileException(PATH, "Version hint is not JSON", e);
        }
    }
}
