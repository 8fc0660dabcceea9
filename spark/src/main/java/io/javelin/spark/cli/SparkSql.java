package io.javelin.spark.cli;

import io.javelin.spark.JavelinCatalog;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructField;

/**
 * {@code scripts/spark-sql.sh --warehouse DIR -e "SQL; SQL; ..."}: runs the statements on a local Spark
 * ({@code local[2]}) with the Javelin catalog registered as {@code javelin} over {@code DIR}, and prints
 * each statement's rows (queries, SHOW ...) as CSV with a header, one blank line between results.
 */
public final class SparkSql {

    private SparkSql() {
    }

    public static void main(String[] args) {
        String warehouse = null;
        String sql = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--warehouse" -> warehouse = i + 1 < args.length ? args[++i] : null;
                case "-e" -> sql = i + 1 < args.length ? args[++i] : null;
                default -> usage("unknown argument: " + args[i]);
            }
        }
        if (warehouse == null || sql == null) {
            usage("--warehouse DIR and -e SQL are required");
        }
        List<String> statements = Statements.split(sql);
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        SparkSession spark = SparkSession.builder().master("local[2]").appName("javelin spark-sql")
                .config("spark.ui.enabled", "false")
                .config("spark.sql.shuffle.partitions", "2")
                .config("spark.driver.host", "127.0.0.1")
                .config("spark.sql.catalog.javelin", JavelinCatalog.class.getName())
                .config("spark.sql.catalog.javelin.warehouse", warehouse)
                // a missing table is "not found", not an attempt to read a path with the source named javelin
                .config("spark.sql.runSQLOnFiles", "false")
                .getOrCreate();
        int code;
        try {
            code = run(spark, statements, out, System.err);
        } finally {
            spark.stop();
        }
        System.exit(code);
    }

    /** Runs the statements in order, stopping at the first error (exit code 1); results go to {@code out}. */
    static int run(SparkSession spark, List<String> statements, PrintStream out, PrintStream err) {
        boolean first = true;
        for (String st : statements) {
            Dataset<Row> df;
            List<Row> rows;
            try {
                df = spark.sql(st);
                rows = df.collectAsList();
            } catch (Exception e) {
                err.println("spark-sql: " + firstLine(e.getMessage()) + "\n  in: " + st);
                return 1;
            }
            if (df.schema().fields().length == 0) {
                continue;
            }
            if (!first) {
                out.println();
            }
            first = false;
            List<String> header = new ArrayList<>();
            for (StructField f : df.schema().fields()) {
                header.add(Csv.field(f.name()));
            }
            out.println(String.join(",", header));
            for (Row r : rows) {
                out.println(Csv.row(r));
            }
        }
        return 0;
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "error";
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }

    private static void usage(String why) {
        System.err.println("spark-sql: " + why + "\nusage: scripts/spark-sql.sh --warehouse DIR -e \"SQL; SQL; ...\"");
        System.exit(2);
    }
}
