package io.javelin.engine.filter;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * ORDER BY keys: {@code col [ASC|DESC] [NULLS FIRST|LAST]}, each any scalar value expression. As in
 * DataFusion, ASC puts NULLs last and DESC first unless told; floats order NaN above every number.
 * Keys are evaluated once per batch ({@link #of}); rows of two batches then compare without objects.
 */
public final class SortKeys {

    private record Key(Predicate.Node node, boolean descending, boolean nullsFirst) {
    }

    private final List<Key> keys;
    private final java.util.Set<String> columns;

    private SortKeys(List<Key> keys, java.util.Set<String> columns) {
        this.keys = keys;
        this.columns = columns;
    }

    /** Parses and binds the clauses; errors are {@link FilterParseException}s with positions. */
    public static SortKeys compile(List<String> clauses, Schema schema) {
        List<Key> keys = new ArrayList<>();
        java.util.Set<String> cols = new java.util.LinkedHashSet<>();
        for (String clause : clauses) {
            String text = clause.trim();
            boolean desc = false;
            Boolean nullsFirst = null;
            String upper = text.toUpperCase(Locale.ROOT);
            if (upper.endsWith(" NULLS FIRST") || upper.endsWith(" NULLS LAST")) {
                nullsFirst = upper.endsWith(" NULLS FIRST");
                text = text.substring(0, text.length() - (nullsFirst ? 12 : 11)).trim();
                upper = text.toUpperCase(Locale.ROOT);
            }
            if (upper.endsWith(" DESC") || upper.endsWith(" ASC")) {
                desc = upper.endsWith(" DESC");
                text = text.substring(0, text.length() - (desc ? 5 : 4)).trim();
            }
            Expr e = FilterParser.parse(text);
            Predicate.Node n = Predicate.bindValue(text, e, schema, cols);
            if (n.type().kind() == ValueType.Kind.LIST || n.type().isNull()) {
                throw new FilterParseException(text, 0, "cannot order by a " + n.type().description());
            }
            keys.add(new Key(n, desc, nullsFirst != null ? nullsFirst : desc));
        }
        if (keys.isEmpty()) {
            throw new FilterParseException("", 0, "ORDER BY needs at least one key");
        }
        return new SortKeys(List.copyOf(keys), java.util.Set.copyOf(cols));
    }

    /** Top-level columns the keys read. */
    public java.util.Set<String> referencedColumns() {
        return columns;
    }

    /** The keys of one batch, evaluated. */
    public Evaluated of(VectorSchemaRoot batch) {
        Values[] v = new Values[keys.size()];
        for (int k = 0; k < v.length; k++) {
            v[k] = keys.get(k).node().eval(batch, batch.getRowCount());
        }
        return new Evaluated(v);
    }

    /** Evaluated keys of one batch. */
    public static final class Evaluated {
        private final Values[] values;

        private Evaluated(Values[] values) {
            this.values = values;
        }
    }

    /** Orders row {@code i} of {@code a} against row {@code j} of {@code b}. */
    public int compare(Evaluated a, int i, Evaluated b, int j) {
        for (int k = 0; k < keys.size(); k++) {
            Key key = keys.get(k);
            Values x = a.values[k];
            Values y = b.values[k];
            boolean xv = x.isValid(i);
            boolean yv = y.isValid(j);
            if (!xv || !yv) {
                if (xv == yv) {
                    continue;
                }
                return !xv == key.nullsFirst() ? -1 : 1;
            }
            int c = compareValid(x, i, y, j);
            if (c != 0) {
                return key.descending() ? -c : c;
            }
        }
        return 0;
    }

    private static int compareValid(Values x, int i, Values y, int j) {
        return switch (x) {
            case Values.Longs l -> l.unsigned() ? Long.compareUnsigned(l.get(i), ((Values.Longs) y).get(j))
                    : Long.compare(l.get(i), ((Values.Longs) y).get(j));
            case Values.Doubles d -> Double.compare(d.get(i), ((Values.Doubles) y).get(j));
            case Values.Bytes s -> Comparisons.compareBytes(s, i, (Values.Bytes) y, j);
            case Values.Bools b -> Boolean.compare(Bits.get(b.value(), i), Bits.get(((Values.Bools) y).value(), j));
            case Values.Decimals d -> d.compare(i, (Values.Decimals) y, j);
            case Values.Lists l -> throw new IllegalStateException("lists are not ordered");
        };
    }
}
