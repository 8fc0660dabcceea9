package io.javelin.objectstore.contract;

import io.javelin.objectstore.ObjectStore;
import io.javelin.objectstore.ObjectStores;
import io.javelin.objectstore.servers.AzuriteServer;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;

class AzureStoreContractTest extends ObjectStoreContractTest {

    private final ObjectStore store;

    AzureStoreContractTest() {
        AzuriteServer s = AzuriteServer.get();
        s.createContainer("contract");
        store = ObjectStores.open("az://contract/root", s.options(), Map.of());
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
