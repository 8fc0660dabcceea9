package io.javelin.engine.filter;

/**
 * The type of a bound filter sub-expression. Dates are days; timestamps are integers in units of
 * {@code unitNanos} nanoseconds; decimals carry their scale.
 */
record ValueType(Kind kind, long unitNanos, int scale, String description) {

    enum Kind { NULL, BOOL, INT, UINT, FLOAT, DECIMAL, DATE, TIMESTAMP, STRING, BINARY }

    static final ValueType NULL = new ValueType(Kind.NULL, 0, 0, "null");
    static final ValueType BOOL = new ValueType(Kind.BOOL, 0, 0, "boolean");
    static final ValueType INT = new ValueType(Kind.INT, 0, 0, "integer");
    static final ValueType UINT = new ValueType(Kind.UINT, 0, 0, "unsigned integer");
    static final ValueType FLOAT = new ValueType(Kind.FLOAT, 0, 0, "floating point");
    static final ValueType DATE = new ValueType(Kind.DATE, 0, 0, "date");
    static final ValueType STRING = new ValueType(Kind.STRING, 0, 0, "string");
    static final ValueType BINARY = new ValueType(Kind.BINARY, 0, 0, "binary");

    static ValueType timestamp(long unitNanos) {
        return new ValueType(Kind.TIMESTAMP, unitNanos, 0, "timestamp");
    }

    static ValueType decimal(int scale) {
        return new ValueType(Kind.DECIMAL, 0, scale, "decimal");
    }

    boolean isNumeric() {
        return kind == Kind.INT || kind == Kind.UINT || kind == Kind.FLOAT || kind == Kind.DECIMAL;
    }

    boolean isBytes() {
        return kind == Kind.STRING || kind == Kind.BINARY;
    }
}
