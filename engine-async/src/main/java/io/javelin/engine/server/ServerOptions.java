package io.javelin.engine.server;

import java.time.Duration;

/**
 * Settings of {@link NamespaceServer}: where it listens ({@code port} 0: an ephemeral port), the request
 * size limits (a JSON body; a whole Arrow IPC body; one IPC message, i.e. one record batch), how long a
 * shutdown waits for in-flight requests, and whether each request is logged.
 */
public record ServerOptions(String host, int port, long maxJsonBytes, long maxBodyBytes, long maxMessageBytes,
                            Duration shutdownGrace, boolean logRequests) {

    public ServerOptions {
        if (host == null || host.isBlank()) {
            throw new IllegalArgumentException("host is required");
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port out of range: " + port);
        }
        if (maxJsonBytes <= 0 || maxBodyBytes <= 0 || maxMessageBytes <= 0) {
            throw new IllegalArgumentException("size limits must be positive");
        }
        if (shutdownGrace == null || shutdownGrace.isNegative()) {
            throw new IllegalArgumentException("shutdownGrace must be >= 0");
        }
    }

    /** 127.0.0.1:2333, JSON bodies up to 1 MiB, IPC bodies up to 4 GiB in batches up to 256 MiB, 30 s grace. */
    public static ServerOptions defaults() {
        return new ServerOptions("127.0.0.1", 2333, 1L << 20, 4L << 30, 256L << 20, Duration.ofSeconds(30), true);
    }

    public ServerOptions withHost(String h) {
        return new ServerOptions(h, port, maxJsonBytes, maxBodyBytes, maxMessageBytes, shutdownGrace, logRequests);
    }

    public ServerOptions withPort(int p) {
        return new ServerOptions(host, p, maxJsonBytes, maxBodyBytes, maxMessageBytes, shutdownGrace, logRequests);
    }

    public ServerOptions withLimits(long json, long body, long message) {
        return new ServerOptions(host, port, json, body, message, shutdownGrace, logRequests);
    }

    public ServerOptions withShutdownGrace(Duration d) {
        return new ServerOptions(host, port, maxJsonBytes, maxBodyBytes, maxMessageBytes, d, logRequests);
    }

    public ServerOptions withLogRequests(boolean on) {
        return new ServerOptions(host, port, maxJsonBytes, maxBodyBytes, maxMessageBytes, shutdownGrace, on);
    }
}
