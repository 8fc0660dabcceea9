package io.javelin.spark;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.spark.sql.SparkSession;

/** One local[2] Spark for every test class of this JVM (starting Spark costs seconds), with the catalog {@code javelin}. */
final class SparkSessions {

    private static SparkSession spark;
    private static Path warehouse;

    private SparkSessions() {
    }

    static synchronized SparkSession get() {
        if (spark == null) {
            try {
                warehouse = Files.createTempDirectory("javelin-spark-warehouse");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            spark = SparkSession.builder()
                    .master("local[2]")
                    .appName("javelin-spark-tests")
                    .config("spark.ui.enabled", "false")
                    .config("spark.sql.shuffle.partitions", "2")
                    .config("spark.sql.session.timeZone", "UTC")
                    .config("spark.driver.host", "127.0.0.1")
                    .config("spark.sql.runSQLOnFiles", "false")
                    // small test queries: adaptive re-planning costs more than it saves
                    .config("spark.sql.adaptive.enabled", "false")
                    .config("spark.sql.catalog.javelin", JavelinCatalog.class.getName())
                    .config("spark.sql.catalog.javelin.warehouse", warehouse.toString())
                    .getOrCreate();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> spark.stop()));
        }
        return spark;
    }

    static synchronized Path warehouse() {
        get();
        return warehouse;
    }
}
