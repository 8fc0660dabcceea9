package io.javelin.encoding.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/** Locates the golden fixtures copied into encoding's test resources and reads their sidecars. */
public final class GoldenFixtures {

    private GoldenFixtures() {
    }

    public static Path path(String relative) {
        try {
            return Path.of(GoldenFixtures.class.getResource("/golden/" + relative).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Copies a fixture to {@code dir} (works when the fixtures are inside the test-jar) and returns the copy. */
    public static Path copy(String relative, Path dir) {
        try (var in = GoldenFixtures.class.getResourceAsStream("/golden/" + relative)) {
            if (in == null) {
                throw new IllegalArgumentException("no fixture " + relative);
            }
            Path out = dir.resolve(relative.replace('/', '_'));
            java.nio.file.Files.copy(in, out, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The sidecar's {@code expected.checksums.columns}. */
    public static Map<String, CanonChecksum.Column> expectedColumns(String sidecar) {
        try {
            JsonNode root;
            try (var in = GoldenFixtures.class.getResourceAsStream("/golden/" + sidecar)) {
                root = new ObjectMapper().readTree(in);
            }
            JsonNode cols = root.path("expected").path("checksums").path("columns");
            Map<String, CanonChecksum.Column> out = new LinkedHashMap<>();
            cols.fields().forEachRemaining(e -> out.put(e.getKey(), new CanonChecksum.Column(e.getValue().path("rows").asLong(),
                    e.getValue().path("nulls").asLong(), e.getValue().path("sha256").asText())));
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
