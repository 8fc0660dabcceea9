package io.javelin.archfixture.tx;

/** Fixture for ArchitectureTest: library code reading its settings from system properties, which the rule must reject. */
public final class TunedByProperty {
    public static long cacheBytes() {
        return Long.getLong("fixture.cacheBytes", 1);
    }
}
