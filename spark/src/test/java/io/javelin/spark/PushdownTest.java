package io.javelin.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.regex.Pattern;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every pushdown is checked twice: in the physical plan (what the scan was asked to do, whether Spark still
 * filters) and in the rows, against the same query over a plain in-memory view of the same data.
 */
class PushdownTest {

    private static final Pattern SPARK_FILTER = Pattern.compile("\\bFilter \\(");
    private static final String SOURCE = "SELECT id, CAST(id % 100 AS INT) AS k, concat(CASE WHEN id % 3 = 0 THEN 'alpha' ELSE 'beta' END, id) AS name, "
            + "id / 7.0D AS score, CASE WHEN id % 10 = 0 THEN NULL ELSE date_add(DATE '2024-01-01', CAST(id % 50 AS INT)) END AS day, "
            + "named_struct('a', id * 2, 'b', concat('b', id)) AS s FROM range(0, 4000, 1, 4)";

    private static SparkSession spark;

    @BeforeAll
    static void table() {
        spark = SparkSessions.get();
        spark.sql("CREATE TABLE javelin.pd AS " + SOURCE);
        spark.sql(SOURCE).createOrReplaceTempView("expected");
    }

    @AfterAll
    static void drop() {
        spark.sql("DROP TABLE IF EXISTS javelin.pd");
    }

    @AfterEach
    void noArrowMemoryLeft() {
        assertThat(Allocators.allocatedBytes()).isZero();
        assertThat(Allocators.openChildren()).isZero();
    }

    private static String plan(Dataset<Row> df) {
        return df.queryExecution().executedPlan().toString();
    }

    private static String scanOf(String plan) {
        int at = plan.indexOf("JavelinScan[");
        assertThat(at).as("plan has a Javelin scan: %s", plan).isGreaterThanOrEqualTo(0);
        int end = plan.indexOf('\n', at);
        return end < 0 ? plan.substring(at) : plan.substring(at, end);
    }

    private static void sameRows(String where) {
        List<Row> got = spark.sql("SELECT id, k, name, score, day, s FROM javelin.pd WHERE " + where + " ORDER BY id").collectAsList();
        List<Row> want = spark.sql("SELECT id, k, name, score, day, s FROM expected WHERE " + where + " ORDER BY id").collectAsList();
        assertThat(got).as(where).isEqualTo(want);
    }

    @Test
    void exactPredicatesRunInJavelinAndSparkDoesNotFilterAgain() {
        String[] wheres = {"id > 100 AND k = 7", "k IN (1, 2, 3) OR id < 5", "name LIKE 'alpha1%' OR name LIKE '%99'",
                "name LIKE '%pha2%' AND day IS NULL", "day >= DATE '2024-02-01' AND id <= 2000", "NOT (k <> 5) OR s.a = 20",
                "k <=> 42 OR name = 'beta4'"};
        for (String where : wheres) {
            Dataset<Row> df = spark.sql("SELECT id, name FROM javelin.pd WHERE " + where);
            String plan = plan(df);
            assertThat(scanOf(plan)).as(where).doesNotContain("filter=none");
            assertThat(SPARK_FILTER.matcher(plan).find()).as("Spark filters again: %s", plan).isFalse();
            sameRows(where);
        }
        assertThat(scanOf(plan(spark.sql("SELECT id FROM javelin.pd WHERE name LIKE 'alpha1%'")))).contains("starts_with(`name`, 'alpha1')");
    }

    @Test
    void comparisonsWhoseRulesDifferStayWithSpark() {
        // NaN ordering, float widening and string collation are Spark's: pushing them could drop rows Spark keeps
        String[][] cases = {{"score > 100.5", "`score` >"}, {"name > 'beta3'", "`name` >"}, {"score = 1.0 AND k < 50", "`score` ="}};
        for (String[] c : cases) {
            Dataset<Row> df = spark.sql("SELECT id FROM javelin.pd WHERE " + c[0]);
            String plan = plan(df);
            assertThat(scanOf(plan)).as(c[0]).doesNotContain(c[1]);
            assertThat(SPARK_FILTER.matcher(plan).find()).as("Spark filters: %s", plan).isTrue();
            sameRows(c[0]);
        }
        assertThat(scanOf(plan(spark.sql("SELECT id FROM javelin.pd WHERE score = 1.0 AND k < 50")))).contains("`k` < 50");
    }

    @Test
    void unsupportedPredicatesStayWithSpark() {
        String[][] cases = {{"upper(name) = 'ALPHA3'", "UPPER"}, {"id + k = 110", "+"}, {"length(s.b) = 3", "LENGTH"}};
        for (String[] c : cases) {
            String where = c[0];
            Dataset<Row> df = spark.sql("SELECT id FROM javelin.pd WHERE " + where);
            String plan = plan(df);
            // only the IS NOT NULL Spark infers from the predicate reaches the scan
            assertThat(scanOf(plan).toUpperCase(java.util.Locale.ROOT)).as(where).doesNotContain(c[1]).contains("IS NOT NULL");
            assertThat(SPARK_FILTER.matcher(plan).find()).isTrue();
            sameRows(where);
        }
    }

    @Test
    void columnsAndNestedFieldsArePruned() {
        Dataset<Row> df = spark.sql("SELECT name FROM javelin.pd WHERE id < 3");
        assertThat(scanOf(plan(df))).contains("columns=[name]").doesNotContain("score"); // id is filtered in the scan only
        assertThat(df.collectAsList().stream().map(r -> r.getString(0)).sorted().toList()).containsExactly("alpha0", "beta1", "beta2");

        Dataset<Row> nested = spark.sql("SELECT s.b FROM javelin.pd WHERE id = 11");
        assertThat(scanOf(plan(nested))).contains("columns=[s.b]");
        assertThat(nested.collectAsList().getFirst().getString(0)).isEqualTo("b11");
    }

    @Test
    void limitIsPushedAndOnlyTheFragmentsItNeedsAreRead() {
        Dataset<Row> df = spark.sql("SELECT id FROM javelin.pd LIMIT 7");
        assertThat(scanOf(plan(df))).contains("limit=7");
        assertThat(df.collectAsList()).hasSize(7);
        // one fragment holds 7 rows: one input partition
        assertThat(df.queryExecution().executedPlan().collectLeaves().head().execute().getNumPartitions()).isEqualTo(1);

        Dataset<Row> filtered = spark.sql("SELECT id FROM javelin.pd WHERE k = 3 LIMIT 5");
        assertThat(scanOf(plan(filtered))).contains("limit=5").contains("`k` = 3");
        assertThat(filtered.collectAsList()).hasSize(5).allMatch(r -> r.getLong(0) % 100 == 3);
    }

    @Test
    void topNIsPushedOnIntegerAndDateColumns() {
        String[] queries = {"SELECT id, k FROM %s ORDER BY k DESC, id LIMIT 12", "SELECT id, day FROM %s ORDER BY day NULLS LAST, id DESC LIMIT 9",
                "SELECT id, day FROM %s WHERE k < 50 ORDER BY day DESC NULLS FIRST, id LIMIT 15"};
        for (String q : queries) {
            Dataset<Row> df = spark.sql(q.formatted("javelin.pd"));
            assertThat(scanOf(plan(df))).as(q).contains("topN=[").contains("limit=");
            assertThat(df.collectAsList()).as(q).isEqualTo(spark.sql(q.formatted("expected")).collectAsList());
        }
        // strings: Spark's order, not pushed
        Dataset<Row> byName = spark.sql("SELECT name FROM javelin.pd ORDER BY name LIMIT 3");
        assertThat(scanOf(plan(byName))).doesNotContain("topN=");
        assertThat(byName.collectAsList()).isEqualTo(spark.sql("SELECT name FROM expected ORDER BY name LIMIT 3").collectAsList());
    }

    @Test
    void countStarIsAnsweredFromMetadata() {
        Dataset<Row> df = spark.sql("SELECT count(*) FROM javelin.pd");
        assertThat(scanOf(plan(df))).contains("COUNT(*) from metadata");
        assertThat(df.first().getLong(0)).isEqualTo(4000);

        Dataset<Row> filtered = spark.sql("SELECT count(*) FROM javelin.pd WHERE k = 3");
        assertThat(scanOf(plan(filtered))).doesNotContain("COUNT(*)").contains("`k` = 3");
        assertThat(filtered.first().getLong(0)).isEqualTo(40);
    }

    @Test
    void oneInputPartitionPerFragment() {
        long fragments;
        try (io.javelin.engine.Dataset ds = io.javelin.engine.Dataset.open(
                SparkSessions.warehouse().resolve("pd.lance").toString()).block()) {
            fragments = ds.fragments().size();
        }
        assertThat(fragments).isEqualTo(4); // one per Spark task of the CTAS
        Dataset<Row> df = spark.sql("SELECT id, name FROM javelin.pd");
        assertThat(df.queryExecution().executedPlan().collectLeaves().head().execute().getNumPartitions()).isEqualTo(4);
    }
}
