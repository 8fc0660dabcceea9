package io.javelin.objectstore.servers;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClient;

/**
 * S3Proxy 4.1.0 (transient, in-memory backend) as a child JVM on 127.0.0.1, started once per test
 * JVM. Maven copies the jar into target/test-servers (generate-test-resources).
 */
public final class S3ProxyServer {

    public static final String KEY = "testkey";
    public static final String SECRET = "testsecret";

    private static S3ProxyServer instance;

    private final int port;

    private S3ProxyServer(int port) {
        this.port = port;
    }

    public static synchronized S3ProxyServer get() {
        if (instance == null) {
            instance = start();
        }
        return instance;
    }

    private static S3ProxyServer start() {
        try {
            Path jar = Path.of(System.getProperty("javelin.s3proxy.jar", "target/test-servers/s3proxy.jar"));
            if (!Files.isRegularFile(jar)) {
                throw new IllegalStateException("s3proxy jar missing at " + jar
                        + " (run through Maven: the dependency plugin copies it in generate-test-resources)");
            }
            int port = ChildProcesses.freePort();
            Path dir = ChildProcesses.workDir("s3proxy-" + port);
            Path conf = dir.resolve("s3proxy.conf");
            Files.writeString(conf, String.join("\n",
                    "s3proxy.endpoint=http://127.0.0.1:" + port,
                    "s3proxy.authorization=aws-v2-or-v4",
                    "s3proxy.identity=" + KEY,
                    "s3proxy.credential=" + SECRET,
                    "jclouds.provider=transient", ""));
            Path log = dir.resolve("s3proxy.log");
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            Process p = new ProcessBuilder(java, "-Xmx384m", "-XX:TieredStopAtLevel=1", "-jar", jar.toString(),
                    "--properties", conf.toString())
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            ChildProcesses.stopOnExit("s3proxy", p);
            ChildProcesses.awaitPort("s3proxy", p, port, Duration.ofSeconds(90), log);
            return new S3ProxyServer(port);
        } catch (java.io.IOException e) {
            throw new IllegalStateException("cannot start s3proxy", e);
        }
    }

    public String endpoint() {
        return "http://127.0.0.1:" + port;
    }

    /** Creates a bucket (idempotent) with a plain synchronous client, from the test thread. */
    public void createBucket(String bucket) {
        try (S3AsyncClient c = S3AsyncClient.builder().endpointOverride(URI.create(endpoint())).region(Region.US_EAST_1)
                .forcePathStyle(true)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(KEY, SECRET)))
                .httpClientBuilder(software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient.builder())
                .build()) {
            try {
                c.createBucket(b -> b.bucket(bucket)).join();
            } catch (java.util.concurrent.CompletionException e) {
                if (!(e.getCause() instanceof software.amazon.awssdk.services.s3.model.BucketAlreadyOwnedByYouException
                        || e.getCause() instanceof software.amazon.awssdk.services.s3.model.BucketAlreadyExistsException)) {
                    throw e;
                }
            }
        }
    }

    /** Options for {@code ObjectStores.open("s3://bucket", ...)} against this server. */
    public Map<String, String> options() {
        Map<String, String> o = new HashMap<>();
        o.put("aws_endpoint", endpoint());
        o.put("aws_region", "us-east-1");
        o.put("aws_access_key_id", KEY);
        o.put("aws_secret_access_key", SECRET);
        o.put("allow_http", "true");
        return o;
    }
}
