package io.javelin.engine.filter;

/**
 * The SQL types a filter can name (in CAST and typed literals), following Lance's SQL-to-Arrow mapping.
 * {@code precision}/{@code scale} are used by DECIMAL; {@code precision} by TIMESTAMP (0, 3, 6 or 9).
 */
public record SqlType(Kind kind, int precision, int scale) {

    public enum Kind {
        BOOLEAN, INT8, UINT8, INT16, UINT16, INT32, UINT32, INT64, UINT64,
        FLOAT32, FLOAT64, DECIMAL, DATE, TIMESTAMP, STRING, BINARY
    }

    public static SqlType of(Kind kind) {
        return new SqlType(kind, 0, 0);
    }

    public boolean isInteger() {
        return switch (kind) {
            case INT8, UINT8, INT16, UINT16, INT32, UINT32, INT64, UINT64 -> true;
            default -> false;
        };
    }
}
