package io.javelin.engine;

/** A schema-evolution, update or merge-insert request that cannot apply to this dataset (bad column, type, data). */
public final class SchemaEvolutionException extends DatasetException {

    public SchemaEvolutionException(String uri, long version, String message) {
        super(uri, version, message, null);
    }

    public SchemaEvolutionException(String uri, long version, String message, Throwable cause) {
        super(uri, version, message, cause);
    }
}
