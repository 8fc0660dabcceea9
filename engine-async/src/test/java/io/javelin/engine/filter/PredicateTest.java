package io.javelin.engine.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.regex.Pattern;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.RepetitionInfo;
import org.junit.jupiter.api.Test;

class PredicateTest {

    static final int ROWS = 300;

    static final Schema SCHEMA = new Schema(List.of(
            nullable("a", new ArrowType.Int(32, true)),
            nullable("b", new ArrowType.Int(64, true)),
            nullable("f", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
            nullable("s", ArrowType.Utf8.INSTANCE),
            nullable("bo", ArrowType.Bool.INSTANCE),
            nullable("u", new ArrowType.Int(64, false)),
            nullable("d", new ArrowType.Date(DateUnit.DAY)),
            nullable("t", new ArrowType.Timestamp(TimeUnit.MICROSECOND, null)),
            nullable("dec", new ArrowType.Decimal(20, 4, 128)),
            new Field("st", FieldType.nullable(ArrowType.Struct.INSTANCE), List.of(
                    nullable("x", new ArrowType.Int(32, true)),
                    nullable("y", ArrowType.Utf8.INSTANCE)))));

    static Field nullable(String name, ArrowType type) {
        return new Field(name, FieldType.nullable(type), null);
    }

    private BufferAllocator allocator;
    private VectorSchemaRoot root;
    /** Row-major copy of the batch for the reference evaluator: a, b, f, s, bo, st.x, st.y (null = SQL NULL). */
    private final List<Object[]> rows = new ArrayList<>();

    @BeforeEach
    void fill() {
        allocator = new RootAllocator();
        root = VectorSchemaRoot.create(SCHEMA, allocator);
        root.allocateNew();
        Random r = new Random(42);
        IntVector a = (IntVector) root.getVector("a");
        BigIntVector b = (BigIntVector) root.getVector("b");
        Float8Vector f = (Float8Vector) root.getVector("f");
        VarCharVector s = (VarCharVector) root.getVector("s");
        BitVector bo = (BitVector) root.getVector("bo");
        UInt8Vector u = (UInt8Vector) root.getVector("u");
        DateDayVector d = (DateDayVector) root.getVector("d");
        TimeStampMicroVector t = (TimeStampMicroVector) root.getVector("t");
        DecimalVector dec = (DecimalVector) root.getVector("dec");
        StructVector st = (StructVector) root.getVector("st");
        IntVector x = (IntVector) st.getChild("x");
        VarCharVector y = (VarCharVector) st.getChild("y");
        String[] words = {"", "apple", "apricot", "banana", "äpfel", "λx", "a_b%c", "APPLE"};
        for (int i = 0; i < ROWS; i++) {
            Object[] row = new Object[7];
            if (i % 11 != 3) {
                a.setSafe(i, r.nextInt(21) - 10);
                row[0] = (long) a.get(i);
            }
            if (i % 7 != 5) {
                b.setSafe(i, r.nextInt(2001) - 1000);
                row[1] = b.get(i);
            }
            if (i % 13 != 2) {
                f.setSafe(i, r.nextInt(5) == 0 ? (double) r.nextInt(5) : r.nextDouble() * 10 - 5);
                row[2] = f.get(i);
            }
            if (i % 5 != 4) {
                String w = words[r.nextInt(words.length)];
                s.setSafe(i, w.getBytes(StandardCharsets.UTF_8));
                row[3] = w;
            }
            if (i % 9 != 1) {
                bo.setSafe(i, r.nextBoolean() ? 1 : 0);
                row[4] = bo.get(i) == 1;
            }
            u.setSafe(i, i == 7 ? -1L : i); // row 7 holds 2^64-1
            d.setSafe(i, 18262 + i); // 2020-01-01 + i days
            t.setSafe(i, (18262L + i) * 86_400_000_000L + 3_600_000_000L);
            if (i % 4 != 0) {
                dec.setSafe(i, new BigDecimal(i).movePointLeft(1).setScale(4));
            }
            if (i % 6 != 0) {
                st.setIndexDefined(i);
                if (i % 4 != 1) {
                    x.setSafe(i, i % 10);
                    row[5] = (long) (i % 10);
                }
                y.setSafe(i, ("y" + (i % 3)).getBytes(StandardCharsets.UTF_8));
                row[6] = "y" + (i % 3);
            } else {
                st.setNull(i);
                x.setSafe(i, 99); // garbage under a null struct must never be visible
            }
            rows.add(row);
        }
        root.setRowCount(ROWS);
    }

    @AfterEach
    void close() {
        root.close();
        allocator.close();
    }

    private int[] select(String filter) {
        return Predicate.compile(filter, SCHEMA).evaluate(root).positions();
    }

    @Test
    void threeValuedLogicWithNulls() {
        // a is NULL on rows i % 11 == 3: neither a > 0 nor NOT (a > 0) selects them.
        int[] pos = select("a > 0");
        int[] neg = select("NOT (a > 0)");
        int[] nulls = select("a IS NULL");
        assertThat(pos.length + neg.length + nulls.length).isEqualTo(ROWS);
        assertThat(list(nulls)).allMatch(i -> i % 11 == 3);
        // NULL OR TRUE is TRUE; NULL AND FALSE is FALSE.
        assertThat(select("a > 100 OR b IS NULL OR TRUE")).hasSize(ROWS);
        assertThat(select("NOT (a > 0 AND FALSE)")).hasSize(ROWS);
        assertThat(select("NULL")).isEmpty();
        assertThat(select("a = NULL")).isEmpty();
    }

    @Test
    void isTrueIsFalseNeverNull() {
        int t = select("bo IS TRUE").length;
        int f = select("bo IS FALSE").length;
        int notTrue = select("bo IS NOT TRUE").length;
        assertThat(t + notTrue).isEqualTo(ROWS);
        assertThat(t + f + select("bo IS NULL").length).isEqualTo(ROWS);
    }

    @Test
    void nestedStructFieldsRespectParentNulls() {
        int[] hits = select("st.x = 9");
        assertThat(list(hits)).allMatch(i -> i % 10 == 9 && i % 6 != 0 && i % 4 != 1);
        assertThat(select("st['x'] = 99")).as("values under null structs are invisible").isEmpty();
        assertThat(list(select("st.x IS NULL"))).allMatch(i -> i % 6 == 0 || i % 4 == 1);
    }

    @Test
    void unsignedDateTimestampAndDecimal() {
        assertThat(select("u > 9223372036854775807")).containsExactly(7);
        assertThat(select("u = 18446744073709551615")).containsExactly(7); // beyond long: compared as double
        assertThat(select("d = date '2020-01-03'")).containsExactly(2);
        assertThat(select("d = '2020-01-03'")).containsExactly(2);
        assertThat(select("d BETWEEN '2020-01-02' AND '2020-01-04'")).containsExactly(1, 2, 3);
        assertThat(select("t = timestamp '2020-01-02 01:00:00'")).containsExactly(1);
        assertThat(select("t >= timestamp(0) '2020-01-02 01:00:01' AND t < '2020-01-04'")).containsExactly(2);
        assertThat(select("CAST(t AS date) = date '2020-01-05'")).containsExactly(4);
        assertThat(select("dec = 1.5")).containsExactly(15);
        assertThat(select("dec = decimal(20,4) '1.5'")).containsExactly(15);
        assertThat(select("dec > 29.8")).containsExactly(299);
    }

    @Test
    void likePatterns() {
        assertThat(rowsWhere(row -> "apple".equals(row[3]) || "apricot".equals(row[3])))
                .containsExactly(select("s LIKE 'ap%'"));
        assertThat(rowsWhere(row -> "a_b%c".equals(row[3]))).containsExactly(select("s LIKE 'a\\_b\\%c'"));
        assertThat(rowsWhere(row -> "λx".equals(row[3]))).containsExactly(select("s LIKE '_x'"));
        assertThat(rowsWhere(row -> "".equals(row[3]))).containsExactly(select("s LIKE ''"));
        assertThat(rowsWhere(row -> row[3] != null && !((String) row[3]).contains("p")))
                .containsExactly(select("s NOT LIKE '%p%'"));
    }

    @Test
    void bindErrorsAreTypedWithPositions() {
        assertThatThrownBy(() -> Predicate.compile("nope = 1", SCHEMA))
                .isInstanceOfSatisfying(FilterParseException.class, e -> assertThat(e.position()).isZero())
                .hasMessageContaining("no column 'nope'");
        assertThatThrownBy(() -> Predicate.compile("a = 1 AND s > 3", SCHEMA))
                .isInstanceOfSatisfying(FilterParseException.class, e -> assertThat(e.position()).isEqualTo(12))
                .hasMessageContaining("cannot compare string with integer");
        assertThatThrownBy(() -> Predicate.compile("d = 'yesterday'", SCHEMA))
                .hasMessageContaining("cannot interpret 'yesterday' as date");
        assertThatThrownBy(() -> Predicate.compile("a + 1", SCHEMA)).hasMessageContaining("must be a boolean");
        assertThatThrownBy(() -> Predicate.compile("st.x.z = 1", SCHEMA)).hasMessageContaining("'st.x' is not a struct");
        assertThatThrownBy(() -> Predicate.compile("s + 1 > 2", SCHEMA)).hasMessageContaining("arithmetic needs numbers");
    }

    @Test
    void evaluationErrorsAreTyped() {
        assertThatThrownBy(() -> select("a / 0 > 1")).isInstanceOf(FilterEvaluationException.class)
                .hasMessageContaining("division by zero");
        assertThatThrownBy(() -> select("b * 9223372036854775807 > 1")).isInstanceOf(FilterEvaluationException.class)
                .hasMessageContaining("overflow");
        assertThatThrownBy(() -> select("CAST(b AS tinyint) > 1")).isInstanceOf(FilterEvaluationException.class)
                .hasMessageContaining("out of range");
    }

    @Test
    void referencedColumnsAreTopLevelNames() {
        assertThat(Predicate.compile("st.x > 1 AND a < b", SCHEMA).referencedColumns())
                .containsExactlyInAnyOrder("st", "a", "b");
    }

    /** Random expressions evaluated vectorized and by a naive row-at-a-time reference must agree. */
    @RepeatedTest(300)
    void agreesWithRowAtATimeReference(RepetitionInfo info) {
        Random r = new Random(info.getCurrentRepetition() * 7919L);
        Gen g = gen(r, 3);
        int[] actual = select(g.sql);
        int[] expected = rowsWhere(row -> Boolean.TRUE.equals(g.eval.apply(row)));
        assertThat(actual).as(g.sql).containsExactly(expected);
    }

    private static List<Integer> list(int[] a) {
        return java.util.stream.IntStream.of(a).boxed().toList();
    }

    private int[] rowsWhere(java.util.function.Predicate<Object[]> p) {
        return java.util.stream.IntStream.range(0, ROWS).filter(i -> p.test(rows.get(i))).toArray();
    }

    private record Gen(String sql, java.util.function.Function<Object[], Object> eval) {
    }

    private static final String[] INT_COLS = {"a", "b", "st.x"};
    private static final int[] INT_IDX = {0, 1, 5};

    /** A random boolean expression with its reference semantics (Kleene logic; Boolean null = SQL NULL). */
    private static Gen gen(Random r, int depth) {
        int pick = depth == 0 ? 4 + r.nextInt(6) : r.nextInt(10);
        switch (pick) {
            case 0: {
                Gen x = gen(r, depth - 1);
                Gen y = gen(r, depth - 1);
                return new Gen("(" + x.sql + " AND " + y.sql + ")", row -> and(x.eval.apply(row), y.eval.apply(row)));
            }
            case 1: {
                Gen x = gen(r, depth - 1);
                Gen y = gen(r, depth - 1);
                return new Gen("(" + x.sql + " OR " + y.sql + ")", row -> or(x.eval.apply(row), y.eval.apply(row)));
            }
            case 2: {
                Gen x = gen(r, depth - 1);
                return new Gen("NOT (" + x.sql + ")", row -> x.eval.apply(row) == null ? null : !(Boolean) x.eval.apply(row));
            }
            case 3: {
                Gen x = gen(r, depth - 1);
                boolean target = r.nextBoolean();
                return new Gen("(" + x.sql + ") IS " + (target ? "TRUE" : "FALSE"),
                        row -> Boolean.valueOf(target).equals(x.eval.apply(row)));
            }
            case 4, 5: {
                int c = r.nextInt(INT_COLS.length);
                String op = new String[] {"=", "<>", "<", "<=", ">", ">="}[r.nextInt(6)];
                long k = r.nextInt(21) - 10;
                boolean arith = r.nextBoolean();
                long add = r.nextInt(5);
                String lhs = arith ? INT_COLS[c] + " + " + add : INT_COLS[c];
                return new Gen(lhs + " " + op + " " + k, row -> {
                    Long v = (Long) row[INT_IDX[c]];
                    return v == null ? null : cmp(op, Long.compare(v + (arith ? add : 0), k));
                });
            }
            case 6: {
                String op = new String[] {"<", ">", "<=", ">="}[r.nextInt(4)];
                double k = r.nextInt(9) - 4 + (r.nextBoolean() ? 0.5 : 0);
                return new Gen("f " + op + " " + k + " ", row -> row[2] == null ? null : cmp(op, Double.compare((Double) row[2], k)));
            }
            case 7: {
                String[] lits = {"apple", "banana", "", "äpfel", "zzz"};
                String k = lits[r.nextInt(lits.length)];
                String op = new String[] {"=", "<>", "<", ">"}[r.nextInt(4)];
                return new Gen("s " + op + " '" + k + "'", row -> row[3] == null ? null
                        : cmp(op, Integer.signum(compareUtf8((String) row[3], k))));
            }
            case 8: {
                int c = r.nextInt(INT_COLS.length);
                long lo = r.nextInt(11) - 8;
                long hi = lo + r.nextInt(8);
                boolean not = r.nextBoolean();
                if (r.nextBoolean()) {
                    return new Gen(INT_COLS[c] + (not ? " NOT" : "") + " BETWEEN " + lo + " AND " + hi, row -> {
                        Long v = (Long) row[INT_IDX[c]];
                        return v == null ? null : (v >= lo && v <= hi) != not;
                    });
                }
                return new Gen(INT_COLS[c] + (not ? " NOT" : "") + " IN (" + lo + ", " + hi + ")", row -> {
                    Long v = (Long) row[INT_IDX[c]];
                    return v == null ? null : (v == lo || v == hi) != not;
                });
            }
            default: {
                String[] cols = {"a", "b", "f", "s", "bo", "st.x", "st.y"};
                int c = r.nextInt(cols.length);
                boolean not = r.nextBoolean();
                if (c == 3 && r.nextBoolean()) {
                    String pattern = new String[] {"a%", "%p%", "_pple", "%", "b_n%a"}[r.nextInt(5)];
                    Pattern re = Pattern.compile(pattern.replace("%", ".*").replace("_", "."), Pattern.DOTALL);
                    return new Gen("s " + (not ? "NOT " : "") + "LIKE '" + pattern + "'",
                            row -> row[3] == null ? null : re.matcher((String) row[3]).matches() != not);
                }
                return new Gen(cols[c] + " IS " + (not ? "NOT " : "") + "NULL", row -> (row[c] == null) != not);
            }
        }
    }

    private static Boolean and(Object a, Object b) {
        if (Boolean.FALSE.equals(a) || Boolean.FALSE.equals(b)) {
            return false;
        }
        return a == null || b == null ? null : true;
    }

    private static Boolean or(Object a, Object b) {
        if (Boolean.TRUE.equals(a) || Boolean.TRUE.equals(b)) {
            return true;
        }
        return a == null || b == null ? null : false;
    }

    private static boolean cmp(String op, int c) {
        return switch (op) {
            case "=" -> c == 0;
            case "<>" -> c != 0;
            case "<" -> c < 0;
            case "<=" -> c <= 0;
            case ">" -> c > 0;
            default -> c >= 0;
        };
    }

    private static int compareUtf8(String x, String y) {
        return java.util.Arrays.compareUnsigned(x.getBytes(StandardCharsets.UTF_8), y.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void dateLiteralHelperAgreesWithJavaTime() {
        assertThat(Predicate.parseDate("2020-01-03").toEpochDay()).isEqualTo(LocalDate.of(2020, 1, 3).toEpochDay());
    }
}
