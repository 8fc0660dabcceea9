package io.javelin.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PathReadWriteTest {

    @TempDir
    Path dir;

    private final SparkSession spark = SparkSessions.get();

    @AfterEach
    void noArrowMemoryLeft() {
        assertThat(Allocators.allocatedBytes()).isZero();
        assertThat(Allocators.openChildren()).isZero();
    }

    @Test
    void writesAppendsOverwritesAndReadsBackThroughThePathProvider() {
        String uri = dir.resolve("people.lance").toString();
        Dataset<Row> df = spark.sql("SELECT id, CAST(id * 2 AS INT) AS twice, concat('name-', id) AS name, id % 3 = 0 AS fizz "
                + "FROM range(0, 1000, 1, 4)");
        df.write().format("javelin").mode("append").save(uri);
        assertThat(Files.isDirectory(dir.resolve("people.lance/_versions"))).isTrue();

        Dataset<Row> back = spark.read().format("javelin").load(uri);
        assertThat(back.count()).isEqualTo(1000);
        List<Row> some = back.where("id = 777").collectAsList();
        assertThat(some).hasSize(1);
        assertThat(some.getFirst().getInt(1)).isEqualTo(1554);
        assertThat(some.getFirst().getString(2)).isEqualTo("name-777");
        assertThat(some.getFirst().getBoolean(3)).isTrue();
        assertThat(back.agg(org.apache.spark.sql.functions.sum("id")).first().getLong(0)).isEqualTo(999L * 1000 / 2);

        df.limit(10).write().format("javelin").mode("append").save(uri);
        assertThat(spark.read().format("javelin").load(uri).count()).isEqualTo(1010);

        spark.sql("SELECT id, CAST(0 AS INT) AS twice, 'x' AS name, false AS fizz FROM range(5)")
                .write().format("javelin").mode("overwrite").save(uri);
        Dataset<Row> over = spark.read().format("javelin").load(uri);
        assertThat(over.count()).isEqualTo(5);
        assertThat(over.where("name = 'x'").count()).isEqualTo(5);

        // time travel on a path: version 2 had 1010 rows
        assertThat(spark.read().format("javelin").option("version", "2").load(uri).count()).isEqualTo(1010);
    }
}
