package io.javelin.objectstore.servers;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/** Helpers for test servers started as child processes: free ports, readiness, logs, cleanup. */
final class ChildProcesses {

    private ChildProcesses() {
    }

    static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException("no free port on 127.0.0.1", e);
        }
    }

    static Path workDir(String name) throws IOException {
        Path d = Path.of(System.getProperty("javelin.test.workdir", "target/test-work"), name).toAbsolutePath();
        Files.createDirectories(d);
        return d;
    }

    /** Waits until 127.0.0.1:port accepts connections; fails with the log tail if the process dies or time runs out. */
    static void awaitPort(String name, Process p, int port, Duration timeout, Path log) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!p.isAlive()) {
                throw new IllegalStateException(name + " exited with " + p.exitValue() + " before listening on " + port
                        + "; log tail:\n" + tail(log));
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return;
            } catch (IOException e) {
                try {
                    Thread.sleep(100);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted waiting for " + name, ie);
                }
            }
        }
        p.destroyForcibly();
        throw new IllegalStateException(name + " did not listen on 127.0.0.1:" + port + " within " + timeout
                + "; log tail:\n" + tail(log));
    }

    /** Stops the process (and its children) when the test JVM exits. */
    static void stopOnExit(String name, Process p) {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            p.descendants().forEach(ProcessHandle::destroy);
            p.destroy();
            try {
                if (!p.waitFor(5, java.util.concurrent.TimeUnit.SECONDS)) {
                    p.descendants().forEach(ProcessHandle::destroyForcibly);
                    p.destroyForcibly();
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
            }
        }, "stop-" + name));
    }

    static String tail(Path log) {
        try {
            var lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }
}
