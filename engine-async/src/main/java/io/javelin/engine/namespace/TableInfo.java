package io.javelin.engine.namespace;

import java.util.Map;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * What a namespace knows of a table: its identifier, location (URI of the Lance dataset), latest version
 * ({@code -1} when only declared or not read) and schema ({@code null} when not read).
 */
public record TableInfo(ObjectId id, String location, long version, Schema schema, Map<String, String> properties) {

    public TableInfo {
        properties = properties == null ? Map.of() : Map.copyOf(properties);
    }

    public boolean onlyDeclared() {
        return version < 0 && schema == null;
    }
}
