package io.javelin.engine.filter;

/**
 * The type of a bound filter sub-expression. Dates are days; timestamps are integers in units of
 * {@code unitNanos} nanoseconds; decimals carry their scale; lists their {@code element} type.
 */
record ValueType(Kind kind, long unitNanos, int scale, String description, ValueType element) {

    enum Kind { NULL, BOOL, INT, UINT, FLOAT, DECIMAL, DATE, TIMESTAMP, STRING, BINARY, LIST }

    static final ValueType NULL = new ValueType(Kind.NULL, 0, 0, "null", null);
    static final ValueType BOOL = new ValueType(Kind.BOOL, 0, 0, "boolean", null);
    static final ValueType INT = new ValueType(Kind.INT, 0, 0, "integer", null);
    static final ValueType UINT = new ValueType(Kind.UINT, 0, 0, "unsigned integer", null);
    static final ValueType FLOAT = new ValueType(Kind.FLOAT, 0, 0, "floating point", null);
    static final ValueType DATE = new ValueType(Kind.DATE, 0, 0, "date", null);
    static final ValueType STRING = new ValueType(Kind.STRING, 0, 0, "string", null);
    static final ValueType BINARY = new ValueType(Kind.BINARY, 0, 0, "binary", null);
    /** Lance's JSON column: JSONB bytes in a binary column with the {@code lance.json} extension. */
    static final ValueType JSONB = new ValueType(Kind.BINARY, 0, 0, "JSON (lance.json)", null);

    static ValueType timestamp(long unitNanos) {
        return new ValueType(Kind.TIMESTAMP, unitNanos, 0, "timestamp", null);
    }

    static ValueType decimal(int scale) {
        return new ValueType(Kind.DECIMAL, 0, scale, "decimal", null);
    }

    static ValueType list(ValueType element) {
        return new ValueType(Kind.LIST, 0, 0, "list of " + element.description(), element);
    }

    boolean isNumeric() {
        return kind == Kind.INT || kind == Kind.UINT || kind == Kind.FLOAT || kind == Kind.DECIMAL;
    }

    boolean isInteger() {
        return kind == Kind.INT || kind == Kind.UINT;
    }

    boolean isBytes() {
        return kind == Kind.STRING || kind == Kind.BINARY;
    }

    boolean isJsonb() {
        return equals(JSONB);
    }

    boolean isNull() {
        return kind == Kind.NULL;
    }

    boolean isTemporal() {
        return kind == Kind.DATE || kind == Kind.TIMESTAMP;
    }
}
