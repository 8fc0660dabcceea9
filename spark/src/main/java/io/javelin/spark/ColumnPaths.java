package io.javelin.spark;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/** Javelin projection paths ({@code a}, {@code s.b.c}) for a column Spark asks for, pruned or whole. */
final class ColumnPaths {

    private ColumnPaths() {
    }

    static List<String> of(StructField requested, StructField full) {
        List<String> out = new ArrayList<>();
        collect(requested, full, quote(requested.name()), out);
        return out;
    }

    private static void collect(StructField requested, StructField full, String path, List<String> out) {
        if (requested.dataType() instanceof StructType rs && full.dataType() instanceof StructType fs
                && rs.fields().length < fs.fields().length) {
            for (StructField child : rs.fields()) {
                collect(child, fs.apply(child.name()), path + "." + quote(child.name()), out);
            }
        } else {
            out.add(path);
        }
    }

    private static String quote(String name) {
        return name; // Javelin's projection takes plain dotted paths
    }
}
