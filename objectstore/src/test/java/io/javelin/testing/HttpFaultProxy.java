package io.javelin.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * A tiny HTTP/1.1 fault proxy on 127.0.0.1 in front of a local test server (s3proxy, Azurite): each
 * client connection carries one request, which is read whole and then either forwarded to the
 * upstream (with {@code Connection: close}, the response relayed until the upstream closes) or hit by
 * a fault. Faults happen on the wire, so the SDK's own retry code runs (and, above it, ours):
 *
 * <ul>
 *   <li>{@code BUSY}: a 503 with the store's throttling error ({@code SlowDown} / {@code ServerBusy}), not forwarded;</li>
 *   <li>{@code RESET}: the connection is reset before forwarding (TCP RST);</li>
 *   <li>{@code DELAY}: forwarded after a pause;</li>
 *   <li>{@code LOST_RESPONSE}: forwarded and applied, then the client connection is reset instead of the answer.</li>
 * </ul>
 *
 * {@code Expect: 100-continue} is answered by the proxy itself. Test code only; blocking sockets on
 * plain threads.
 */
public final class HttpFaultProxy implements AutoCloseable {

    public enum Fault { BUSY, RESET, DELAY, LOST_RESPONSE }

    /** Decides the fault for one request (null = forward untouched). */
    public interface Policy {
        Fault decide(String requestLine);
    }

    private final ServerSocket server;
    private final InetSocketAddress upstream;
    private final boolean azure;
    private final ExecutorService pool = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "http-fault-proxy");
        t.setDaemon(true);
        return t;
    });
    private volatile Policy policy = line -> null;
    public final AtomicLong requests = new AtomicLong();
    public final AtomicLong[] injected = {new AtomicLong(), new AtomicLong(), new AtomicLong(), new AtomicLong()};

    /** @param azure answer BUSY as Azure does (ServerBusy), else as S3 (SlowDown) */
    public HttpFaultProxy(int upstreamPort, boolean azure) throws IOException {
        this.upstream = new InetSocketAddress(InetAddress.getLoopbackAddress(), upstreamPort);
        this.azure = azure;
        this.server = new ServerSocket(0, 200, InetAddress.getLoopbackAddress());
        pool.execute(this::acceptLoop);
    }

    public int port() {
        return server.getLocalPort();
    }

    public HttpFaultProxy policy(Policy p) {
        this.policy = p;
        return this;
    }

    /** Each request gets a fault with probability {@code rate}, spread over the four kinds. */
    public static Policy random(double rate, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        return line -> {
            synchronized (rnd) {
                if (rnd.nextDouble() >= rate) {
                    return null;
                }
                return Fault.values()[rnd.nextInt(4)];
            }
        };
    }

    /** Fails the first {@code n} requests whose request line matches, with {@code fault}. */
    public static Policy firstN(int n, Predicate<String> match, Fault fault) {
        AtomicLong left = new AtomicLong(n);
        return line -> match.test(line) && left.getAndDecrement() > 0 ? fault : null;
    }

    public long injectedTotal() {
        long n = 0;
        for (AtomicLong a : injected) {
            n += a.get();
        }
        return n;
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                pool.execute(() -> handle(client));
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void handle(Socket client) {
        try (client) {
            client.setSoTimeout(30_000);
            InputStream in = client.getInputStream();
            OutputStream out = client.getOutputStream();
            String head = readHead(in);
            if (head == null) {
                return;
            }
            requests.incrementAndGet();
            String requestLine = head.substring(0, head.indexOf("\r\n"));
            StringBuilder fwd = new StringBuilder(requestLine).append("\r\n");
            long contentLength = -1;
            boolean chunked = false;
            boolean expect = false;
            for (String h : head.substring(head.indexOf("\r\n") + 2).split("\r\n")) {
                if (h.isEmpty()) {
                    continue;
                }
                String name = h.substring(0, h.indexOf(':')).trim().toLowerCase(Locale.ROOT);
                String value = h.substring(h.indexOf(':') + 1).trim();
                switch (name) {
                    case "content-length" -> contentLength = Long.parseLong(value);
                    case "transfer-encoding" -> chunked = value.toLowerCase(Locale.ROOT).contains("chunked");
                    case "expect" -> {
                        expect = value.equalsIgnoreCase("100-continue");
                        continue;
                    }
                    case "connection" -> {
                        continue;
                    }
                    default -> {
                    }
                }
                fwd.append(h).append("\r\n");
            }
            fwd.append("Connection: close\r\n\r\n");
            Fault fault = policy.decide(requestLine);
            if (fault == Fault.BUSY || fault == Fault.RESET) {
                injected[fault.ordinal()].incrementAndGet();
                if (fault == Fault.RESET) {
                    client.setSoLinger(true, 0);
                    return;
                }
                out.write(busy());
                out.flush();
                return;
            }
            if (expect) {
                out.write("HTTP/1.1 100 Continue\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                out.flush();
            }
            byte[] body = chunked ? readChunked(in) : readN(in, Math.max(0, contentLength));
            if (fault == Fault.DELAY) {
                injected[fault.ordinal()].incrementAndGet();
                Thread.sleep(150);
            }
            try (Socket up = new Socket()) {
                up.connect(upstream, 5_000);
                up.setSoTimeout(60_000);
                OutputStream uo = up.getOutputStream();
                uo.write(fwd.toString().getBytes(StandardCharsets.ISO_8859_1));
                uo.write(body);
                uo.flush();
                byte[] response = up.getInputStream().readAllBytes(); // upstream closes after one response
                if (fault == Fault.LOST_RESPONSE) {
                    injected[fault.ordinal()].incrementAndGet();
                    client.setSoLinger(true, 0);
                    return;
                }
                out.write(response);
                out.flush();
            }
        } catch (IOException e) {
            // the client gave up or the upstream failed: the client sees a broken connection
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private byte[] busy() {
        String code = azure ? "ServerBusy" : "SlowDown";
        String body = "<?xml version=\"1.0\" encoding=\"utf-8\"?><Error><Code>" + code
                + "</Code><Message>injected by HttpFaultProxy</Message><RequestId>fault</RequestId></Error>";
        String head = "HTTP/1.1 503 " + (azure ? "The server is busy." : "Slow Down") + "\r\n"
                + "Content-Type: application/xml\r\n"
                + (azure ? "x-ms-error-code: ServerBusy\r\nx-ms-request-id: fault\r\n" : "x-amz-request-id: fault\r\n")
                + "Content-Length: " + body.getBytes(StandardCharsets.UTF_8).length + "\r\n"
                + "Connection: close\r\n\r\n";
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.writeBytes(head.getBytes(StandardCharsets.US_ASCII));
        b.writeBytes(body.getBytes(StandardCharsets.UTF_8));
        return b.toByteArray();
    }

    /** Request line and headers up to the blank line (ISO-8859-1), or null on EOF before a request. */
    private static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int state = 0;
        while (state < 4) {
            int c = in.read();
            if (c < 0) {
                return null; // EOF before a complete head: nothing to forward
            }
            b.write(c);
            state = (c == '\r' && (state == 0 || state == 2)) || (c == '\n' && (state == 1 || state == 3)) ? state + 1
                    : c == '\r' ? 1 : 0;
            if (b.size() > 64 * 1024) {
                throw new IOException("request head too large");
            }
        }
        return b.toString(StandardCharsets.ISO_8859_1);
    }

    private static byte[] readN(InputStream in, long n) throws IOException {
        byte[] b = in.readNBytes((int) n);
        if (b.length != n) {
            throw new IOException("short body");
        }
        return b;
    }

    /** A chunked body, kept in its chunked framing (it is forwarded as is). */
    private static byte[] readChunked(InputStream in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        while (true) {
            String size = readLine(in);
            out.writeBytes((size + "\r\n").getBytes(StandardCharsets.US_ASCII));
            int semi = size.indexOf(';');
            long n = Long.parseLong((semi >= 0 ? size.substring(0, semi) : size).trim(), 16);
            if (n == 0) {
                while (true) { // trailers up to the blank line
                    String t = readLine(in);
                    out.writeBytes((t + "\r\n").getBytes(StandardCharsets.US_ASCII));
                    if (t.isEmpty()) {
                        return out.toByteArray();
                    }
                }
            }
            out.writeBytes(readN(in, n));
            out.writeBytes(readN(in, 2)); // CRLF
        }
    }

    private static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int prev = -1;
        while (true) {
            int c = in.read();
            if (c < 0) {
                throw new IOException("EOF in chunked body");
            }
            if (prev == '\r' && c == '\n') {
                byte[] a = b.toByteArray();
                return new String(a, 0, a.length - 1, StandardCharsets.US_ASCII);
            }
            b.write(c);
            prev = c;
        }
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException e) {
            // ignore
        }
        pool.shutdownNow();
    }
}
