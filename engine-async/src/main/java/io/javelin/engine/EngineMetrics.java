package io.javelin.engine;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;

/**
 * Where scans and commits report their Micrometer meters. By default Micrometer's global composite
 * registry ({@link Metrics#globalRegistry}), which records nothing until the application adds a registry
 * to it; {@link #use} sends them to a registry of the application's choice instead.
 *
 * <p>Meters: {@code javelin.scan.duration} (timer, tag {@code outcome} = complete | cancel | error),
 * {@code javelin.scan.rows}, {@code javelin.scan.batches}, {@code javelin.scan.pages} (page requests read
 * and decoded), {@code javelin.scan.bytes.read}, {@code javelin.scan.iops} (physical reads after
 * coalescing); {@code javelin.commit.duration} (timer, tags {@code operation}, {@code outcome}),
 * {@code javelin.commit.attempts}, {@code javelin.commit.retries} (attempts after the first, each one
 * after losing the race for the next version to another writer), {@code javelin.commit.conflicts}
 * (races lost, including a final one that failed the commit), {@code javelin.commit.failures} (tag
 * {@code error}). Object-store requests have their own meters ({@code ObjectStoreMetrics}).
 */
public final class EngineMetrics {

    private static volatile MeterRegistry registry = Metrics.globalRegistry;

    private EngineMetrics() {
    }

    /** Sends all engine meters to {@code r} from now on (null: back to the global registry). */
    public static void use(MeterRegistry r) {
        registry = r == null ? Metrics.globalRegistry : r;
    }

    public static MeterRegistry registry() {
        return registry;
    }
}
