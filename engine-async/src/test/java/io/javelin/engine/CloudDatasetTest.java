package io.javelin.engine;

import static io.javelin.engine.DatasetTestSupport.collect;
import static io.javelin.engine.DatasetTestSupport.rows;
import static io.javelin.engine.DatasetTestSupport.schema;
import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.objectstore.servers.AzuriteServer;
import io.javelin.objectstore.servers.GcsServer;
import io.javelin.objectstore.servers.GcsTestServer;
import io.javelin.objectstore.servers.S3ProxyServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The dataset API end to end on each cloud store's test server (S3 on s3proxy, Azure on Azurite, GCS on
 * the objectstore test-jar's JSON-API server): write, filtered and projected scan, take, delete, time
 * travel. Local and memory stores run the longer version in {@link DatasetTest}.
 */
@Timeout(120)
class CloudDatasetTest {

    static {
        // The s3proxy jar is copied by the objectstore module's build; fall back to the local Maven repository.
        if (System.getProperty("javelin.s3proxy.jar") == null) {
            Path built = Path.of("../objectstore/target/test-servers/s3proxy.jar");
            Path repo = Path.of(System.getProperty("user.home"), ".m2/repository/org/gaul/s3proxy/4.1.0/s3proxy-4.1.0-jar-with-dependencies.jar");
            System.setProperty("javelin.s3proxy.jar", (Files.isRegularFile(built) ? built : repo).toString());
        }
    }

    final BufferAllocator alloc = new RootAllocator();

    @AfterEach
    void noArrowLeaks() {
        alloc.close();
    }

    private static Map<String, String> options(String store) {
        return switch (store) {
            case "s3" -> {
                S3ProxyServer s = S3ProxyServer.get();
                s.createBucket("e2e");
                yield s.options();
            }
            case "azure" -> {
                AzuriteServer s = AzuriteServer.get();
                s.createContainer("e2e");
                yield s.options();
            }
            case "gcs" -> {
                GcsTestServer s = GcsServer.get();
                s.createBucket("e2e");
                yield GcsServer.options(s);
            }
            default -> throw new IllegalArgumentException(store);
        };
    }

    private static String uri(String store) {
        String scheme = switch (store) {
            case "s3" -> "s3";
            case "azure" -> "az";
            default -> "gs";
        };
        return scheme + "://e2e/ds-" + System.nanoTime() + ".lance";
    }

    @ParameterizedTest
    @ValueSource(strings = {"s3", "azure", "gcs"})
    void writeScanTakeDeleteTimeTravel(String store) {
        Map<String, String> opts = options(store);
        String uri = uri(store);
        try (Dataset v1 = Dataset.write(uri, opts, rows(alloc, 0, 1200, 400), schema(),
                WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(600)).block()) {
            assertThat(v1.fragments()).hasSize(2);
            List<List<String>> r = collect(v1.scanner().columns("id", "s.b").filter("id >= 598 AND id < 602").scan(alloc));
            // 598 % 13 == 0: a null struct
            assertThat(r).containsExactly(List.of("598", "null"), List.of("599", "{\"b\":\"b4\"}"),
                    List.of("600", "{\"b\":\"b0\"}"), List.of("601", "{\"b\":\"b1\"}"));
            List<List<String>> limited = collect(v1.scanner().columns("name").filter("score > 0.9").limit(3).scan(alloc));
            assertThat(limited).hasSize(3);
            try (VectorSchemaRoot t = v1.take(new long[] {1199, 0, 600}, List.of("id", "name"), alloc).block()) {
                assertThat(DatasetTestSupport.rowsOf(t)).containsExactly(List.of("1199", "n1199"), List.of("0", "n0"),
                        List.of("600", "n600"));
            }
            try (Dataset v2 = v1.delete("id < 100 OR id % 10 = 0").block()) {
                assertThat(v2.version()).isEqualTo(2);
                List<Long> ids = new ArrayList<>();
                collect(v2.scanner().columns("id").scan(alloc)).forEach(row -> ids.add(Long.parseLong(row.get(0))));
                assertThat(ids).hasSize(1100 - 110).doesNotContain(0L, 50L, 100L, 1190L).contains(101L, 1199L);
                // one store client per test: closing an S3 client under BlockHound waits out a Netty pool-close timeout
                try (Dataset reopened = v2.checkoutLatest().block(); Dataset old = reopened.checkout(1).block()) {
                    assertThat(reopened.version()).isEqualTo(2);
                    assertThat(reopened.count().block()).isEqualTo(990);
                    assertThat(old.count().block()).isEqualTo(1200);
                    assertThat(collect(old.scanner().columns("id").filter("id = 0").scan(alloc))).containsExactly(List.of("0"));
                }
            }
        }
    }
}
