package io.javelin.jmh.sidebyside;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The latency proxy delays each request's first response byte and counts requests (bodies with Content-Length and
 * chunked bodies are skipped, not taken for requests) and bytes in both directions.
 */
class LatencyProxyTest {

    @Test
    void delaysEachResponseAndCountsRequestsAndBytes() throws Exception {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        byte[] answer = "x".repeat(100_000).getBytes(StandardCharsets.US_ASCII);
        server.createContext("/", ex -> {
            try (InputStream in = ex.getRequestBody()) {
                byte[] body = in.readAllBytes();
                byte[] out = ex.getRequestMethod().equals("GET") ? answer : Integer.toString(body.length).getBytes(StandardCharsets.US_ASCII);
                ex.sendResponseHeaders(200, out.length);
                ex.getResponseBody().write(out);
            }
            ex.close();
        });
        server.start();
        try (LatencyProxy proxy = new LatencyProxy(new InetSocketAddress("127.0.0.1", server.getAddress().getPort()), 60)) {
            HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            URI uri = URI.create(proxy.endpoint() + "/o");
            byte[] upload = new byte[300_000];
            long t0 = System.nanoTime();
            HttpResponse<byte[]> get = client.send(HttpRequest.newBuilder(uri).GET().build(), HttpResponse.BodyHandlers.ofByteArray());
            long getMs = (System.nanoTime() - t0) / 1_000_000;
            HttpResponse<String> put = client.send(HttpRequest.newBuilder(uri).PUT(HttpRequest.BodyPublishers.ofByteArray(upload)).build(),
                    HttpResponse.BodyHandlers.ofString());
            // unknown length: sent chunked
            HttpResponse<String> chunked = client.send(HttpRequest.newBuilder(uri)
                    .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(upload))).build(),
                    HttpResponse.BodyHandlers.ofString());
            long allMs = (System.nanoTime() - t0) / 1_000_000;

            assertThat(get.body()).isEqualTo(answer);
            assertThat(put.body()).isEqualTo("300000");
            assertThat(chunked.body()).isEqualTo("300000");
            assertThat(getMs).isGreaterThanOrEqualTo(60);
            assertThat(allMs).isGreaterThanOrEqualTo(180);
            LatencyProxy.Traffic t = proxy.traffic();
            assertThat(t.requests()).isEqualTo(3);
            assertThat(t.bytesUp()).isBetween(600_000L, 610_000L);
            assertThat(t.bytesDown()).isBetween(100_000L, 101_000L);
        } finally {
            server.stop(0);
        }
    }
}
