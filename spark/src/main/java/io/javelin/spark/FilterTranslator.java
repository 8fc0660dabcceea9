package io.javelin.spark;

import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.Literal;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Spark V2 predicates → Javelin filter SQL, only where Javelin's result equals Spark's for every row (then
 * Spark drops the predicate). Comparisons whose rules may differ are not translated at all, not even as a
 * pruning hint, since the scan would then drop rows Spark keeps: floating point (Spark orders NaN above
 * everything and equal to itself; float literals widen differently), string ranges (collation), timestamps,
 * decimals and functions. NOT is pushed only over exact translations.
 */
final class FilterTranslator {

    record Translation(String sql, boolean exact) {
    }

    private final StructType schema;

    FilterTranslator(StructType schema) {
        this.schema = schema;
    }

    Optional<Translation> translate(Predicate p) {
        try {
            return Optional.ofNullable(predicate(p));
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    private Translation predicate(Predicate p) {
        Expression[] c = p.children();
        switch (p.name()) {
            case "ALWAYS_TRUE":
                return new Translation("true", true);
            case "ALWAYS_FALSE":
                return new Translation("false", true);
            case "AND":
            case "OR": {
                Translation l = predicate((Predicate) c[0]);
                Translation r = predicate((Predicate) c[1]);
                if (l == null || r == null) {
                    return null;
                }
                return new Translation("(" + l.sql + ") " + p.name() + " (" + r.sql + ")", l.exact && r.exact);
            }
            case "NOT": {
                Translation t = predicate((Predicate) c[0]);
                // a residual inside NOT is no longer a superset of the matches: push only exact ones
                return t == null || !t.exact ? null : new Translation("NOT (" + t.sql + ")", true);
            }
            case "IS_NULL":
            case "IS_NOT_NULL": {
                Column col = column(c[0]);
                return col == null ? null : new Translation(col.sql + (p.name().equals("IS_NULL") ? " IS NULL" : " IS NOT NULL"), true);
            }
            case "=":
            case "<>":
            case "<":
            case "<=":
            case ">":
            case ">=":
                return comparison(p.name(), c[0], c[1]);
            case "<=>": {
                Column col = column(c[0]);
                if (col == null || !(c[1] instanceof Literal<?> lit)) {
                    return null;
                }
                if (lit.value() == null) {
                    return new Translation(col.sql + " IS NULL", true);
                }
                Translation eq = comparison("=", c[0], c[1]);
                return eq == null ? null : new Translation("(" + col.sql + " IS NOT NULL AND " + eq.sql + ")", eq.exact);
            }
            case "IN": {
                Column col = column(c[0]);
                if (col == null || c.length < 2) {
                    return null;
                }
                List<String> values = new ArrayList<>();
                for (int i = 1; i < c.length; i++) {
                    String v = c[i] instanceof Literal<?> l ? literal(l, col.type) : null;
                    if (v == null) {
                        return null;
                    }
                    values.add(v);
                }
                return exactEquality(col.type) ? new Translation(col.sql + " IN (" + String.join(", ", values) + ")", true) : null;
            }
            case "STARTS_WITH":
            case "ENDS_WITH":
            case "CONTAINS": {
                Column col = column(c[0]);
                if (col == null || !(col.type instanceof StringType) || !(c[1] instanceof Literal<?> l) || l.value() == null) {
                    return null;
                }
                String fn = switch (p.name()) {
                    case "STARTS_WITH" -> "starts_with";
                    case "ENDS_WITH" -> "ends_with";
                    default -> "contains";
                };
                return new Translation(fn + "(" + col.sql + ", " + quote(l.value().toString()) + ")", true);
            }
            default:
                return null;
        }
    }

    private Translation comparison(String op, Expression left, Expression right) {
        boolean flipped = false;
        if (left instanceof Literal<?> && right instanceof NamedReference) {
            Expression t = left;
            left = right;
            right = t;
            flipped = true;
        }
        Column col = column(left);
        if (col == null || !(right instanceof Literal<?> lit) || lit.value() == null) {
            return null;
        }
        String v = literal(lit, col.type);
        if (v == null) {
            return null;
        }
        String o = flipped ? flip(op) : op;
        boolean exact = (o.equals("=") || o.equals("<>")) ? exactEquality(col.type) : exactOrdering(col.type);
        return exact ? new Translation(col.sql + " " + o + " " + v, true) : null;
    }

    private static String flip(String op) {
        return switch (op) {
            case "<" -> ">";
            case "<=" -> ">=";
            case ">" -> "<";
            case ">=" -> "<=";
            default -> op;
        };
    }

    private static boolean exactEquality(DataType t) {
        return !(t instanceof FloatType || t instanceof DoubleType);
    }

    private static boolean exactOrdering(DataType t) {
        return t instanceof ByteType || t instanceof ShortType || t instanceof IntegerType || t instanceof LongType
                || t instanceof DateType || t instanceof BooleanType;
    }

    private record Column(String sql, DataType type) {
    }

    /** A reference to a (possibly nested) column of a pushable type, quoted for Javelin's parser. */
    private Column column(Expression e) {
        if (!(e instanceof NamedReference ref)) {
            return null;
        }
        String[] names = ref.fieldNames();
        DataType t = schema;
        StringBuilder sql = new StringBuilder();
        for (String n : names) {
            if (!(t instanceof StructType st)) {
                return null;
            }
            StructField f = null;
            for (StructField x : st.fields()) {
                if (x.name().equals(n)) {
                    f = x;
                }
            }
            if (f == null) {
                return null;
            }
            if (!sql.isEmpty()) {
                sql.append('.');
            }
            sql.append('`').append(n.replace("`", "``")).append('`');
            t = f.dataType();
        }
        boolean pushable = t instanceof BooleanType || t instanceof ByteType || t instanceof ShortType || t instanceof IntegerType
                || t instanceof LongType || t instanceof FloatType || t instanceof DoubleType || t instanceof StringType
                || t instanceof DateType;
        return pushable ? new Column(sql.toString(), t) : null;
    }

    /** The literal in Javelin's syntax, if its type matches the column's family. */
    private static String literal(Literal<?> l, DataType column) {
        Object v = l.value();
        DataType t = l.dataType();
        if (v == null) {
            return null;
        }
        if (t instanceof StringType) {
            return column instanceof StringType ? quote(v.toString()) : null;
        }
        if (t instanceof BooleanType) {
            return column instanceof BooleanType ? v.toString() : null;
        }
        if (t instanceof DateType) {
            return column instanceof DateType ? "date '" + LocalDate.ofEpochDay(((Number) v).longValue()) + "'" : null;
        }
        if (t instanceof ByteType || t instanceof ShortType || t instanceof IntegerType || t instanceof LongType) {
            return isNumeric(column) ? Long.toString(((Number) v).longValue()) : null;
        }
        if (t instanceof FloatType || t instanceof DoubleType) {
            double d = ((Number) v).doubleValue();
            if (Double.isNaN(d) || Double.isInfinite(d) || !(column instanceof FloatType || column instanceof DoubleType)) {
                return null;
            }
            String text = t instanceof FloatType ? Float.toString((Float) v) : Double.toString(d);
            return new java.math.BigDecimal(text).toPlainString();
        }
        return null;
    }

    private static boolean isNumeric(DataType t) {
        return t instanceof ByteType || t instanceof ShortType || t instanceof IntegerType || t instanceof LongType
                || t instanceof FloatType || t instanceof DoubleType;
    }

    static String quote(String s) {
        return "'" + s.replace("'", "''") + "'";
    }
}
