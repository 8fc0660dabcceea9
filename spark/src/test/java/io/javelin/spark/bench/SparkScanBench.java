package io.javelin.spark.bench;

import io.javelin.spark.JavelinCatalog;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.spark.sql.SparkSession;

/**
 * The same scans through Spark (local[2]) on one table stored as Lance via Javelin and as Parquet via Spark's
 * built-in reader: full, projected, filtered, count. Not a test: run by hand (see docs/benchmarks.md), e.g.
 * {@code java <flags> -cp <spark test classpath> io.javelin.spark.bench.SparkScanBench 10000000 5}.
 */
public final class SparkScanBench {

    private SparkScanBench() {
    }

    public static void main(String[] args) throws Exception {
        long rows = args.length > 0 ? Long.parseLong(args[0]) : 10_000_000L;
        int reps = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        Path dir = Files.createTempDirectory("javelin-spark-bench");
        SparkSession spark = SparkSession.builder().master("local[2]").appName("bench")
                .config("spark.ui.enabled", "false").config("spark.driver.host", "127.0.0.1")
                .config("spark.sql.shuffle.partitions", "2")
                .config("spark.sql.catalog.javelin", JavelinCatalog.class.getName())
                .config("spark.sql.catalog.javelin.warehouse", dir.resolve("wh").toString())
                .getOrCreate();
        spark.sparkContext().setLogLevel("WARN");
        String source = "SELECT id, CAST(id % 1000 AS INT) AS k, id * 0.5D AS x, concat('name-', id % 100000) AS s FROM range(0, "
                + rows + ", 1, 8)";
        long t0 = System.nanoTime();
        spark.sql("CREATE TABLE javelin.b AS " + source);
        long lanceWrite = System.nanoTime() - t0;
        t0 = System.nanoTime();
        spark.sql(source).write().parquet(dir.resolve("b.parquet").toString());
        long parquetWrite = System.nanoTime() - t0;
        spark.read().parquet(dir.resolve("b.parquet").toString()).createOrReplaceTempView("p");

        String[][] cases = {
            {"full", "SELECT sum(id), sum(k), sum(x), sum(length(s)) FROM %s"},
            {"projected", "SELECT sum(k) FROM %s"},
            {"filtered", "SELECT sum(x) FROM %s WHERE k = 7"},
            {"count", "SELECT count(*) FROM %s"},
        };
        List<String> lines = new ArrayList<>();
        lines.add(String.format(Locale.ROOT, "rows=%d, write: lance %.1f s, parquet %.1f s", rows, lanceWrite / 1e9, parquetWrite / 1e9));
        lines.add("| scan | Lance via Javelin (ms) | Parquet (ms) | ratio |");
        lines.add("|---|---|---|---|");
        for (String[] c : cases) {
            double lance = best(spark, c[1].formatted("javelin.b"), reps);
            double parquet = best(spark, c[1].formatted("p"), reps);
            lines.add(String.format(Locale.ROOT, "| %s | %.0f | %.0f | %.2f |", c[0], lance, parquet, lance / parquet));
        }
        lines.forEach(System.out::println);
        spark.stop();
    }

    /** Best of {@code reps} runs after one warm-up, in ms; the results of both tables are checked equal by the caller's eye. */
    private static double best(SparkSession spark, String q, int reps) {
        System.out.println(q + " -> " + spark.sql(q).collectAsList());
        double best = Double.MAX_VALUE;
        for (int i = 0; i < reps; i++) {
            long t = System.nanoTime();
            spark.sql(q).collectAsList();
            best = Math.min(best, (System.nanoTime() - t) / 1e6);
        }
        return best;
    }
}
