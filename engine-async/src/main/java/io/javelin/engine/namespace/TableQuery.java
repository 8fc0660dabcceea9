package io.javelin.engine.namespace;

import java.util.List;

/**
 * A query of a table, as the spec's QueryTable request: projection, filter, limit ({@code k}) and offset,
 * or a vector search ({@code vector} non-null) with its tuning; {@code version} null is the latest.
 * Zero or negative {@code k} means no limit for a plain scan.
 */
public record TableQuery(List<String> columns, String filter, int k, int offset, float[] vector, String vectorColumn,
                         Integer nprobes, Integer refineFactor, Integer ef, String distanceType, boolean withRowId,
                         Long version, boolean bypassVectorIndex) {

    public TableQuery {
        columns = columns == null ? null : List.copyOf(columns);
        if (offset < 0) {
            throw NamespaceException.invalid("offset must not be negative: " + offset);
        }
        if (vector != null && k <= 0) {
            throw NamespaceException.invalid("a vector query needs k > 0, got " + k);
        }
        if (vector != null && vector.length == 0) {
            throw NamespaceException.invalid("the query vector is empty");
        }
    }

    public static TableQuery scan(List<String> columns, String filter, int limit) {
        return new TableQuery(columns, filter, limit, 0, null, null, null, null, null, null, false, null, false);
    }

    public static TableQuery nearest(String column, float[] vector, int k) {
        return new TableQuery(null, null, k, 0, vector, column, null, null, null, null, false, null, false);
    }

    public TableQuery withFilter(String f) {
        return new TableQuery(columns, f, k, offset, vector, vectorColumn, nprobes, refineFactor, ef, distanceType, withRowId,
                version, bypassVectorIndex);
    }

    public TableQuery withColumns(List<String> c) {
        return new TableQuery(c, filter, k, offset, vector, vectorColumn, nprobes, refineFactor, ef, distanceType, withRowId,
                version, bypassVectorIndex);
    }

    public TableQuery withNprobes(int n) {
        return new TableQuery(columns, filter, k, offset, vector, vectorColumn, n, refineFactor, ef, distanceType, withRowId,
                version, bypassVectorIndex);
    }

    public TableQuery withVersion(long v) {
        return new TableQuery(columns, filter, k, offset, vector, vectorColumn, nprobes, refineFactor, ef, distanceType, withRowId,
                v, bypassVectorIndex);
    }
}
