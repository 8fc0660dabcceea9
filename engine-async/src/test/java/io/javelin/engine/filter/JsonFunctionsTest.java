package io.javelin.engine.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** JSON functions over JSON text columns, with the spec's conversion rules. */
class JsonFunctionsTest {

    static final Schema SCHEMA = new Schema(List.of(
            new Field("js", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
            new Field("blob", FieldType.nullable(ArrowType.LargeBinary.INSTANCE), null)));

    static final String[] JS = {
        "{\"user\": {\"name\": \"Alice\", \"age\": 30}, \"tags\": [\"python\", \"ml\"], \"ok\": true}",
        "{\"user\": {\"name\": \"Bob\", \"age\": \"41\"}, \"tags\": [], \"ok\": 0, \"score\": 90.5}",
        null,
        "[\"first\", \"second\", {\"k\": [1, 2, 3]}]",
        "{\"user\": null, \"tags\": [\"x\"], \"esc\": \"a\\\"b\\u00e9\"}",
        "not json"};

    BufferAllocator alloc;
    VectorSchemaRoot root;

    @BeforeEach
    void fill() {
        alloc = new RootAllocator();
        root = VectorSchemaRoot.create(SCHEMA, alloc);
        root.allocateNew();
        VarCharVector js = (VarCharVector) root.getVector("js");
        for (int r = 0; r < JS.length; r++) {
            if (JS[r] == null) {
                js.setNull(r);
            } else {
                js.setSafe(r, JS[r].getBytes(StandardCharsets.UTF_8));
            }
        }
        root.setRowCount(JS.length);
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
    void extractAndGet() {
        assertThat(values("json_extract(js, '$.user.name')")).containsExactly("\"Alice\"", "\"Bob\"", null, null, null, null);
        assertThat(values("json_extract(js, '$.user')")).element(0).isEqualTo("{\"name\":\"Alice\",\"age\":30}");
        assertThat(values("json_extract(js, '$[2].k[1]')")).element(3).isEqualTo("2");
        assertThat(values("json_get_string(json_get(js, 'user'), 'name')")).containsExactly("Alice", "Bob", null, null, null, null);
        assertThat(values("json_get_string(js, '1')")).element(3).isEqualTo("second");
        assertThat(values("json_get_string(js, 'esc')")).element(4).isEqualTo("a\"bé");
        assertThat(rows("json_extract(js, '$.user.name') = '\"Alice\"'")).containsExactly(0);
    }

    @Test
    void typedAccessorsConvertStrictly() {
        assertThat(values("json_get_int(json_get(js, 'user'), 'age')")).containsExactly("30", "41", null, null, null, null);
        assertThat(values("json_get_int(js, 'ok')")).containsExactly("1", "0", null, null, null, null);
        assertThat(values("json_get_float(js, 'score')")).element(1).isEqualTo("90.5");
        assertThat(rows("json_get_bool(js, 'ok')")).containsExactly(0);
        assertThat(rows("json_get_bool(js, 'ok') = false")).containsExactly(1);
        assertThat(rows("json_get_int(js, 'user') IS NULL")).containsExactly(0, 1, 2, 3, 4, 5);
    }

    @Test
    void existsAndArrays() {
        assertThat(rows("json_exists(js, '$.user.age')")).containsExactly(0, 1);
        assertThat(rows("json_exists(js, '$.user')")).containsExactly(0, 1, 4);
        assertThat(rows("json_array_contains(js, '$.tags', 'python')")).containsExactly(0);
        assertThat(rows("json_array_contains(js, '$.tags', '\"ml\"')")).containsExactly(0);
        assertThat(values("json_array_length(js, '$.tags')")).containsExactly("2", "0", null, null, "1", null);
    }

    @Test
    void errors() {
        assertThatThrownBy(() -> rows("json_array_length(js, '$.user') > 1")).isInstanceOf(FilterEvaluationException.class)
                .hasMessageContaining("not an array");
        assertThatThrownBy(() -> rows("json_exists(js, 'user')")).isInstanceOf(FilterParseException.class)
                .hasMessageContaining("invalid JSON path 'user'").extracting(e -> ((FilterParseException) e).position())
                .isEqualTo(16);
        assertThatThrownBy(() -> rows("json_get_int(blob, 'a') = 1")).hasMessageContaining("needs a JSON (lance.json) column or JSON text as argument 1, not binary");
        assertThatThrownBy(() -> rows("json_get_int(js) = 1")).hasMessageContaining("takes 2 arguments, got 1");
    }
}
