package io.javelin.engine.filter;

/** Gathers values of one type from several columns, row by row (CASE, coalesce, list elements). */
final class ValueBuilder {

    private final ValueType type;
    private final int rows;
    private final long[] valid;
    private long[] longs;
    private double[] doubles;
    private long[] hi;
    private long[] lo;
    private long[] bits;
    private BytesOut bytes;
    private int row;

    ValueBuilder(ValueType type, int rows) {
        this.type = type;
        this.rows = rows;
        this.valid = new long[Bits.words(rows)];
        switch (type.kind()) {
            case INT, UINT, DATE, TIMESTAMP -> longs = new long[rows];
            case FLOAT -> doubles = new double[rows];
            case DECIMAL -> {
                hi = new long[rows];
                lo = new long[rows];
            }
            case BOOL, NULL -> bits = new long[Bits.words(rows)];
            case STRING, BINARY -> bytes = new BytesOut(rows, rows * 8);
            case LIST -> throw new IllegalStateException("lists are not gathered");
        }
    }

    static boolean supports(ValueType t) {
        return t.kind() != ValueType.Kind.LIST;
    }

    void appendNull() {
        if (bytes != null) {
            bytes.endNull();
        }
        row++;
    }

    /** Appends row {@code r} of {@code src}, which has this builder's type (or is a NULL column). */
    void append(Values src, int r) {
        if (!src.isValid(r) || src instanceof Values.Bools && type.kind() != ValueType.Kind.BOOL) {
            appendNull();
            return;
        }
        Bits.set(valid, row);
        switch (src) {
            case Values.Longs l -> longs[row] = l.get(r);
            case Values.Doubles d -> doubles[row] = d.get(r);
            case Values.Decimals d -> {
                int a = d.constant() ? 0 : r;
                hi[row] = d.hi()[a];
                lo[row] = d.lo()[a];
            }
            case Values.Bools b -> {
                if (Bits.get(b.value(), r)) {
                    Bits.set(bits, row);
                }
            }
            case Values.Bytes b -> {
                bytes.put(b, b.start(r), b.end(r));
                bytes.end();
            }
            case Values.Lists l -> throw new IllegalStateException("lists are not gathered");
        }
        row++;
    }

    Values build() {
        return switch (type.kind()) {
            case INT, UINT, DATE, TIMESTAMP -> new Values.Longs(longs, valid, false, type.kind() == ValueType.Kind.UINT, rows);
            case FLOAT -> new Values.Doubles(doubles, valid, false, rows);
            case DECIMAL -> new Values.Decimals(hi, lo, type.scale(), valid, false, rows);
            case BOOL, NULL -> new Values.Bools(bits, valid, rows);
            case STRING, BINARY -> bytes.build();
            case LIST -> throw new IllegalStateException("lists are not gathered");
        };
    }
}
