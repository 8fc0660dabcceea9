package io.javelin.engine.namespace;

import java.util.List;

/** One index of a table, as the spec's ListTableIndices lists it. */
public record IndexDescription(String name, String uuid, List<String> columns, String status) {

    public IndexDescription {
        columns = List.copyOf(columns);
    }
}
