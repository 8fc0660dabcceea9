package io.javelin.engine;

import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * One change to an existing column (Lance {@code ColumnAlteration}): {@code path} names it ({@code "a"}
 * or {@code "s.a"} for a struct child); each of {@code rename}, {@code nullable} and {@code castTo} is
 * optional (null = unchanged). Rename and nullability only change the schema; a cast rewrites the
 * column into new data files under a new field id.
 */
public record ColumnAlteration(String path, String rename, Boolean nullable, ArrowType castTo) {

    public static ColumnAlteration rename(String path, String newName) {
        return new ColumnAlteration(path, newName, null, null);
    }

    public static ColumnAlteration nullable(String path, boolean nullable) {
        return new ColumnAlteration(path, null, nullable, null);
    }

    public static ColumnAlteration cast(String path, ArrowType type) {
        return new ColumnAlteration(path, null, null, type);
    }
}
