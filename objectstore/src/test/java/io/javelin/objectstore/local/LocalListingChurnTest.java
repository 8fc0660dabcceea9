package io.javelin.objectstore.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.objectstore.ObjectMeta;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * Listing while another process creates and renames temp files in the same directory (what lance-core
 * does in {@code _versions/} while committing) must skip entries that vanish mid-walk, not fail.
 */
class LocalListingChurnTest {

    @Test
    void listingSkipsFilesThatVanishWhileWalking() throws Exception {
        Path work = Path.of(System.getProperty("javelin.test.workdir", "target/test-work"));
        Files.createDirectories(work);
        Path dir = Files.createTempDirectory(work, "churn");
        Path versions = Files.createDirectories(dir.resolve("_versions"));
        Files.write(versions.resolve("1.manifest"), new byte[] {1});
        AtomicBoolean stop = new AtomicBoolean();
        Thread churn = Thread.ofPlatform().start(() -> {
            int i = 0;
            while (!stop.get()) {
                try {
                    // a foreign writer's temp files (not our prefix): written, then renamed away
                    for (int j = 0; j < 32; j++) {
                        Files.write(versions.resolve(".tmp" + j), new byte[] {2});
                    }
                    for (int j = 0; j < 32; j++) {
                        Files.move(versions.resolve(".tmp" + j), dir.resolve("moved-" + j), StandardCopyOption.REPLACE_EXISTING);
                    }
                    i++;
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            }
        });
        try (LocalObjectStore store = new LocalObjectStore(dir, 4)) {
            for (int i = 0; i < 2000; i++) {
                List<String> names = store.list("_versions/").map(ObjectMeta::path).collectList().block();
                assertThat(names).contains("_versions/1.manifest");
            }
        } finally {
            stop.set(true);
            churn.join();
        }
    }
}
