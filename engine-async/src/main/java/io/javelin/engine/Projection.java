package io.javelin.engine;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Output columns of a scan or take: top-level names in order, each with the nested paths kept
 * ({@code "s.a"} keeps struct {@code s} with only child {@code a}, as Lance projects nested fields).
 */
final class Projection {

    private final LinkedHashMap<String, List<List<String>>> columns;

    private Projection(LinkedHashMap<String, List<List<String>>> columns) {
        this.columns = columns;
    }

    /** {@code requested == null} means every top-level column of {@code schema}. */
    static Projection of(List<String> requested, Schema schema, String uri, long version) {
        LinkedHashMap<String, List<List<String>>> cols = new LinkedHashMap<>();
        if (requested == null) {
            for (Field f : schema.getFields()) {
                cols.put(f.getName(), new ArrayList<>(List.of(List.of())));
            }
            return new Projection(cols);
        }
        for (String c : requested) {
            String[] parts = c.split("\\.");
            Field f = find(schema.getFields(), parts[0]);
            if (f == null) {
                throw new InvalidScanException(uri, version, "No column '" + parts[0] + "' (columns: "
                        + schema.getFields().stream().map(Field::getName).toList() + ")");
            }
            Field at = f;
            for (int i = 1; i < parts.length; i++) {
                at = find(at.getChildren(), parts[i]);
                if (at == null) {
                    throw new InvalidScanException(uri, version, "No nested field '" + c + "'");
                }
            }
            cols.computeIfAbsent(parts[0], k -> new ArrayList<>()).add(List.of(parts).subList(1, parts.length));
        }
        return new Projection(cols);
    }

    private static Field find(List<Field> fields, String name) {
        for (Field f : fields) {
            if (f.getName().equals(name)) {
                return f;
            }
        }
        return null;
    }

    /** The top-level columns to read. */
    List<String> topLevel() {
        return List.copyOf(columns.keySet());
    }

    /**
     * Builds the output root from vectors by top-level name (consuming them: those not output are closed)
     * plus {@code extra} vectors appended at the end.
     */
    VectorSchemaRoot apply(Map<String, FieldVector> byName, List<FieldVector> extra, int rows, BufferAllocator allocator) {
        List<FieldVector> out = new ArrayList<>();
        Map<String, FieldVector> left = new LinkedHashMap<>(byName);
        try {
            for (var e : columns.entrySet()) {
                FieldVector v = left.remove(e.getKey());
                if (v == null) {
                    throw new IllegalStateException("column " + e.getKey() + " was not read");
                }
                out.add(Batches.prune(v, e.getValue(), allocator));
            }
            out.addAll(extra);
        } catch (RuntimeException ex) {
            out.forEach(FieldVector::close);
            left.values().forEach(FieldVector::close);
            throw ex;
        }
        left.values().forEach(FieldVector::close);
        return Batches.root(out, rows);
    }
}
