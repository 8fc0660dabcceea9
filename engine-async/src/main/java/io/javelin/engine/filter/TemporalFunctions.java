package io.javelin.engine.filter;

/** Date and timestamp functions. */
final class TemporalFunctions {

    private TemporalFunctions() {
    }

    static void register(Functions.Registry r) {
    }
}
