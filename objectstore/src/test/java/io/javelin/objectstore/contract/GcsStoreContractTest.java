package io.javelin.objectstore.contract;

import io.javelin.objectstore.ObjectStore;
import io.javelin.objectstore.ObjectStores;
import io.javelin.objectstore.servers.GcsServer;
import io.javelin.objectstore.servers.GcsTestServer;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;

class GcsStoreContractTest extends ObjectStoreContractTest {

    private final ObjectStore store;

    GcsStoreContractTest() {
        GcsTestServer s = GcsServer.get();
        s.createBucket("contract");
        store = ObjectStores.open("gs://contract/root", GcsServer.options(s), Map.of());
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
