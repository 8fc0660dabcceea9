package io.javelin.jmh.sidebyside;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * S3Proxy 4.1.0 with its filesystem backend (objects are files under {@code baseDir/bucket/}) on 127.0.0.1, as
 * a child JVM, as the objectstore tests run it. Not in this JVM: the S3Proxy jar bundles unshaded copies of the
 * AWS SDK, Reactor, Jackson and protobuf that would clash with the engines' own, and a child keeps the server's
 * CPU out of the runner's process CPU figures.
 */
final class S3ProxyProcess implements AutoCloseable {

    static final String KEY = "benchkey";
    static final String SECRET = "benchsecret";

    private final Process process;
    private final int port;
    private final Path baseDir;

    private S3ProxyProcess(Process process, int port, Path baseDir) {
        this.process = process;
        this.port = port;
        this.baseDir = baseDir;
    }

    /** Starts the server on a free port with objects under {@code baseDir}; waits until it accepts connections. */
    static S3ProxyProcess start(Path baseDir) throws IOException, InterruptedException {
        Path jar = jar();
        Files.createDirectories(baseDir);
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Path conf = baseDir.resolve("s3proxy.conf");
        Files.writeString(conf, String.join("\n",
                "s3proxy.endpoint=http://127.0.0.1:" + port,
                "s3proxy.authorization=aws-v2-or-v4",
                "s3proxy.identity=" + KEY,
                "s3proxy.credential=" + SECRET,
                "jclouds.provider=filesystem",
                "jclouds.filesystem.basedir=" + baseDir.resolve("buckets"), ""));
        Files.createDirectories(baseDir.resolve("buckets"));
        Path log = baseDir.resolve("s3proxy.log");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(java, "-Xmx1g", "-jar", jar.toString(), "--properties", conf.toString())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        S3ProxyProcess server = new S3ProxyProcess(p, port, baseDir);
        Runtime.getRuntime().addShutdownHook(new Thread(p::destroyForcibly));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (true) {
            if (!p.isAlive()) {
                throw new IOException("s3proxy exited with " + p.exitValue() + "; log: " + log);
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 500);
                return server;
            } catch (IOException notYet) {
                if (System.nanoTime() > deadline) {
                    server.close();
                    throw new IOException("s3proxy did not listen on port " + port + " within 120 s; log: " + log);
                }
                Thread.sleep(200);
            }
        }
    }

    /** {@code -Djavelin.s3proxy.jar}, else the copy the jmh build makes, else the local Maven repository's. */
    static Path jar() throws IOException {
        String prop = System.getProperty("javelin.s3proxy.jar");
        List<Path> candidates = prop != null ? List.of(Path.of(prop)) : List.of(
                Path.of("jmh/target/test-servers/s3proxy.jar"), Path.of("target/test-servers/s3proxy.jar"),
                Path.of(System.getProperty("maven.repo.local", System.getProperty("user.home") + "/.m2/repository"),
                        "org/gaul/s3proxy/4.1.0/s3proxy-4.1.0-jar-with-dependencies.jar"));
        for (Path c : candidates) {
            if (Files.isRegularFile(c)) {
                return c;
            }
        }
        throw new IOException("s3proxy jar not found at " + candidates + " (the jmh build copies it into target/test-servers)");
    }

    String endpoint() {
        return "http://127.0.0.1:" + port;
    }

    InetSocketAddress address() {
        return new InetSocketAddress("127.0.0.1", port);
    }

    /** The directory holding the bucket's objects (a bucket is a directory of the filesystem backend). */
    Path bucketDir(String bucket) throws IOException {
        return Files.createDirectories(baseDir.resolve("buckets").resolve(bucket));
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }
}
