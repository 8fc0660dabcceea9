package io.javelin.engine.filter;

/** JSON functions over JSON-typed and plain string columns (spec 001). */
final class JsonFunctions {

    private JsonFunctions() {
    }

    static void register(Functions.Registry r) {
    }
}
