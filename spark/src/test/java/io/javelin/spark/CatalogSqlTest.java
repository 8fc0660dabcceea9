package io.javelin.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.analysis.TableAlreadyExistsException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class CatalogSqlTest {

    private final SparkSession spark = SparkSessions.get();

    @AfterEach
    void noArrowMemoryLeft() {
        assertThat(Allocators.allocatedBytes()).isZero();
        assertThat(Allocators.openChildren()).isZero();
    }

    private List<Row> sql(String q) {
        return spark.sql(q).collectAsList();
    }

    private static List<String> strings(List<Row> rows) {
        return rows.stream().map(Row::toString).toList();
    }

    @Test
    void namespacesTablesInsertsAndOverwritesInLanceCoresDirectoryLayout() throws IOException {
        sql("CREATE NAMESPACE javelin.shop");
        assertThat(strings(sql("SHOW NAMESPACES IN javelin"))).contains("[shop]");
        sql("CREATE TABLE javelin.shop.items (id BIGINT, name STRING, price DOUBLE, added DATE)");
        assertThat(sql("SELECT * FROM javelin.shop.items")).isEmpty();
        sql("INSERT INTO javelin.shop.items VALUES (1, 'apple', 0.5, DATE '2024-01-02'), (2, 'pear', 0.75, NULL)");
        sql("INSERT INTO javelin.shop.items SELECT id + 10, concat('item', id), id * 1.5, DATE '2024-03-04' FROM range(3)");
        assertThat(strings(sql("SELECT id, name, price, added FROM javelin.shop.items ORDER BY id")))
                .containsExactly("[1,apple,0.5,2024-01-02]", "[2,pear,0.75,null]", "[10,item0,0.0,2024-03-04]",
                        "[11,item1,1.5,2024-03-04]", "[12,item2,3.0,2024-03-04]");
        assertThat(strings(sql("SHOW TABLES IN javelin.shop"))).anyMatch(s -> s.contains("items"));

        // the namespace table lives where lance-core's DirectoryNamespace puts it: <8 hex>_shop$items
        try (Stream<Path> s = Files.list(SparkSessions.warehouse())) {
            assertThat(s.map(p -> p.getFileName().toString())).anyMatch(n -> n.matches("[0-9a-f]{8}_shop\\$items"))
                    .contains("__manifest");
        }

        sql("INSERT OVERWRITE javelin.shop.items SELECT 7, 'only', 1.0, DATE '2020-02-02'");
        assertThat(strings(sql("SELECT * FROM javelin.shop.items"))).containsExactly("[7,only,1.0,2020-02-02]");

        sql("CREATE TABLE javelin.shop.copy AS SELECT id, upper(name) AS name FROM javelin.shop.items");
        assertThat(strings(sql("SELECT * FROM javelin.shop.copy"))).containsExactly("[7,ONLY]");
        assertThatThrownBy(() -> sql("CREATE TABLE javelin.shop.copy (x INT)")).isInstanceOf(TableAlreadyExistsException.class);

        sql("ALTER TABLE javelin.shop.copy RENAME TO shop.copy2");
        assertThat(strings(sql("SELECT * FROM javelin.shop.copy2"))).containsExactly("[7,ONLY]");
        sql("DROP TABLE javelin.shop.copy2");
        assertThat(strings(sql("SHOW TABLES IN javelin.shop"))).noneMatch(s -> s.contains("copy"));
        sql("DROP TABLE javelin.shop.items");
        sql("DROP NAMESPACE javelin.shop");
        assertThat(strings(sql("SHOW NAMESPACES IN javelin"))).doesNotContain("[shop]");
    }

    @Test
    void rootTablesAreDotLanceDirectoriesAndTravelInTime() {
        sql("CREATE TABLE javelin.events AS SELECT id, id % 2 = 0 AS even FROM range(4)");
        assertThat(Files.isDirectory(SparkSessions.warehouse().resolve("events.lance/_versions"))).isTrue();
        sql("INSERT INTO javelin.events SELECT 100, false");
        sql("INSERT INTO javelin.events SELECT 200, true");
        long latest = (Long) sql("SELECT count(*) FROM javelin.events").getFirst().get(0);
        assertThat(latest).isEqualTo(6);
        // CTAS: version 1 is the empty table, version 2 its first rows
        assertThat(sql("SELECT id FROM javelin.events VERSION AS OF 2 ORDER BY id")).hasSize(4);
        assertThat(sql("SELECT id FROM javelin.events VERSION AS OF 3")).hasSize(5);
        assertThat(sql("SELECT id FROM javelin.events VERSION AS OF 1")).isEmpty();
        String now = java.time.LocalDateTime.now(java.time.ZoneOffset.UTC).plusSeconds(1).toString().replace('T', ' ');
        assertThat(sql("SELECT * FROM javelin.events TIMESTAMP AS OF '" + now + "'")).hasSize(6);
        assertThatThrownBy(() -> sql("SELECT * FROM javelin.events TIMESTAMP AS OF '2000-01-01 00:00:00'"))
                .hasMessageContaining("no version at or before");
        sql("DROP TABLE javelin.events");
    }

    @Test
    void alterTableAddsRenamesAndDropsColumns() {
        sql("CREATE TABLE javelin.evolve AS SELECT id, concat('v', id) AS v FROM range(3)");
        sql("ALTER TABLE javelin.evolve ADD COLUMN extra INT");
        assertThat(strings(sql("SELECT id, v, extra FROM javelin.evolve ORDER BY id")))
                .containsExactly("[0,v0,null]", "[1,v1,null]", "[2,v2,null]");
        sql("ALTER TABLE javelin.evolve RENAME COLUMN v TO label");
        assertThat(strings(sql("SELECT label FROM javelin.evolve ORDER BY id"))).containsExactly("[v0]", "[v1]", "[v2]");
        sql("ALTER TABLE javelin.evolve DROP COLUMN extra");
        assertThat(spark.table("javelin.evolve").columns()).containsExactly("id", "label");
        sql("INSERT INTO javelin.evolve VALUES (9, 'v9')");
        assertThat(sql("SELECT * FROM javelin.evolve WHERE label = 'v9'")).hasSize(1);
        sql("DROP TABLE javelin.evolve");
    }

    @Test
    void dataFrameWriterV2CreatesAppendsOverwritesAndReplaces() throws Exception {
        spark.sql("SELECT id, concat('a', id) AS s FROM range(3)").writeTo("javelin.v2").create();
        spark.sql("SELECT id + 10 AS id, 'b' AS s FROM range(2)").writeTo("javelin.v2").append();
        assertThat(strings(sql("SELECT * FROM javelin.v2 ORDER BY id"))).containsExactly("[0,a0]", "[1,a1]", "[2,a2]", "[10,b]", "[11,b]");
        spark.sql("SELECT 99 AS id, 'c' AS s").writeTo("javelin.v2").overwritePartitions();
        assertThat(strings(sql("SELECT * FROM javelin.v2"))).containsExactly("[99,c]");
        spark.sql("SELECT true AS flag").writeTo("javelin.v2").replace();
        assertThat(strings(sql("SELECT * FROM javelin.v2"))).containsExactly("[true]");
        sql("CREATE OR REPLACE TABLE javelin.v2 AS SELECT 1.5D AS x");
        assertThat(strings(sql("SELECT * FROM javelin.v2"))).containsExactly("[1.5]");
        sql("DROP TABLE javelin.v2");
    }
}
