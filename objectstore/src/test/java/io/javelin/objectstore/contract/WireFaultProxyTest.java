package io.javelin.objectstore.contract;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.objectstore.CreateIfAbsent;
import io.javelin.objectstore.ObjectStore;
import io.javelin.objectstore.ObjectStores;
import io.javelin.objectstore.memory.Buffer;
import io.javelin.objectstore.servers.AzuriteServer;
import io.javelin.objectstore.servers.S3ProxyServer;
import io.javelin.testing.HttpFaultProxy;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Wire-level faults for S3 (s3proxy) and Azure (Azurite): {@link HttpFaultProxy} sits on 127.0.0.1
 * between the SDK and the server and answers 503 SlowDown/ServerBusy, resets connections, delays
 * requests and drops responses after the server applied them. The SDKs' own retry paths run under
 * our retry/AIMD layer; nothing that succeeded is reported failed, nothing failed is reported done.
 */
class WireFaultProxyTest {

    private static <T> T await(Mono<T> m) {
        return m.subscribeOn(Schedulers.parallel()).block(Duration.ofSeconds(120));
    }

    private record Setup(ObjectStore store, HttpFaultProxy proxy) implements AutoCloseable {
        @Override
        public void close() {
            store.close();
            proxy.close();
        }
    }

    private static Setup open(String kind) throws Exception {
        Map<String, String> o = new HashMap<>();
        String uri;
        HttpFaultProxy proxy;
        String prefix = "wire-" + UUID.randomUUID();
        if (kind.equals("s3")) {
            S3ProxyServer s = S3ProxyServer.get();
            s.createBucket("wire");
            proxy = new HttpFaultProxy(URI.create(s.endpoint()).getPort(), false);
            o.putAll(s.options());
            o.put("aws_endpoint", "http://127.0.0.1:" + proxy.port());
            uri = "s3://wire/" + prefix;
        } else {
            AzuriteServer s = AzuriteServer.get();
            s.createContainer("wire");
            proxy = new HttpFaultProxy(URI.create(s.endpoint()).getPort(), true);
            o.putAll(s.options());
            o.put("azure_endpoint", "http://127.0.0.1:" + proxy.port() + "/" + AzuriteServer.ACCOUNT);
            uri = "az://wire/" + prefix;
        }
        o.put("lance_aimd_min_backoff_ms", "2");
        o.put("lance_aimd_max_backoff_ms", "50");
        return new Setup(ObjectStores.open(uri, o, Map.of("LANCE_INITIAL_UPLOAD_SIZE", Long.toString(5L << 20))), proxy);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"s3", "azure"})
    void randomWireFaultsNeverCorruptOrMisreport(String kind) throws Exception {
        try (Setup s = open(kind)) {
            s.proxy().policy(HttpFaultProxy.random(0.15, kind.hashCode()));
            List<Integer> ids = Flux.range(0, 20).collectList().block();
            Flux.fromIterable(ids).flatMap(i -> s.store().put("o/" + i, ("v" + i).getBytes(StandardCharsets.UTF_8)), 4)
                    .then().subscribeOn(Schedulers.parallel()).block(Duration.ofSeconds(120));
            for (int i : ids) {
                try (Buffer b = await(s.store().readAll("o/" + i))) {
                    assertThat(new String(b.toByteArray(), StandardCharsets.UTF_8)).isEqualTo("v" + i);
                }
            }
            assertThat(await(s.store().list("o/").collectList())).hasSize(20);
            // create-if-absent under faults: exactly one of two contenders wins, the other is told so
            var a = await(CreateIfAbsent.create(s.store(), "m/1", "a".getBytes(StandardCharsets.UTF_8)));
            var b = await(CreateIfAbsent.create(s.store(), "m/1", "b".getBytes(StandardCharsets.UTF_8)));
            assertThat(a).isInstanceOf(CreateIfAbsent.Won.class);
            assertThat(b).isInstanceOf(CreateIfAbsent.Lost.class);
            System.out.printf("[wire] %s: %d requests through the proxy, injected busy %d, reset %d, delay %d, lost %d%n", kind,
                    s.proxy().requests.get(), s.proxy().injected[0].get(), s.proxy().injected[1].get(),
                    s.proxy().injected[2].get(), s.proxy().injected[3].get());
            assertThat(s.proxy().injectedTotal()).isPositive();
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"s3", "azure"})
    void aLostCreateResponseIsResolvedAsOurWin(String kind) throws Exception {
        try (Setup s = open(kind)) {
            byte[] ours = ("manifest-" + UUID.randomUUID()).getBytes(StandardCharsets.UTF_8);
            s.proxy().policy(HttpFaultProxy.firstN(1, l -> l.startsWith("PUT") && (l.contains("/m2 ") || l.contains("%2Fm2 ") || l.contains("/m2?") || l.contains("%2Fm2?")),
                    HttpFaultProxy.Fault.LOST_RESPONSE));
            var outcome = await(CreateIfAbsent.create(s.store(), "m2", ours));
            assertThat(outcome).isInstanceOf(CreateIfAbsent.Won.class);
            assertThat(s.proxy().injected[HttpFaultProxy.Fault.LOST_RESPONSE.ordinal()].get()).isEqualTo(1);
            try (Buffer b = await(s.store().readAll("m2"))) {
                assertThat(b.toByteArray()).isEqualTo(ours);
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"s3", "azure"})
    void aMultipartUploadWhosePartFailsOnceIsRetried(String kind) throws Exception {
        try (Setup s = open(kind)) {
            String partMarker = kind.equals("s3") ? "partNumber=2" : "comp=block";
            s.proxy().policy(HttpFaultProxy.firstN(1, l -> l.startsWith("PUT") && l.contains(partMarker),
                    HttpFaultProxy.Fault.RESET));
            byte[] data = new byte[11 << 20];
            new Random(5).nextBytes(data);
            Flux<ByteBuffer> chunks = Flux.range(0, 11).map(i -> ByteBuffer.wrap(data, i << 20, 1 << 20));
            await(s.store().put("big.bin", chunks));
            assertThat(s.proxy().injected[HttpFaultProxy.Fault.RESET.ordinal()].get()).isEqualTo(1);
            try (Buffer b = await(s.store().readAll("big.bin"))) {
                assertThat(b.toByteArray()).isEqualTo(data);
            }
        }
    }

    /** The response of CompleteMultipartUpload is lost: the retry meets NoSuchUpload, yet the write happened. */
    @Test
    void aLostCompleteMultipartResponseIsNotReportedAsAFailure() throws Exception {
        try (Setup s = open("s3")) {
            s.proxy().policy(HttpFaultProxy.firstN(1, l -> l.startsWith("POST") && l.contains("uploadId="),
                    HttpFaultProxy.Fault.LOST_RESPONSE));
            byte[] data = new byte[11 << 20];
            new Random(7).nextBytes(data);
            await(s.store().put("big2.bin", Flux.range(0, 11).map(i -> ByteBuffer.wrap(data, i << 20, 1 << 20))));
            assertThat(s.proxy().injected[HttpFaultProxy.Fault.LOST_RESPONSE.ordinal()].get()).isEqualTo(1);
            try (Buffer b = await(s.store().readAll("big2.bin"))) {
                assertThat(b.toByteArray()).isEqualTo(data);
            }
            // create-if-absent: the store cannot tell whose object it is, so it must not claim a plain loss
            s.proxy().policy(HttpFaultProxy.firstN(1, l -> l.startsWith("POST") && l.contains("uploadId="),
                    HttpFaultProxy.Fault.LOST_RESPONSE));
            try {
                await(s.store().putIfAbsent("big3.bin", Flux.range(0, 11).map(i -> ByteBuffer.wrap(data, i << 20, 1 << 20))));
            } catch (io.javelin.objectstore.ObjectAlreadyExistsException e) {
                assertThat(e.afterAmbiguousAttempt()).isTrue();
            }
            try (Buffer b = await(s.store().readAll("big3.bin"))) {
                assertThat(b.toByteArray()).isEqualTo(data);
            }
        }
    }
}
