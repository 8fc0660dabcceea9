package io.javelin.jmh.sidebyside;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP proxy on 127.0.0.1 in front of an HTTP/1.1 server that makes it look like a remote object store: the
 * first response byte of every request is held until {@code latencyMs} after the request's head arrived (a
 * first-byte latency per request, as a store across a network has), everything after it flows at once. It
 * also counts what clients send: requests (HTTP request heads, parsed, with {@code Content-Length} and chunked
 * bodies skipped), bytes up and bytes down.
 *
 * <p>One selector thread, non-blocking sockets; a connection's side stops being read while the other side's
 * outgoing queue holds more than {@link #HIGH_WATER} bytes, so a slow reader throttles its writer.
 */
final class LatencyProxy implements AutoCloseable {

    /** Bytes queued towards one side before the other side is no longer read. */
    static final int HIGH_WATER = 4 << 20;
    private static final int CHUNK = 256 * 1024;

    /** What clients sent through the proxy so far. */
    record Traffic(long requests, long bytesUp, long bytesDown) {
        Traffic minus(Traffic o) {
            return new Traffic(requests - o.requests, bytesUp - o.bytesUp, bytesDown - o.bytesDown);
        }
    }

    private final InetSocketAddress upstream;
    private final long latencyNanos;
    private final ServerSocketChannel server;
    private final Selector selector;
    private final Thread loop;
    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong bytesUp = new AtomicLong();
    private final AtomicLong bytesDown = new AtomicLong();
    private final List<Pipe> pipes = new ArrayList<>();
    private volatile boolean closed;

    LatencyProxy(InetSocketAddress upstream, long latencyMs) throws IOException {
        this.upstream = upstream;
        this.latencyNanos = latencyMs * 1_000_000L;
        this.selector = Selector.open();
        this.server = ServerSocketChannel.open();
        server.bind(new InetSocketAddress("127.0.0.1", 0), 1024);
        server.configureBlocking(false);
        server.register(selector, SelectionKey.OP_ACCEPT);
        this.loop = new Thread(this::run, "latency-proxy");
        loop.setDaemon(true);
        loop.start();
    }

    int port() {
        return server.socket().getLocalPort();
    }

    String endpoint() {
        return "http://127.0.0.1:" + port();
    }

    Traffic traffic() {
        return new Traffic(requests.get(), bytesUp.get(), bytesDown.get());
    }

    private void run() {
        try {
            while (!closed) {
                long now = System.nanoTime();
                long next = Long.MAX_VALUE;
                for (Pipe p : pipes) {
                    next = Math.min(next, p.releaseDue(now));
                }
                long waitMs = next == Long.MAX_VALUE ? 0 : Math.max(1, (next - now + 999_999) / 1_000_000);
                selector.select(waitMs);
                Iterator<SelectionKey> it = selector.selectedKeys().iterator();
                while (it.hasNext()) {
                    SelectionKey k = it.next();
                    it.remove();
                    try {
                        if (!k.isValid()) {
                            continue;
                        }
                        if (k.isAcceptable()) {
                            accept();
                            continue;
                        }
                        Side s = (Side) k.attachment();
                        if (k.isConnectable()) {
                            s.finishConnect();
                        }
                        if (k.isValid() && k.isReadable()) {
                            s.read();
                        }
                        if (k.isValid() && k.isWritable()) {
                            s.flush();
                        }
                    } catch (IOException | RuntimeException e) {
                        if (k.attachment() instanceof Side s) {
                            s.pipe.close();
                        }
                    }
                }
                pipes.removeIf(p -> p.closed);
            }
        } catch (IOException e) {
            if (!closed) {
                System.err.println("[latency-proxy] stopped: " + e);
            }
        }
    }

    private void accept() throws IOException {
        SocketChannel c;
        while ((c = server.accept()) != null) {
            c.configureBlocking(false);
            c.setOption(StandardSocketOptions.TCP_NODELAY, true);
            SocketChannel u = SocketChannel.open();
            u.configureBlocking(false);
            u.setOption(StandardSocketOptions.TCP_NODELAY, true);
            Pipe p = new Pipe(c, u);
            pipes.add(p);
            if (u.connect(upstream)) {
                p.server.finishConnect();
            } else {
                p.server.key = u.register(selector, SelectionKey.OP_CONNECT, p.server);
            }
        }
    }

    /** One client connection and its upstream connection. */
    private final class Pipe {
        final Side client;
        final Side server;
        final RequestParser parser = new RequestParser();
        /** When the oldest request still waiting for its first response byte arrived (nanoTime), in order. */
        final ArrayDeque<Long> awaiting = new ArrayDeque<>();
        /** Response bytes held back until {@link #holdUntil}. */
        long holdUntil = Long.MIN_VALUE;
        boolean closed;

        Pipe(SocketChannel c, SocketChannel u) throws IOException {
            client = new Side(this, c);
            server = new Side(this, u);
            client.peer = server;
            server.peer = client;
            client.key = c.register(selector, 0, client);
        }

        /** The time the held-back response bytes may go, or MAX_VALUE when nothing is held. */
        long releaseDue(long now) {
            if (closed || holdUntil == Long.MIN_VALUE) {
                return Long.MAX_VALUE;
            }
            if (holdUntil <= now) {
                holdUntil = Long.MIN_VALUE;
                try {
                    client.flush();
                } catch (IOException e) {
                    close();
                }
                return Long.MAX_VALUE;
            }
            return holdUntil;
        }

        void close() {
            if (closed) {
                return;
            }
            closed = true;
            client.closeChannel();
            server.closeChannel();
        }
    }

    /** One socket of a pipe: reads go to the peer's queue, the own queue is written out. */
    private final class Side {
        final Pipe pipe;
        final SocketChannel ch;
        final ArrayDeque<ByteBuffer> out = new ArrayDeque<>();
        long queued;
        Side peer;
        SelectionKey key;
        boolean connected;
        /** The peer reached end of stream: close the pipe once this side's queue is written. */
        boolean closeWhenFlushed;
        boolean eof;

        Side(Pipe pipe, SocketChannel ch) {
            this.pipe = pipe;
            this.ch = ch;
        }

        boolean isClient() {
            return this == pipe.client;
        }

        void finishConnect() throws IOException {
            if (!ch.isConnected()) {
                ch.finishConnect();
            }
            connected = true;
            key = key == null ? ch.register(selector, 0, this) : key;
            peer.connected = true;
            updateInterest();
            peer.updateInterest();
        }

        void read() throws IOException {
            ByteBuffer b = ByteBuffer.allocate(CHUNK);
            int n = ch.read(b);
            if (n < 0) {
                // deliver what is queued (a held response, too) before closing the other side
                eof = true;
                peer.closeWhenFlushed = true;
                updateInterest();
                peer.flush();
                return;
            }
            if (n == 0) {
                return;
            }
            b.flip();
            long now = System.nanoTime();
            if (isClient()) {
                bytesUp.addAndGet(n);
                int heads = pipe.parser.feed(b.duplicate());
                for (int i = 0; i < heads; i++) {
                    pipe.awaiting.add(now);
                }
                requests.addAndGet(heads);
            } else {
                bytesDown.addAndGet(n);
                // The first response bytes after a request head: held until the request's latency is over.
                Long asked = pipe.awaiting.poll();
                if (asked != null && asked + latencyNanos > now) {
                    pipe.holdUntil = Math.max(pipe.holdUntil, asked + latencyNanos);
                }
                pipe.awaiting.clear(); // clients do not pipeline: a response answers every request sent before it
            }
            peer.out.add(b);
            peer.queued += n;
            peer.flush();
            updateInterest();
        }

        void flush() throws IOException {
            if (!connected || (isClient() && pipe.holdUntil != Long.MIN_VALUE)) {
                updateInterest();
                return;
            }
            while (!out.isEmpty()) {
                ByteBuffer b = out.peek();
                int n = ch.write(b);
                queued -= n;
                if (b.hasRemaining()) {
                    break;
                }
                out.poll();
            }
            if (out.isEmpty() && closeWhenFlushed) {
                pipe.close();
                return;
            }
            updateInterest();
            peer.updateInterest();
        }

        void updateInterest() {
            if (key == null || !key.isValid() || !connected) {
                return;
            }
            int ops = 0;
            if (!eof && peer.queued < HIGH_WATER) {
                ops |= SelectionKey.OP_READ;
            }
            boolean held = isClient() && pipe.holdUntil != Long.MIN_VALUE;
            if (!out.isEmpty() && !held) {
                ops |= SelectionKey.OP_WRITE;
            }
            key.interestOps(ops);
        }

        void closeChannel() {
            try {
                ch.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
    }

    /**
     * Finds HTTP/1.1 request heads in a client's byte stream: a head ends at CRLF CRLF, then its body is skipped
     * ({@code Content-Length} bytes, or chunked until the last chunk and its trailer).
     */
    static final class RequestParser {
        private enum State { HEAD, BODY, CHUNK_SIZE, CHUNK_DATA, CHUNK_CRLF, TRAILER }

        private State state = State.HEAD;
        private final StringBuilder line = new StringBuilder();
        private final StringBuilder head = new StringBuilder();
        private long remaining;

        /** Consumes {@code b}; returns how many request heads ended in it. */
        int feed(ByteBuffer b) {
            int heads = 0;
            while (b.hasRemaining()) {
                switch (state) {
                    case HEAD -> {
                        char c = (char) (b.get() & 0xff);
                        head.append(c);
                        int n = head.length();
                        if (n >= 4 && head.charAt(n - 1) == '\n' && head.charAt(n - 2) == '\r' && head.charAt(n - 3) == '\n'
                                && head.charAt(n - 4) == '\r') {
                            if (n > 4) {
                                heads++;
                                startBody(head.toString());
                            }
                            head.setLength(0);
                        }
                    }
                    case BODY -> {
                        int n = (int) Math.min(remaining, b.remaining());
                        b.position(b.position() + n);
                        remaining -= n;
                        if (remaining == 0) {
                            state = State.HEAD;
                        }
                    }
                    case CHUNK_SIZE, CHUNK_CRLF, TRAILER -> {
                        char c = (char) (b.get() & 0xff);
                        if (c != '\n') {
                            line.append(c);
                            continue;
                        }
                        String l = line.toString().trim();
                        line.setLength(0);
                        if (state == State.CHUNK_CRLF) {
                            state = State.CHUNK_SIZE;
                        } else if (state == State.TRAILER) {
                            if (l.isEmpty()) {
                                state = State.HEAD;
                            }
                        } else {
                            int semi = l.indexOf(';');
                            long size = Long.parseLong(semi >= 0 ? l.substring(0, semi).trim() : l, 16);
                            if (size == 0) {
                                state = State.TRAILER;
                            } else {
                                remaining = size;
                                state = State.CHUNK_DATA;
                            }
                        }
                    }
                    case CHUNK_DATA -> {
                        int n = (int) Math.min(remaining, b.remaining());
                        b.position(b.position() + n);
                        remaining -= n;
                        if (remaining == 0) {
                            state = State.CHUNK_CRLF;
                        }
                    }
                    default -> throw new IllegalStateException(state.name());
                }
            }
            return heads;
        }

        private void startBody(String h) {
            long length = 0;
            boolean chunked = false;
            for (String l : h.split("\r\n")) {
                int colon = l.indexOf(':');
                if (colon <= 0) {
                    continue;
                }
                String name = l.substring(0, colon).trim();
                String value = l.substring(colon + 1).trim();
                if (name.equalsIgnoreCase("Content-Length")) {
                    length = Long.parseLong(value);
                } else if (name.equalsIgnoreCase("Transfer-Encoding") && value.toLowerCase().contains("chunked")) {
                    chunked = true;
                }
            }
            if (chunked) {
                state = State.CHUNK_SIZE;
            } else if (length > 0) {
                remaining = length;
                state = State.BODY;
            } else {
                state = State.HEAD;
            }
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        selector.wakeup();
        try {
            loop.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (SelectionKey k : selector.keys()) {
            if (k.attachment() instanceof Side s) {
                s.closeChannel();
            }
        }
        server.close();
        selector.close();
    }
}
