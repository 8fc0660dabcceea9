package io.javelin.cli;

import static io.javelin.cli.IndexCliTest.run;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.javelin.engine.Dataset;
import io.javelin.engine.WriteMode;
import io.javelin.engine.WriteParams;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;

/** {@code javelin index create ... --type INVERTED [tokenizer flags]} and {@code javelin search ... --text ... --format json}. */
class FtsCliTest {

    static final ObjectMapper JSON = new ObjectMapper();
    static final String[] DOCS = {"The quick brown fox jumps over the lazy dog", "Quick foxes are quick", "A lazy afternoon",
            "Running dogs and running foxes", null, "brown bread", "the dog", "Fox", "", "quick brown dogs run"};

    @TempDir
    Path tmp;

    String dataset() {
        String uri = tmp.resolve("docs.lance").toString();
        Schema schema = new Schema(List.of(new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
                new Field("text", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));
        try (RootAllocator alloc = new RootAllocator()) {
            VectorSchemaRoot root = VectorSchemaRoot.create(schema, alloc);
            root.allocateNew();
            for (int i = 0; i < DOCS.length; i++) {
                ((BigIntVector) root.getVector("id")).setSafe(i, i);
                if (DOCS[i] == null) {
                    ((VarCharVector) root.getVector("text")).setNull(i);
                } else {
                    ((VarCharVector) root.getVector("text")).setSafe(i, DOCS[i].getBytes(StandardCharsets.UTF_8));
                }
            }
            root.setRowCount(DOCS.length);
            Dataset.write(uri, Flux.just(root), schema, WriteParams.of(WriteMode.CREATE)).block().close();
        }
        return uri;
    }

    static List<JsonNode> lines(String out) throws Exception {
        List<JsonNode> rows = new ArrayList<>();
        for (String l : out.trim().split("\n")) {
            if (!l.isBlank()) {
                rows.add(JSON.readTree(l));
            }
        }
        return rows;
    }

    @Test
    void createInvertedAndSearch() throws Exception {
        String uri = dataset();
        IndexCliTest.Result create = run("index", "create", uri, "--column", "text", "--type", "INVERTED", "--tokenizer", "simple",
                "--language", "English", "--stem", "--remove-stop-words", "--ascii-folding", "--lower-case", "true", "--with-position");
        assertThat(create.exit()).as(create.err()).isZero();
        assertThat(create.out()).contains("created Inverted index text_idx on text");

        IndexCliTest.Result match = run("search", uri, "--column", "text", "--text", "quick fox", "--k", "10", "--format", "json");
        assertThat(match.exit()).as(match.err()).isZero();
        List<JsonNode> rows = lines(match.out());
        // stemmed: "foxes" matches "fox"; rows 0, 1, 3, 7, 9 hold quick or fox
        assertThat(rows.stream().map(r -> r.get("id").asLong()).sorted().toList()).containsExactly(0L, 1L, 3L, 7L, 9L);
        for (int i = 0; i < rows.size(); i++) {
            assertThat(rows.get(i).has("_rowid")).isTrue();
            assertThat(rows.get(i).get("_score").asDouble()).isPositive();
            if (i > 0) {
                assertThat(rows.get(i).get("_score").asDouble()).isLessThanOrEqualTo(rows.get(i - 1).get("_score").asDouble());
            }
        }
        // row 1 says quick twice and has fox: best
        assertThat(rows.get(0).get("id").asLong()).isEqualTo(1L);

        IndexCliTest.Result and = run("search", uri, "--column", "text", "--text", "quick fox", "--operator", "and",
                "--columns", "id", "--format", "json");
        assertThat(lines(and.out()).stream().map(r -> r.get("id").asLong()).sorted().toList()).containsExactly(0L, 1L);

        IndexCliTest.Result phrase = run("search", uri, "--column", "text", "--text", "brown fox", "--query-type", "phrase",
                "--columns", "id", "--format", "json");
        assertThat(phrase.exit()).as(phrase.err()).isZero();
        assertThat(lines(phrase.out()).stream().map(r -> r.get("id").asLong()).toList()).containsExactly(0L);

        IndexCliTest.Result filtered = run("search", uri, "--column", "text", "--text", "quick fox", "--filter", "id > 2",
                "--k", "1", "--columns", "id", "--format", "json");
        List<JsonNode> f = lines(filtered.out());
        assertThat(f).hasSize(1);
        assertThat(f.get(0).get("id").asLong()).isGreaterThan(2L);

        IndexCliTest.Result both = run("search", uri, "--column", "text", "--text", "x", "--vector", "1,2");
        assertThat(both.exit()).isEqualTo(2);
        IndexCliTest.Result badType = run("search", uri, "--column", "text", "--text", "x", "--query-type", "fuzzy");
        assertThat(badType.exit()).isEqualTo(2);
    }

    @Test
    void searchesLanceBuiltGoldenIndex() throws Exception {
        String uri = new IndexCliTest() {
            {
                tmp = FtsCliTest.this.tmp;
            }
        }.golden().toString();
        IndexCliTest.Result scan = run("scan", uri, "--columns", "text", "--limit", "1", "--format", "json");
        String word = lines(scan.out()).get(0).get("text").asText().split("[^A-Za-z]+")[0];
        IndexCliTest.Result search = run("search", uri, "--column", "text", "--text", word, "--k", "5", "--columns", "id", "--format", "json");
        assertThat(search.exit()).as(search.err()).isZero();
        List<JsonNode> rows = lines(search.out());
        assertThat(rows).isNotEmpty().hasSizeLessThanOrEqualTo(5);
        assertThat(rows.get(0).fieldNames()).toIterable().contains("id", "_score", "_rowid");
    }
}
