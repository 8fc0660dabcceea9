package io.javelin.objectstore.contract;

import io.javelin.objectstore.ObjectStore;
import io.javelin.objectstore.ObjectStores;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;

class LocalStoreContractTest extends ObjectStoreContractTest {

    private final Path dir;
    private final ObjectStore store;

    LocalStoreContractTest() throws IOException {
        Path work = Path.of(System.getProperty("javelin.test.workdir", "target/test-work"));
        Files.createDirectories(work);
        dir = Files.createTempDirectory(work, "local-store");
        store = ObjectStores.open(dir.toString());
    }

    @Override
    protected ObjectStore store() {
        return store;
    }

    @AfterAll
    void close() {
        store.close();
    }
}
