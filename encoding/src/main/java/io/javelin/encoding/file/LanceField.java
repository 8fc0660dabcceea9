package io.javelin.encoding.file;

import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * One field of the file schema as a tree, with its Arrow counterpart and (for fields that own one)
 * the column index. {@code column} is -1 for fields without a column of their own.
 */
public record LanceField(int id, String name, String logicalType, boolean nullable, Map<String, String> metadata,
                         List<LanceField> children, Field arrow, int column) {

    /** Struct stored as one packed column. */
    public boolean packed() {
        String p = metadata.get("packed");
        String q = metadata.get("lance-encoding:packed");
        return "true".equalsIgnoreCase(p) || "true".equalsIgnoreCase(q);
    }

    public boolean blob() {
        return "true".equalsIgnoreCase(metadata.get("lance-encoding:blob"));
    }

    public boolean isStruct() {
        return logicalType.equals("struct");
    }

    public boolean isList() {
        return logicalType.equals("list") || logicalType.equals("large_list")
                || logicalType.equals("list.struct") || logicalType.equals("large_list.struct");
    }
}
