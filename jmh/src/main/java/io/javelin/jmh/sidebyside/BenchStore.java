package io.javelin.jmh.sidebyside;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

/**
 * Where the side-by-side datasets live: a local directory, or a bucket on S3Proxy behind a {@link LatencyProxy}
 * (both engines get the same storage options, Lance's names). The S3 form counts the requests and bytes that
 * pass the proxy; the runner runs one engine at a time, so the difference around an operation is that engine's.
 */
interface BenchStore extends AutoCloseable {

    /** "local" or "s3". */
    String kind();

    /** The URI of dataset {@code name}. */
    String uri(String name);

    /** Storage options for both engines (empty for local). */
    Map<String, String> options();

    /** Deletes dataset {@code name} and everything under it, if present. */
    void delete(String name) throws IOException;

    /** Traffic through the store's proxy so far, or null when nothing is counted (local). */
    LatencyProxy.Traffic traffic();

    /** One phrase for the report's environment line. */
    String describe();

    @Override
    void close() throws IOException;

    static BenchStore local(Path dir) {
        return new BenchStore() {
            @Override
            public String kind() {
                return "local";
            }

            @Override
            public String uri(String name) {
                return dir.resolve(name).toString();
            }

            @Override
            public Map<String, String> options() {
                return Map.of();
            }

            @Override
            public void delete(String name) throws IOException {
                SideBySide.deleteTree(dir.resolve(name));
            }

            @Override
            public LatencyProxy.Traffic traffic() {
                return null;
            }

            @Override
            public String describe() {
                return "local file system";
            }

            @Override
            public void close() {
            }
        };
    }

    /** S3Proxy (filesystem backend under {@code dir}) behind a proxy adding {@code latencyMs} to each request's first byte. */
    static BenchStore s3(Path dir, long latencyMs) throws IOException, InterruptedException {
        S3ProxyProcess server = S3ProxyProcess.start(dir.resolve("s3proxy"));
        LatencyProxy proxy;
        try {
            proxy = new LatencyProxy(server.address(), latencyMs);
        } catch (IOException | RuntimeException e) {
            server.close();
            throw e;
        }
        String bucket = "bench";
        Path bucketDir = server.bucketDir(bucket);
        Map<String, String> options = Map.of(
                "aws_endpoint", proxy.endpoint(),
                "aws_region", "us-east-1",
                "aws_access_key_id", S3ProxyProcess.KEY,
                "aws_secret_access_key", S3ProxyProcess.SECRET,
                "allow_http", "true");
        return new BenchStore() {
            @Override
            public String kind() {
                return "s3";
            }

            @Override
            public String uri(String name) {
                return "s3://" + bucket + "/" + name;
            }

            @Override
            public Map<String, String> options() {
                return options;
            }

            @Override
            public void delete(String name) throws IOException {
                SideBySide.deleteTree(bucketDir.resolve(name));
            }

            @Override
            public LatencyProxy.Traffic traffic() {
                return proxy.traffic();
            }

            @Override
            public String describe() {
                return "S3 (S3Proxy 4.1.0, filesystem backend, on 127.0.0.1) behind a proxy adding " + latencyMs
                        + " ms to each request's first response byte";
            }

            @Override
            public void close() throws IOException {
                try {
                    proxy.close();
                } finally {
                    server.close();
                }
            }
        };
    }
}
