package io.javelin.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** DELETE, UPDATE and MERGE INTO, each checked against the same statement's effect computed without the table. */
class DmlTest {

    private static final String SOURCE = "SELECT id, CAST(id % 10 AS INT) AS k, concat('n', id) AS name FROM range(0, 1000, 1, 4)";

    private final SparkSession spark = SparkSessions.get();

    @AfterEach
    void cleanUp() {
        spark.sql("DROP TABLE IF EXISTS javelin.dml");
        assertThat(Allocators.allocatedBytes()).isZero();
        assertThat(Allocators.openChildren()).isZero();
    }

    private List<String> rows(String query) {
        return spark.sql(query).collectAsList().stream().map(Row::toString).toList();
    }

    private static List<String> files(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void deleteWithAJavelinConditionWritesDeletionFilesOnly() throws IOException {
        spark.sql("CREATE TABLE javelin.dml AS " + SOURCE);
        Path table = SparkSessions.warehouse().resolve("dml.lance");
        List<String> data = files(table.resolve("data"));
        spark.sql("DELETE FROM javelin.dml WHERE k = 3 OR id >= 990");
        assertThat(files(table.resolve("data"))).isEqualTo(data);
        assertThat(files(table.resolve("_deletions"))).isNotEmpty();
        assertThat(rows("SELECT * FROM javelin.dml ORDER BY id"))
                .isEqualTo(rows("SELECT * FROM (" + SOURCE + ") WHERE NOT (k = 3 OR id >= 990) ORDER BY id"));
        assertThat(rows("SELECT count(*) FROM javelin.dml")).containsExactly("[891]");
        spark.sql("TRUNCATE TABLE javelin.dml");
        assertThat(rows("SELECT count(*) FROM javelin.dml")).containsExactly("[0]");
        assertThat(files(table.resolve("data"))).isEqualTo(data);
    }

    @Test
    void deleteWithASparkOnlyConditionRewritesOnlyMatchingFragments() throws IOException {
        spark.sql("CREATE TABLE javelin.dml AS " + SOURCE);
        Path table = SparkSessions.warehouse().resolve("dml.lance");
        spark.sql("DELETE FROM javelin.dml WHERE upper(name) = 'N7' AND id < 100");
        assertThat(rows("SELECT * FROM javelin.dml ORDER BY id"))
                .isEqualTo(rows("SELECT * FROM (" + SOURCE + ") WHERE NOT (upper(name) = 'N7' AND id < 100) ORDER BY id"));
        try (io.javelin.engine.Dataset ds = io.javelin.engine.Dataset.open(table.toString()).block()) {
            assertThat(ds.fragments()).hasSize(4); // one fragment replaced by its rewrite, three untouched
            assertThat(ds.count().block()).isEqualTo(999);
        }
    }

    @Test
    void updateRewritesMatchingRowsAndKeepsTheRest() {
        spark.sql("CREATE TABLE javelin.dml AS " + SOURCE);
        spark.sql("UPDATE javelin.dml SET name = concat(name, '!'), k = k + 100 WHERE k = 4 AND id < 500");
        assertThat(rows("SELECT * FROM javelin.dml ORDER BY id")).isEqualTo(rows(
                "SELECT id, CASE WHEN k = 4 AND id < 500 THEN k + 100 ELSE k END, "
                        + "CASE WHEN k = 4 AND id < 500 THEN concat(name, '!') ELSE name END FROM (" + SOURCE + ") ORDER BY id"));
        // a condition Javelin cannot evaluate: every fragment is a candidate, the result is the same kind of rewrite
        spark.sql("UPDATE javelin.dml SET name = 'x' WHERE length(name) > 4");
        assertThat(rows("SELECT count(*) FROM javelin.dml WHERE name = 'x'"))
                .isEqualTo(rows("SELECT count(*) FROM (" + SOURCE + ") WHERE length(name) > 4 OR (k = 4 AND id < 500 AND id >= 100)"));
        assertThat(rows("SELECT count(*) FROM javelin.dml")).containsExactly("[1000]");
    }

    @Test
    void statementsMatchingNothingChangeNothing() {
        spark.sql("CREATE TABLE javelin.dml AS " + SOURCE);
        List<String> before = rows("SELECT * FROM javelin.dml ORDER BY id");
        spark.sql("UPDATE javelin.dml SET name = 'z' WHERE id < 0");
        spark.sql("DELETE FROM javelin.dml WHERE upper(name) = 'NONE' AND id > 5000");
        spark.sql("DELETE FROM javelin.dml WHERE id = -1");
        assertThat(rows("SELECT * FROM javelin.dml ORDER BY id")).isEqualTo(before);
    }

    @Test
    void mergeIntoUpdatesMatchesAndInsertsTheRest() {
        spark.sql("CREATE TABLE javelin.dml AS " + SOURCE);
        spark.sql("CREATE OR REPLACE TEMP VIEW src AS SELECT id * 2 AS id, -1 AS k, concat('m', id) AS name FROM range(495, 505)");
        spark.sql("MERGE INTO javelin.dml t USING src s ON t.id = s.id "
                + "WHEN MATCHED THEN UPDATE SET t.name = s.name, t.k = s.k WHEN NOT MATCHED THEN INSERT *");
        assertThat(rows("SELECT * FROM javelin.dml WHERE k = -1 ORDER BY id")).containsExactly(
                "[990,-1,m495]", "[992,-1,m496]", "[994,-1,m497]", "[996,-1,m498]", "[998,-1,m499]",
                "[1000,-1,m500]", "[1002,-1,m501]", "[1004,-1,m502]", "[1006,-1,m503]", "[1008,-1,m504]");
        assertThat(rows("SELECT count(*) FROM javelin.dml")).containsExactly("[1005]");
        assertThat(rows("SELECT * FROM javelin.dml WHERE id = 991")).containsExactly("[991,1,n991]");
    }
}
