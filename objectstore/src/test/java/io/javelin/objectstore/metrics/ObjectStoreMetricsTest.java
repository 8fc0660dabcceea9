package io.javelin.objectstore.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.objectstore.ObjectStore;
import io.javelin.objectstore.ObjectStores;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

class ObjectStoreMetricsTest {

    @Test
    void countersAreVisibleAsMicrometerMeters() {
        ObjectStore store = ObjectStores.open("memory://metrics-" + System.nanoTime());
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        new ObjectStoreMetrics(store.counters()).bindTo(registry);
        store.put("a", new byte[10]).block();
        store.head("a").block();
        store.readAll("a").block().release();
        assertThat(registry.get("javelin.objectstore.requests").tag("op", "read").functionCounter().count()).isEqualTo(2);
        assertThat(registry.get("javelin.objectstore.requests").tag("op", "write").functionCounter().count()).isEqualTo(1);
        assertThat(registry.get("javelin.objectstore.bytes").tag("op", "write").functionCounter().count()).isEqualTo(10);
        assertThat(registry.get("javelin.objectstore.requests").tag("op", "read").functionCounter().getId().getTag("store"))
                .startsWith("memory://metrics-");
    }
}
