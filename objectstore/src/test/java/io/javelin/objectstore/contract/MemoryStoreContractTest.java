package io.javelin.objectstore.contract;

import io.javelin.objectstore.ObjectStore;
import io.javelin.objectstore.ObjectStores;

class MemoryStoreContractTest extends ObjectStoreContractTest {

    private final ObjectStore store = ObjectStores.open("memory://contract-" + System.nanoTime() + "/root");

    @Override
    protected ObjectStore store() {
        return store;
    }
}
