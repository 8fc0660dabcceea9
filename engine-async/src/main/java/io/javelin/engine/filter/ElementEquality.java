package io.javelin.engine.filter;

/** Equality between a row of one column and a row of another, for list membership; null when the types cannot be compared. */
@FunctionalInterface
interface ElementEquality {

    boolean equal(Values x, int i, Values y, int j);

    static ElementEquality of(ValueType a, ValueType b) {
        if (a.isInteger() && b.isInteger() || a.kind() == b.kind() && a.isTemporal() && a.unitNanos() == b.unitNanos()) {
            return (x, i, y, j) -> {
                Values.Longs l = (Values.Longs) x;
                Values.Longs r = (Values.Longs) y;
                long p = l.get(i);
                long q = r.get(j);
                return p == q && (l.unsigned() == r.unsigned() || p >= 0);
            };
        }
        if (a.isNumeric() && b.isNumeric()) {
            return (x, i, y, j) -> Comparisons.doubles(x).get(i) == Comparisons.doubles(y).get(j);
        }
        if (a.isBytes() && b.isBytes()) {
            return (x, i, y, j) -> Comparisons.compareBytes((Values.Bytes) x, i, (Values.Bytes) y, j) == 0;
        }
        if (a.kind() == ValueType.Kind.BOOL && b.kind() == ValueType.Kind.BOOL) {
            return (x, i, y, j) -> Bits.get(((Values.Bools) x).value(), i) == Bits.get(((Values.Bools) y).value(), j);
        }
        return null;
    }
}
