package io.javelin.engine.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Function calls, CASE, ILIKE/ESCAPE, list subscripts and their errors, on a small hand-made batch. */
class FunctionsTest {

    static final Schema SCHEMA = new Schema(List.of(
            new Field("i", FieldType.nullable(new ArrowType.Int(64, true)), null),
            new Field("f", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), null),
            new Field("s", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
            new Field("tags", FieldType.nullable(ArrowType.List.INSTANCE),
                    List.of(new Field("item", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)))));

    // row:            0        1         2       3       4        5
    static final String[] S = {"apple", " Pad ", "straße", null, "日本語", "a_b%c"};
    static final Long[] I = {1L, -2L, null, 4L, 0L, 7L};
    static final Double[] F = {2.5, -2.5, 0.44, null, 3.0, 1.25};
    static final String[][] TAGS = {{"a", "b"}, {}, null, {"b", null}, {"c"}, {"a"}};

    BufferAllocator alloc;
    VectorSchemaRoot root;

    @BeforeEach
    void fill() {
        alloc = new RootAllocator();
        root = VectorSchemaRoot.create(SCHEMA, alloc);
        root.allocateNew();
        BigIntVector i = (BigIntVector) root.getVector("i");
        Float8Vector f = (Float8Vector) root.getVector("f");
        VarCharVector s = (VarCharVector) root.getVector("s");
        ListVector tags = (ListVector) root.getVector("tags");
        VarCharVector items = (VarCharVector) tags.getDataVector();
        int at = 0;
        for (int r = 0; r < S.length; r++) {
            if (I[r] == null) {
                i.setNull(r);
            } else {
                i.setSafe(r, I[r]);
            }
            if (F[r] == null) {
                f.setNull(r);
            } else {
                f.setSafe(r, F[r]);
            }
            if (S[r] == null) {
                s.setNull(r);
            } else {
                s.setSafe(r, S[r].getBytes(StandardCharsets.UTF_8));
            }
            if (TAGS[r] == null) {
                tags.setNull(r);
            } else {
                tags.startNewValue(r);
                for (String t : TAGS[r]) {
                    if (t == null) {
                        items.setNull(at++);
                    } else {
                        items.setSafe(at++, t.getBytes(StandardCharsets.UTF_8));
                    }
                }
                tags.endValue(r, TAGS[r].length);
            }
        }
        items.setValueCount(at);
        root.setRowCount(S.length);
    }

    @AfterEach
    void close() {
        root.close();
        alloc.close();
    }

    private List<Integer> rows(String filter) {
        List<Integer> out = new ArrayList<>();
        for (int p : Predicate.compile(filter, SCHEMA).evaluate(root).positions()) {
            out.add(p);
        }
        return out;
    }

    private List<Object> values(String expr) {
        ValueExpression e = ValueExpression.compile(expr, SCHEMA);
        List<Object> out = new ArrayList<>();
        try (FieldVector v = e.evaluate(root, e.resultField("x"), alloc)) {
            for (int r = 0; r < v.getValueCount(); r++) {
                Object o = v.getObject(r);
                out.add(o == null ? null : o.toString());
            }
        }
        return out;
    }

    @Test
    void stringFunctionsCountCharactersAndMapUnicodeCase() {
        assertThat(values("upper(s)")).containsExactly("APPLE", " PAD ", "STRASSE", null, "日本語", "A_B%C");
        assertThat(values("lower(s)")).containsExactly("apple", " pad ", "straße", null, "日本語", "a_b%c");
        assertThat(rows("length(s) = 3")).containsExactly(4);
        assertThat(rows("octet_length(s) = 9")).containsExactly(4);
        assertThat(rows("strpos(s, 'ß') = 5")).containsExactly(2);
        assertThat(rows("strpos(s, 'zz') = 0")).containsExactly(0, 1, 2, 4, 5);
        assertThat(values("substr(s, 2, 3)")).containsExactly("ppl", "Pad", "tra", null, "本語", "_b%");
        assertThat(values("substr(s, 0, 2)")).containsExactly("a", " ", "s", null, "日", "a");
        assertThat(values("btrim(s)")).containsExactly("apple", "Pad", "straße", null, "日本語", "a_b%c");
        assertThat(values("ltrim(s, ' P')")).containsExactly("apple", "ad ", "straße", null, "日本語", "a_b%c");
        assertThat(values("concat(s, '-', s)")).containsExactly("apple-apple", " Pad - Pad ", "straße-straße", "-",
                "日本語-日本語", "a_b%c-a_b%c");
        assertThat(values("s || '!'")).containsExactly("apple!", " Pad !", "straße!", null, "日本語!", "a_b%c!");
        assertThat(values("'#' || i")).containsExactly("#1", "#-2", null, "#4", "#0", "#7");
        assertThat(values("replace(s, 'p', 'P')")).containsExactly("aPPle", " Pad ", "straße", null, "日本語", "a_b%c");
        assertThat(values("left(s, 2)")).containsExactly("ap", " P", "st", null, "日本", "a_");
        assertThat(rows("starts_with(s, 'st') OR ends_with(s, '語') OR contains(s, '%')")).containsExactly(2, 4, 5);
    }

    @Test
    void regularExpressionsUseConstantPatterns() {
        assertThat(rows("regexp_like(s, '^[a-z]+$')")).containsExactly(0);
        assertThat(rows("regexp_like(s, 'PAD', 'i')")).containsExactly(1);
        assertThat(rows("regexp_match(s, '(p)(l)')")).containsExactly(0);
        assertThat(rows("regexp_match(s, 'p(p)')[1] = 'p'")).containsExactly(0);
        assertThat(values("regexp_replace(s, '(a)(p)', '\\2\\1')")).element(0).isEqualTo("paple");
        assertThat(values("regexp_replace(s, 'p', 'q', 'g')")).element(0).isEqualTo("aqqle");
        assertThat(values("regexp_replace(s, 'p', 'q')")).element(0).isEqualTo("aqple");
        assertThatThrownBy(() -> rows("regexp_like(s, '(')")).isInstanceOf(FilterParseException.class)
                .hasMessageContaining("invalid regular expression").extracting(e -> ((FilterParseException) e).position())
                .isEqualTo(15);
        assertThatThrownBy(() -> rows("regexp_like(s, 'a', 'g')")).hasMessageContaining("global");
    }

    @Test
    void likeVariants() {
        assertThat(rows("s ILIKE 'STRA%'")).containsExactly(2);
        assertThat(rows("s NOT ILIKE 'A%'")).containsExactly(1, 2, 4);
        assertThat(rows("s LIKE 'a!_b%' ESCAPE '!'")).containsExactly(5);
        assertThat(rows("s LIKE 'a\\_b\\%c'")).containsExactly(5);
        assertThat(rows("s LIKE 'a_b%'")).containsExactly(5);
    }

    @Test
    void listFunctionsFollowDataFusionNulls() {
        assertThat(rows("array_has(tags, 'a')")).containsExactly(0, 5);
        assertThat(rows("array_has(tags, 'zz') IS NULL")).containsExactly(2);
        assertThat(rows("array_has(tags, NULL) IS NULL")).containsExactly(0, 1, 2, 3, 4, 5);
        assertThat(rows("array_has_any(tags, ['c', 'b'])")).containsExactly(0, 3, 4);
        assertThat(rows("array_has_all(tags, ['a', 'b'])")).containsExactly(0);
        assertThat(rows("array_has_all(tags, [])")).containsExactly(0, 1, 2, 3, 4, 5);
        assertThat(rows("array_has_any(tags, [])")).isEmpty();
        assertThat(rows("array_has_any(tags, [NULL])")).containsExactly(3);
        assertThat(rows("cardinality(tags) = 0")).containsExactly(1);
        assertThat(rows("array_length(tags) = 2")).containsExactly(0, 3);
        assertThat(rows("array_position(tags, 'b') = 2")).containsExactly(0);
        assertThat(rows("array_position(tags, NULL) = 2")).containsExactly(3);
        assertThat(rows("tags[1] = 'b'")).containsExactly(3);
        assertThat(rows("tags[-1] = 'a'")).containsExactly(5);
        assertThat(rows("tags[0] IS NULL")).containsExactly(0, 1, 2, 3, 4, 5);
        assertThat(rows("empty(tags)")).containsExactly(1);
        assertThat(rows("list_contains(tags, s)")).isEmpty();
        assertThat(rows("tags = ['a', 'b']")).containsExactly(0);
        assertThat(rows("tags = []")).containsExactly(1);
        assertThat(rows("tags <> ['a']")).containsExactly(0, 1, 3, 4);
        assertThat(rows("tags = ['b', NULL]")).containsExactly(3);
    }

    @Test
    void conditionalsAndNumbers() {
        assertThat(values("CASE WHEN i > 0 THEN 'pos' WHEN i < 0 THEN 'neg' END"))
                .containsExactly("pos", "neg", null, "pos", null, "pos");
        assertThat(values("CASE i WHEN 1 THEN 10 WHEN 4 THEN 40 ELSE 0 END"))
                .containsExactly("10", "0", "0", "40", "0", "0");
        assertThat(values("coalesce(i, 100)")).containsExactly("1", "-2", "100", "4", "0", "7");
        assertThat(values("coalesce(i, f)")).containsExactly("1.0", "-2.0", "0.44", "4.0", "0.0", "7.0");
        assertThat(rows("nullif(i, 0) IS NULL")).containsExactly(2, 4);
        assertThat(rows("i IS DISTINCT FROM 4")).containsExactly(0, 1, 2, 4, 5);
        assertThat(rows("i IS NOT DISTINCT FROM NULL")).containsExactly(2);
        assertThat(values("round(f)")).containsExactly("3.0", "-3.0", "0.0", null, "3.0", "1.0");
        assertThat(values("round(f, 1)")).element(5).isEqualTo("1.3");
        assertThat(values("abs(i)")).containsExactly("1", "2", null, "4", "0", "7");
        assertThat(values("floor(f)")).element(1).isEqualTo("-3.0");
        assertThat(values("ceil(f)")).element(2).isEqualTo("1.0");
    }

    @Test
    void errorsNameTheFunctionAndPointAtTheProblem() {
        assertThatThrownBy(() -> rows("i > 0 AND nosuch(s)")).isInstanceOf(FilterParseException.class)
                .hasMessageContaining("unknown function 'nosuch'")
                .extracting(e -> ((FilterParseException) e).position()).isEqualTo(10);
        assertThatThrownBy(() -> rows("array_has_anyy(tags, ['a'])")).hasMessageContaining("did you mean array_has_any?");
        assertThatThrownBy(() -> rows("lower(s, s) = 'a'")).isInstanceOf(FilterParseException.class)
                .hasMessageContaining("function lower takes 1 argument, got 2")
                .extracting(e -> ((FilterParseException) e).position()).isEqualTo(0);
        assertThatThrownBy(() -> rows("starts_with(s, i)")).isInstanceOf(FilterParseException.class)
                .hasMessageContaining("starts_with needs a string as argument 2, not integer")
                .extracting(e -> ((FilterParseException) e).position()).isEqualTo(15);
        assertThatThrownBy(() -> rows("array_has(s, 'a')")).hasMessageContaining("array_has needs a list as argument 1");
        assertThatThrownBy(() -> rows("substr(s, 1, 2, 3) = 'a'")).hasMessageContaining("takes 2 to 3 arguments, got 4");
        assertThatThrownBy(() -> rows("s[1] = 'a'")).hasMessageContaining("cannot subscript a string");
        assertThatThrownBy(() -> rows("tags < ['a']")).hasMessageContaining("lists can only be compared with = and <>");
        assertThatThrownBy(() -> rows("CASE WHEN i > 0 THEN 1 ELSE 'x' END = 1"))
                .hasMessageContaining("incompatible types integer and string");
        assertThatThrownBy(() -> rows("lower(s")).isInstanceOf(FilterParseException.class)
                .hasMessageContaining("expected ',' or ')' in the arguments of lower");
    }
}
