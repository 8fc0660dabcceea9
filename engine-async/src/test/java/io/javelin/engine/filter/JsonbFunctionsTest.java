package io.javelin.engine.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.javelin.engine.jsonb.JsonbEncoder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.LargeVarBinaryVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** JSON functions over a lance.json (JSONB) column, with lance-core 7.0.0's answers (see FilterDifferentialInteropTest). */
class JsonbFunctionsTest {

    static final Schema SCHEMA = new Schema(List.of(
            new Field("i", FieldType.nullable(new ArrowType.Int(32, true)), null),
            new Field("j", new FieldType(true, ArrowType.LargeBinary.INSTANCE, null, Map.of("ARROW:extension:name", "lance.json")), null)));

    static final String[] DOCS = {
        "{\"user\": {\"name\": \"Alice\", \"age\": 30}, \"tags\": [\"python\", \"ml\"], \"ok\": true, \"x\": 1.5}",
        "{\"user\": {\"name\": \"Bob\", \"age\": \"41\"}, \"tags\": [], \"ok\": \"no\", \"x\": -2.5}",
        null,
        "[\"first\", 2, {\"k\": [1, 2, 3]}]",
        "{\"user\": null, \"tags\": [\"x\"], \"n\": 7}",
        "\"plain\""};

    BufferAllocator alloc;
    VectorSchemaRoot root;

    @BeforeEach
    void fill() {
        alloc = new RootAllocator();
        root = VectorSchemaRoot.create(SCHEMA, alloc);
        root.allocateNew();
        LargeVarBinaryVector j = (LargeVarBinaryVector) root.getVector("j");
        for (int r = 0; r < DOCS.length; r++) {
            ((IntVector) root.getVector("i")).setSafe(r, r);
            if (DOCS[r] == null) {
                j.setNull(r);
            } else {
                j.setSafe(r, JsonbEncoder.encode(DOCS[r]));
            }
        }
        root.setRowCount(DOCS.length);
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
    void extractReturnsCompactJsonAndGetChains() {
        assertThat(values("json_extract(j, '$.user')")).containsExactly("{\"age\":30,\"name\":\"Alice\"}",
                "{\"age\":\"41\",\"name\":\"Bob\"}", null, null, "null", null);
        assertThat(values("json_extract(j, '$[2].k[last]')")).element(3).isEqualTo("3");
        assertThat(values("json_get_string(json_get(j, 'user'), 'name')")).containsExactly("Alice", "Bob", null, null, null, null);
        assertThat(values("json_get_int(json_get(j, 'user'), 'age')")).containsExactly("30", "41", null, null, null, null);
        assertThat(values("json_get_string(j, '1')")).containsExactly(null, null, null, "2", null, null);
        assertThat(rows("json_get(j, 'user') IS NOT NULL")).containsExactly(0, 1, 4);
    }

    @Test
    void typedAccessorsRoundAndParse() {
        assertThat(values("json_get_int(j, 'x')")).containsExactly("2", "-3", null, null, null, null);
        assertThat(values("json_get_float(j, 'x')")).containsExactly("1.5", "-2.5", null, null, null, null);
        assertThat(rows("json_get_bool(j, 'ok') = false")).containsExactly(1);
        assertThat(values("json_array_length(j, '$.tags')")).containsExactly("2", "0", null, null, "1", null);
        assertThat(values("json_array_length(j, '$.user')")).containsExactly("0", "0", null, null, "0", null);
        assertThat(rows("json_array_contains(j, '$.tags', 'ml')")).containsExactly(0);
        assertThat(rows("json_array_contains(j, '$', '2')")).containsExactly(3);
        assertThat(rows("json_exists(j, '$.user.age')")).containsExactly(0, 1);
        assertThat(rows("json_exists(j, '$.user') IS NULL")).containsExactly(2);
        assertThat(rows("json_get_string(j, NULL) IS NULL")).containsExactly(0, 1, 2, 3, 4, 5);
    }

    @Test
    void aValueThatDoesNotConvertFailsTheFilterAsInLance() {
        assertThatThrownBy(() -> rows("json_get_int(j, 'ok') = 1")).isInstanceOf(FilterEvaluationException.class)
                .hasMessage("json_get_int: Failed to convert to integer: InvalidCast");
        assertThatThrownBy(() -> rows("json_get_string(j, 'user') = 'x'")).isInstanceOf(FilterEvaluationException.class)
                .hasMessageContaining("Failed to convert to string");
        assertThatThrownBy(() -> rows("json_get_bool(j, 'x')")).isInstanceOf(FilterEvaluationException.class)
                .hasMessageContaining("Failed to convert to boolean");
    }

    @Test
    void compileErrorsCarryPositions() {
        assertError("json_get_intt(j, 'a') = 1", 0, "unknown function 'json_get_intt' (did you mean json_get_int?)");
        assertError("i > 0 AND json_get_int(j) = 1", 10, "function json_get_int takes 2 arguments, got 1");
        assertError("json_array_contains(j, '$.a') = 1", 0, "takes 3 arguments, got 2");
        assertError("json_get_int(i, 'a') = 1", 13, "json_get_int needs a JSON (lance.json) column or JSON text as argument 1, not integer");
        assertError("json_extract(j, '$.a[*]') IS NULL", 16, "not supported by Javelin");
        assertError("json_exists(j, '$.')", 15, "invalid JSON path '$.'");
        assertError("json_get_string(j, i) = 'a'", 19, "needs a constant string key or index as argument 2");
        assertError("j = 'x'", 2, "cannot compare JSON (lance.json) with string");
        assertError("i + INTERVAL '3 days' > 1", 4, "INTERVAL literals are not supported");
        assertError("lower(j) = 'x'", 6, "lower needs a string as argument 1, not JSON (lance.json)");
    }

    private static void assertError(String filter, int position, String message) {
        assertThatThrownBy(() -> Predicate.compile(filter, SCHEMA)).isInstanceOf(FilterParseException.class)
                .hasMessageContaining(message).extracting(e -> ((FilterParseException) e).position()).isEqualTo(position);
    }
}
