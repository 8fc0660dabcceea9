package io.javelin.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.objectstore.servers.S3ProxyServer;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The catalog and the path provider on S3 (s3proxy on 127.0.0.1), storage options under Lance's names. */
class S3CatalogTest {

    private final SparkSession spark = SparkSessions.get();

    @AfterEach
    void noArrowMemoryLeft() {
        assertThat(Allocators.allocatedBytes()).isZero();
        assertThat(Allocators.openChildren()).isZero();
    }

    private List<String> rows(String q) {
        return spark.sql(q).collectAsList().stream().map(Row::toString).toList();
    }

    @Test
    void catalogAndPathWritesReadsAndDeletesOnS3() {
        S3ProxyServer s3 = S3ProxyServer.get();
        s3.createBucket("spark-wh");
        Map<String, String> opts = s3.options();
        spark.conf().set("spark.sql.catalog.s3cat", JavelinCatalog.class.getName());
        spark.conf().set("spark.sql.catalog.s3cat.warehouse", "s3://spark-wh/warehouse");
        opts.forEach((k, v) -> spark.conf().set("spark.sql.catalog.s3cat." + k, v));

        spark.sql("CREATE NAMESPACE s3cat.sales");
        spark.sql("CREATE TABLE s3cat.sales.orders AS SELECT id, CAST(id % 5 AS INT) AS shop, id * 1.25D AS total FROM range(0, 2000, 1, 2)");
        assertThat(rows("SELECT count(*), sum(id) FROM s3cat.sales.orders WHERE shop = 4")).containsExactly("[400," + (400L * 4 + 5 * 399L * 400 / 2) + "]");
        String plan = spark.sql("SELECT id FROM s3cat.sales.orders WHERE shop = 2").queryExecution().executedPlan().toString();
        assertThat(plan).contains("s3://spark-wh/warehouse/").contains("`shop` = 2");
        spark.sql("DELETE FROM s3cat.sales.orders WHERE shop = 0");
        assertThat(rows("SELECT count(*) FROM s3cat.sales.orders")).containsExactly("[1600]");

        String uri = "s3://spark-wh/by-path.lance";
        var w = spark.sql("SELECT id, concat('p', id) AS name FROM range(0, 300, 1, 3)").write().format("javelin").mode("overwrite");
        var r = spark.read().format("javelin");
        for (var e : opts.entrySet()) {
            w = w.option(e.getKey(), e.getValue());
            r = r.option(e.getKey(), e.getValue());
        }
        w.save(uri);
        assertThat(r.load(uri).where("name = 'p299'").count()).isEqualTo(1);
        spark.sql("DROP TABLE s3cat.sales.orders");
        spark.sql("DROP NAMESPACE s3cat.sales");
    }
}
