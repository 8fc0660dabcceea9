package io.javelin.objectstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.javelin.objectstore.memory.Buffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Hostile keys and symbolic links in a local store: nothing outside the root is read, written or
 * deleted, and every refusal is a typed {@link InvalidPathException}.
 */
class HostileLocalPathsTest {

    @TempDir
    Path tmp;

    private ObjectStore open(Path root) {
        return ObjectStores.open(root.toUri().toString(), Map.of(), Map.of());
    }

    @ParameterizedTest
    @ValueSource(strings = {"..", "../outside", "a/../../outside", "/etc/passwd", "a\\..\\b", "a//b", "./a", "a/./b", "x\u0000y"})
    void escapingKeysAreRejected(String key) {
        try (ObjectStore s = open(tmp.resolve("root"))) {
            assertThatThrownBy(() -> s.put(key, "x".getBytes(StandardCharsets.UTF_8)).block(Duration.ofSeconds(10)))
                    .isInstanceOf(InvalidPathException.class);
            assertThatThrownBy(() -> s.readAll(key).block(Duration.ofSeconds(10))).isInstanceOf(InvalidPathException.class);
            assertThatThrownBy(() -> s.delete(key).block(Duration.ofSeconds(10))).isInstanceOf(InvalidPathException.class);
        }
    }

    /** URL escapes are not decoded: "%2e%2e" is a literal (harmless) name inside the root. */
    @Test
    void urlEncodedDotsStayLiteral() throws Exception {
        Path root = tmp.resolve("root");
        try (ObjectStore s = open(root)) {
            s.put("%2e%2e/x", "inside".getBytes(StandardCharsets.UTF_8)).block(Duration.ofSeconds(10));
        }
        assertThat(root.resolve("%2e%2e").resolve("x")).exists();
        assertThat(tmp.resolve("x")).doesNotExist();
    }

    @Test
    void symbolicLinksBelowTheRootAreNotFollowed() throws Exception {
        Path root = Files.createDirectories(tmp.resolve("root"));
        Path outside = Files.createDirectories(tmp.resolve("outside"));
        Files.writeString(outside.resolve("secret.lance"), "secret");
        Files.createSymbolicLink(root.resolve("data"), outside);
        Files.createSymbolicLink(root.resolve("link.lance"), outside.resolve("secret.lance"));
        try (ObjectStore s = open(root)) {
            for (String key : new String[] {"data/secret.lance", "link.lance"}) {
                assertThatThrownBy(() -> s.readAll(key).map(Buffer::release).block(Duration.ofSeconds(10)))
                        .isInstanceOf(InvalidPathException.class).hasMessageContaining("symbolic link");
                assertThatThrownBy(() -> s.head(key).block(Duration.ofSeconds(10))).isInstanceOf(InvalidPathException.class);
                assertThatThrownBy(() -> s.delete(key).block(Duration.ofSeconds(10))).isInstanceOf(InvalidPathException.class);
            }
            assertThatThrownBy(() -> s.put("data/new.lance", new byte[] {1}).block(Duration.ofSeconds(10)))
                    .isInstanceOf(InvalidPathException.class);
            assertThatThrownBy(() -> s.putIfAbsent("data/new2.lance", new byte[] {1}).block(Duration.ofSeconds(10)))
                    .isInstanceOf(InvalidPathException.class);
            assertThatThrownBy(() -> s.copy("link.lance", "copy.lance").block(Duration.ofSeconds(10)))
                    .isInstanceOf(InvalidPathException.class);
        }
        assertThat(outside.resolve("secret.lance")).hasContent("secret");
        try (var files = Files.list(outside)) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactly("secret.lance");
        }
        assertThat(root.resolve("copy.lance")).doesNotExist();
    }
}
