package io.javelin.objectstore.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.javelin.objectstore.CreateIfAbsent;
import io.javelin.objectstore.ObjectAlreadyExistsException;
import io.javelin.objectstore.ObjectStore;
import io.javelin.objectstore.ObjectStores;
import io.javelin.objectstore.OpClass;
import io.javelin.objectstore.ThrottledException;
import io.javelin.objectstore.memory.Buffer;
import io.javelin.objectstore.servers.GcsServer;
import io.javelin.objectstore.servers.GcsTestServer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Faults at the HTTP level, through the real google-cloud-storage client: the GCS test server
 * answers 503/429 before applying a request, or applies it and then loses the response. Checks
 * that error classification works on real SDK exceptions (status and reason, not message text).
 */
class WireFaultTest {

    private GcsTestServer server;
    private ObjectStore store;
    private String base;

    @BeforeEach
    void setUp() {
        server = GcsServer.get();
        server.createBucket("faults");
        Map<String, String> o = new HashMap<>(GcsServer.options(server));
        o.put("lance_aimd_min_backoff_ms", "5");
        o.put("lance_aimd_max_backoff_ms", "10");
        store = ObjectStores.open("gs://faults", o, Map.of());
        base = "w-" + UUID.randomUUID() + "/";
    }

    @AfterEach
    void tearDown() {
        server.clearFaults();
        store.close();
    }

    private static <T> T await(Mono<T> m) {
        return m.subscribeOn(Schedulers.parallel()).block(Duration.ofSeconds(60));
    }

    @Test
    void aBurstOf503sIsRetriedAsThrottling() {
        var before = store.counters().snapshot();
        server.armFault(2, 503, "backendError", false, "POST", "uploadType=multipart");
        await(store.putIfAbsent(base + "a", "x".getBytes(StandardCharsets.UTF_8)));
        var d = store.counters().snapshot().minus(before);
        assertThat(d.throttles(OpClass.WRITE)).isEqualTo(2);
        assertThat(d.requests(OpClass.WRITE)).isEqualTo(3);
    }

    @Test
    void rateLimitExceededIsClassifiedFromTheReason() {
        server.armFault(50, 429, "rateLimitExceeded", false, "GET", base + "b");
        await(store.put(base + "b", "x".getBytes(StandardCharsets.UTF_8)));
        assertThatThrownBy(() -> await(store.head(base + "b")))
                .isInstanceOf(ThrottledException.class)
                .satisfies(e -> assertThat(((ThrottledException) e).errorCode()).isEqualTo("rateLimitExceeded"));
    }

    @Test
    void aLostResponseAfterTheCreateLandedIsResolvedAsOurWin() {
        byte[] ours = ("manifest-" + UUID.randomUUID()).getBytes(StandardCharsets.UTF_8);
        server.armFault(1, 503, "backendError", true, "POST", "uploadType=multipart");
        assertThatThrownBy(() -> await(store.putIfAbsent(base + "m", ours)))
                .isInstanceOf(ObjectAlreadyExistsException.class)
                .satisfies(e -> assertThat(((ObjectAlreadyExistsException) e).afterAmbiguousAttempt()).isTrue());
        server.armFault(1, 503, "backendError", true, "POST", "uploadType=multipart");
        var outcome = await(CreateIfAbsent.create(store, base + "m2", ours));
        assertThat(outcome).isInstanceOf(CreateIfAbsent.Won.class);
        assertThat(((CreateIfAbsent.Won) outcome).recoveredByReadBack()).isTrue();
        try (Buffer b = await(store.readAll(base + "m2"))) {
            assertThat(b.toByteArray()).isEqualTo(ours);
        }
    }

    @Test
    void someoneElsesWinIsNotMistakenForOurs() {
        await(store.putIfAbsent(base + "c", "theirs".getBytes(StandardCharsets.UTF_8)));
        server.armFault(1, 503, "backendError", false, "POST", "uploadType=multipart");
        var outcome = await(CreateIfAbsent.create(store, base + "c", "ours".getBytes(StandardCharsets.UTF_8)));
        assertThat(outcome).isInstanceOf(CreateIfAbsent.Lost.class);
    }
}
