package io.javelin.objectstore.contract;

import io.javelin.objectstore.ObjectStore;
import io.javelin.objectstore.ObjectStores;
import io.javelin.objectstore.servers.S3ProxyServer;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;

class S3StoreContractTest extends ObjectStoreContractTest {

    private final ObjectStore store;

    S3StoreContractTest() {
        S3ProxyServer s = S3ProxyServer.get();
        s.createBucket("contract");
        store = ObjectStores.open("s3://contract/root", s.options(), Map.of());
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
