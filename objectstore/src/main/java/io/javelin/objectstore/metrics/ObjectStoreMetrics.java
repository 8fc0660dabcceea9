package io.javelin.objectstore.metrics;

import io.javelin.objectstore.OpClass;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * Exposes a store's {@link StoreCounters} to Micrometer as function counters
 * {@code javelin.objectstore.requests|bytes|failures|throttles|retries}, tagged {@code store} and
 * {@code op} (read, write, list, delete).
 */
public final class ObjectStoreMetrics implements MeterBinder {

    private final StoreCounters counters;

    public ObjectStoreMetrics(StoreCounters counters) {
        this.counters = counters;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        for (OpClass op : OpClass.values()) {
            register(registry, "requests", "requests sent to the store", op, c -> c.requests(op));
            register(registry, "bytes", "bytes read or written", op, c -> c.bytes(op));
            register(registry, "failures", "requests that failed", op, c -> c.failures(op));
            register(registry, "throttles", "requests the store throttled", op, c -> c.throttles(op));
            register(registry, "retries", "requests retried after a failure", op, c -> c.retries(op));
        }
    }

    private void register(MeterRegistry registry, String name, String description, OpClass op,
            java.util.function.ToDoubleFunction<StoreCounters> f) {
        FunctionCounter.builder("javelin.objectstore." + name, counters, f)
                .description(description)
                .tag("store", counters.store())
                .tag("op", op.label())
                .register(registry);
    }
}
