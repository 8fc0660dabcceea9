package io.javelin.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.engine.namespace.DirectoryNamespace;
import io.javelin.engine.server.NamespaceServer;
import io.javelin.engine.server.ServerOptions;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The catalog over a Lance REST namespace (Javelin's own server on 127.0.0.1 over a directory). */
class RestCatalogTest {

    @TempDir
    Path dir;

    private final SparkSession spark = SparkSessions.get();

    private List<String> rows(String q) {
        return spark.sql(q).collectAsList().stream().map(Row::toString).toList();
    }

    @Test
    void tablesThroughARestNamespace() {
        try (DirectoryNamespace root = DirectoryNamespace.open(dir.toString(), Map.of());
             NamespaceServer server = NamespaceServer.start(root, ServerOptions.defaults().withHost("127.0.0.1").withPort(0)).block()) {
            spark.conf().set("spark.sql.catalog.rest", JavelinCatalog.class.getName());
            spark.conf().set("spark.sql.catalog.rest.uri", "http://127.0.0.1:" + server.port());
            rows("CREATE NAMESPACE rest.team");
            rows("CREATE TABLE rest.team.people (id BIGINT, name STRING)");
            rows("INSERT INTO rest.team.people VALUES (1, 'ann'), (2, 'bob')");
            rows("INSERT INTO rest.team.people SELECT id + 10, concat('p', id) FROM range(3)");
            assertThat(rows("SELECT * FROM rest.team.people WHERE id > 1 ORDER BY id"))
                    .containsExactly("[2,bob]", "[10,p0]", "[11,p1]", "[12,p2]");
            assertThat(rows("SHOW TABLES IN rest.team")).anyMatch(r -> r.contains("people"));
            // the server's directory namespace sees the same table
            assertThat(root.listTables(io.javelin.engine.namespace.ObjectId.of("team"), false).block()).containsExactly("people");
            rows("DROP TABLE rest.team.people");
            rows("DROP NAMESPACE rest.team");
        }
    }
}
