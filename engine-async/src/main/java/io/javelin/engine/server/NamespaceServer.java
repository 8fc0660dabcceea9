package io.javelin.engine.server;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javelin.engine.namespace.LanceNamespace;
import io.javelin.engine.namespace.NamespaceErrorCode;
import io.javelin.engine.namespace.NamespaceErrors;
import io.javelin.engine.namespace.NamespaceException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.reactivestreams.Publisher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;
import reactor.netty.http.server.HttpServerRequest;
import reactor.netty.http.server.HttpServerResponse;

/**
 * {@code javelin serve}: the Lance REST namespace over a {@link LanceNamespace} on reactor-netty. Every
 * request runs on the event loop as one Reactor pipeline (no thread per request): JSON bodies are read up
 * to a limit, Arrow IPC bodies are decoded batch by batch into the write, query results are encoded batch by
 * batch as the connection takes them. Errors answer the spec's body {@code {"error", "code", "instance"}}
 * with its status, never a stack trace. Also {@code GET /health} and {@code GET /metrics} (Prometheus text).
 */
public final class NamespaceServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(NamespaceServer.class);

    private final LanceNamespace namespace;
    private final ServerOptions options;
    private final BufferAllocator allocator = new RootAllocator();
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final RestRouter router;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicBoolean draining = new AtomicBoolean();
    private final Counter bytesIn;
    private final Counter bytesOut;
    private final io.netty.channel.group.ChannelGroup connections =
            new io.netty.channel.group.DefaultChannelGroup(io.netty.util.concurrent.GlobalEventExecutor.INSTANCE);
    private DisposableServer server;

    private NamespaceServer(LanceNamespace namespace, ServerOptions options) {
        this.namespace = namespace;
        this.options = options;
        this.router = new RestRouter(namespace, allocator, options);
        this.bytesIn = Counter.builder("javelin.server.request.bytes").description("request body bytes").register(registry);
        this.bytesOut = Counter.builder("javelin.server.response.bytes").description("response body bytes").register(registry);
        registry.gauge("javelin.server.inflight", inFlight);
    }

    /** Binds and starts serving {@code namespace} (owned by the caller; not closed by the server). */
    public static Mono<NamespaceServer> start(LanceNamespace namespace, ServerOptions options) {
        NamespaceServer s = new NamespaceServer(namespace, options);
        return HttpServer.create()
                .host(options.host())
                .port(options.port())
                .httpRequestDecoder(spec -> spec.maxInitialLineLength(16 * 1024).maxHeaderSize(16 * 1024))
                .channelGroup(s.connections)
                .handle(s::handle)
                .bind()
                .map(ds -> {
                    s.server = ds;
                    return s;
                });
    }

    public int port() {
        return server.port();
    }

    public String host() {
        return options.host();
    }

    public PrometheusMeterRegistry registry() {
        return registry;
    }

    /** Arrow memory the server holds now for request and response batches (0 when idle). */
    public long arrowBytesInUse() {
        return allocator.getAllocatedMemory();
    }

    /** The most Arrow memory the server has held at once. */
    public long arrowPeakBytes() {
        return allocator.getPeakMemoryAllocation();
    }

    /** Requests being served now. */
    public int inFlight() {
        return inFlight.get();
    }

    private Publisher<Void> handle(HttpServerRequest req, HttpServerResponse res) {
        long start = System.nanoTime();
        String uri = req.uri();
        RequestPath path;
        try {
            path = RequestPath.parse(uri);
        } catch (RuntimeException e) {
            return error(res, new NamespaceException(NamespaceErrorCode.INVALID_INPUT, "Malformed request URI"), "/", "bad_uri", start, req);
        }
        String instance = path.segments().isEmpty() ? "/" : "/" + String.join("/", path.segments());
        if (req.method().equals(HttpMethod.GET) && path.segments().size() == 1 && path.segments().getFirst().equals("health")) {
            return send(res, 200, "application/json", (draining.get() ? "{\"status\":\"draining\"}" : "{\"status\":\"ok\"}"), "health", start, req);
        }
        if (req.method().equals(HttpMethod.GET) && path.segments().size() == 1 && path.segments().getFirst().equals("metrics")) {
            return send(res, 200, "text/plain; version=0.0.4; charset=utf-8", registry.scrape(), "metrics", start, req);
        }
        String op = RestRouter.operationName(path);
        if (draining.get()) {
            return error(res, new NamespaceException(NamespaceErrorCode.SERVICE_UNAVAILABLE, "The server is shutting down"), instance, op, start, req);
        }
        long declared = contentLength(req);
        boolean arrow = RestRouter.hasArrowBody(path) && req.method().equals(HttpMethod.POST);
        long limit = arrow ? options.maxBodyBytes() : options.maxJsonBytes();
        if (declared > limit) {
            return error(res, tooLarge(limit), instance, op, start, req);
        }
        inFlight.incrementAndGet();
        AtomicLong received = new AtomicLong();
        Flux<byte[]> body = req.receive().asByteArray().handle((b, sink) -> {
            bytesIn.increment(b.length);
            if (received.addAndGet(b.length) > limit) {
                sink.error(tooLarge(limit));
            } else {
                sink.next(b);
            }
        });
        Mono<Reply> reply = arrow ? router.arrow(path, body)
                : body.collectList().map(NamespaceServer::concat).flatMap(bytes -> router.json(req.method().name(), path, bytes));
        return reply
                .flatMap(r -> write(res, r, op, start, req))
                .onErrorResume(e -> res.hasSentHeaders() ? Mono.error(e) : error(res, e, instance, op, start, req))
                .doFinally(sig -> inFlight.decrementAndGet());
    }

    private static NamespaceException tooLarge(long limit) {
        return new NamespaceException(NamespaceErrorCode.INVALID_INPUT, "Request body exceeds the limit of " + limit + " bytes");
    }

    private static long contentLength(HttpServerRequest req) {
        String v = req.requestHeaders().get(HttpHeaderNames.CONTENT_LENGTH);
        if (v == null) {
            return -1;
        }
        try {
            return Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static byte[] concat(java.util.List<byte[]> parts) {
        int n = 0;
        for (byte[] p : parts) {
            n += p.length;
        }
        byte[] out = new byte[n];
        int at = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, out, at, p.length);
            at += p.length;
        }
        return out;
    }

    private Mono<Void> write(HttpServerResponse res, Reply r, String op, long start, HttpServerRequest req) {
        if (r.arrow() != null) {
            // wait for the first chunk so an error before any row still gets a proper error response
            return r.arrow().switchOnFirst((first, all) -> {
                if (first.isOnError()) {
                    return all.then().flux().cast(Void.class);
                }
                Flux<ByteBuf> bufs = all.map(b -> {
                    bytesOut.increment(b.length);
                    return Unpooled.wrappedBuffer(b);
                });
                return res.status(200).header(HttpHeaderNames.CONTENT_TYPE, "application/vnd.apache.arrow.file")
                        .send(bufs).then().doOnSuccess(v -> record(op, 200, start, req)).flux();
            }).then();
        }
        if (r.json() == null) {
            record(op, r.status(), start, req);
            return res.status(r.status()).send().then();
        }
        return send(res, r.status(), "application/json", r.json().toString(), op, start, req);
    }

    private Mono<Void> send(HttpServerResponse res, int status, String type, String body, String op, long start, HttpServerRequest req) {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        bytesOut.increment(b.length);
        record(op, status, start, req);
        return res.status(status).header(HttpHeaderNames.CONTENT_TYPE, type)
                .header(HttpHeaderNames.CONTENT_LENGTH, Integer.toString(b.length))
                .sendByteArray(Mono.just(b)).then();
    }

    private Mono<Void> error(HttpServerResponse res, Throwable e, String instance, String op, long start, HttpServerRequest req) {
        NamespaceException ne = NamespaceErrors.map(e, null);
        if (ne.code() == NamespaceErrorCode.INTERNAL) {
            LOG.warn("{} {} failed: {}", req.method(), instance, e.toString(), e);
        }
        ObjectNode o = RestRouter.obj().put("error", ne.getMessage() == null ? ne.code().name() : ne.getMessage())
                .put("code", ne.code().code()).put("type", ne.code().name()).put("instance", instance);
        return send(res, ne.code().httpStatus(), "application/json", o.toString(), op, start, req);
    }

    private void record(String op, int status, long start, HttpServerRequest req) {
        long nanos = System.nanoTime() - start;
        Timer.builder("javelin.server.requests").tag("operation", op).tag("status", Integer.toString(status))
                .publishPercentiles(0.5, 0.99).register(registry).record(Duration.ofNanos(nanos));
        if (options.logRequests()) {
            LOG.info("{} {} {} {} ms", req.method(), op, status, nanos / 1_000_000);
        }
    }

    /**
     * Graceful shutdown: new requests get 503 at once, in-flight ones get up to the grace period, then the
     * listener and connections close.
     */
    public Mono<Void> shutdown() {
        return Mono.defer(() -> {
            draining.set(true);
            Duration grace = options.shutdownGrace();
            return Flux.interval(Duration.ofMillis(20)).filter(t -> inFlight.get() == 0).next().then()
                    .timeout(grace, Mono.empty())
                    .then(Mono.fromRunnable(() -> {
                        if (server != null) {
                            server.dispose();
                        }
                    }))
                    .then(server == null ? Mono.empty() : server.onDispose())
                    // idle keep-alive connections would otherwise keep answering
                    .then(Mono.<Void>create(sink -> connections.close().addListener(f -> sink.success())));
        });
    }

    @Override
    public void close() {
        draining.set(true);
        if (server != null) {
            server.dispose();
        }
        connections.close();
        registry.close();
        try {
            allocator.close();
        } catch (IllegalStateException e) {
            // batches of requests cut off by the close are still being released
            LOG.warn("closing with Arrow memory still in use: {}", e.getMessage());
        }
    }
}
