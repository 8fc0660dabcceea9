package io.javelin.spark.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/** The statement runner behind scripts/spark-sql.sh, on the tests' shared Spark (catalog {@code javelin}). */
class SparkSqlTest {

    private static SparkSession spark() throws Exception {
        Class<?> c = Class.forName("io.javelin.spark.SparkSessions");
        Method m = c.getDeclaredMethod("get");
        m.setAccessible(true);
        return (SparkSession) m.invoke(null);
    }

    @Test
    void splitsAtSemicolonsOutsideQuotesAndComments() {
        assertThat(Statements.split("SELECT 'a;b'; -- c;d\n SELECT `x;y` ;; SELECT \"q\\\";\"  "))
                .containsExactly("SELECT 'a;b'", "SELECT `x;y`", "SELECT \"q\\\";\"");
    }

    @Test
    void printsEachQuerysRowsAsCsvWithAHeaderAndStopsAtTheFirstError() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = SparkSql.run(spark(), Statements.split(
                        "CREATE TABLE javelin.cli AS SELECT id, CASE WHEN id = 1 THEN NULL ELSE concat('a,\"', id) END AS s FROM range(3);"
                        + "SELECT * FROM javelin.cli ORDER BY id; SELECT count(*) AS n FROM javelin.cli; DROP TABLE javelin.cli;"
                        + "SELECT * FROM javelin.missing; SELECT 1"),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(code).isEqualTo(1);
        assertThat(out.toString(StandardCharsets.UTF_8).lines().toList())
                .containsExactly("id,s", "0,\"a,\"\"0\"", "1,", "2,\"a,\"\"2\"", "", "n", "3");
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("TABLE_OR_VIEW_NOT_FOUND").contains("javelin.missing");
        assertThat(List.of(spark().catalog().tableExists("javelin.cli"))).containsExactly(false);
    }
}
