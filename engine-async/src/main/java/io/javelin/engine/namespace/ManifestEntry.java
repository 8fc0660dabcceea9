package io.javelin.engine.namespace;

/**
 * One row of the directory namespace's {@code __manifest} table: {@code object_id} (names joined by
 * {@code $}), {@code object_type} ({@code namespace} or {@code table}), the table's {@code location}
 * relative to the root, and a namespace's properties as JSON {@code metadata}.
 */
record ManifestEntry(String objectId, String objectType, String location, String metadata) {

    static final String NAMESPACE = "namespace";
    static final String TABLE = "table";

    boolean isTable() {
        return TABLE.equals(objectType);
    }

    boolean isNamespace() {
        return NAMESPACE.equals(objectType);
    }
}
