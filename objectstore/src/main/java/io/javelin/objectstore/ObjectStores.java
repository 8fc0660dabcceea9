package io.javelin.objectstore;

import io.javelin.objectstore.azure.AzureStores;
import io.javelin.objectstore.gcs.GcsStores;
import io.javelin.objectstore.inmemory.InMemoryObjectStore;
import io.javelin.objectstore.internal.UploadConfig;
import io.javelin.objectstore.local.LocalObjectStore;
import io.javelin.objectstore.metrics.StoreCounters;
import io.javelin.objectstore.s3.S3Clients;
import io.javelin.objectstore.s3.S3ObjectStore;
import io.javelin.objectstore.throttle.AimdConfig;
import io.javelin.objectstore.throttle.RequestPolicy;
import io.javelin.objectstore.throttle.RetryConfig;
import io.javelin.objectstore.throttle.StoreLimiters;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import reactor.core.scheduler.Schedulers;

/** Entry point for the object-store layer: opens a store from a URI and Lance-style options. */
public final class ObjectStores {

    private ObjectStores() {
    }

    /** URI schemes with a store implementation in this build. */
    public static List<String> supportedSchemes() {
        return List.of("file", "memory", "s3", "az", "abfss", "gs");
    }

    public static ObjectStore open(String uri) {
        return open(uri, Map.of());
    }

    /** Opens the store at {@code uri}; environment variables fill options not given. */
    public static ObjectStore open(String uri, Map<String, String> options) {
        return open(uri, options, System.getenv());
    }

    /**
     * Opens the store at {@code uri} with an explicit environment (tests pass their own). Paths given
     * to the store are relative to the URI's path.
     *
     * @throws InvalidStoreUriException      malformed URI, unsupported scheme, bad bucket name
     * @throws UnknownOptionException        an option no store of this scheme knows
     * @throws InvalidOptionException        a bad value, or a Lance option not implemented here
     * @throws MissingCredentialsException   a cloud store without any credential source
     */
    public static ObjectStore open(String uri, Map<String, String> options, Map<String, String> env) {
        StoreUri u = StoreUri.parse(uri);
        StorageOptions o = StorageOptions.resolve(u.scheme(), options, env);
        RetryConfig retry = retryConfig(o);
        RetryConfig localRetry = o.has("timeout") ? retry : retry.withRequestTimeout(null);
        return switch (u.scheme()) {
            case "file" -> {
                LocalObjectStore raw = new LocalObjectStore(Path.of(u.bucket()), LocalIo.SCHEDULER, false);
                yield new ResilientObjectStore(raw,
                        new RequestPolicy(null, localRetry, raw.counters(), Schedulers.parallel()));
            }
            case "memory" -> {
                InMemoryObjectStore raw = new InMemoryObjectStore(u.bucket(), u.rootPrefix());
                yield new ResilientObjectStore(raw,
                        new RequestPolicy(null, localRetry, raw.counters(), Schedulers.parallel()));
            }
            case "s3" -> {
                StoreCounters counters = new StoreCounters("s3://" + u.bucket());
                String endpoint = o.get("aws_endpoint");
                RequestPolicy policy = policy("s3$" + (endpoint == null ? "" : endpoint + "$") + u.bucket(), o, retry,
                        counters);
                S3ObjectStore raw = new S3ObjectStore(S3Clients.build(u, o, env), u.bucket(), u.rootPrefix(), counters,
                        policy, UploadConfig.fromEnv(env), !"disabled".equalsIgnoreCase(o.get("aws_conditional_put")));
                yield new ResilientObjectStore(raw, policy);
            }
            case "az" -> AzureStores.open(u, o, env, retry);
            case "gs" -> GcsStores.open(u, o, env, retry);
            default -> throw new InvalidStoreUriException(uri, "unsupported scheme '" + u.scheme() + "'");
        };
    }

    static RetryConfig retryConfig(StorageOptions o) {
        RetryConfig d = RetryConfig.DEFAULTS;
        return new RetryConfig(
                o.getInt("client_max_retries", d.maxRetries()),
                o.getDuration("client_retry_timeout", d.retryTimeout()),
                o.getDuration("timeout", d.requestTimeout()),
                d.minBackoff(), d.maxBackoff());
    }

    /** The AIMD settings from {@code lance_aimd_*} options and {@code LANCE_AIMD_*} variables. */
    public static AimdConfig aimdConfig(StorageOptions o) {
        AimdConfig d = AimdConfig.DEFAULTS;
        try {
            return new AimdConfig(
                    o.getDouble("lance_aimd_initial_rate", d.initialRate()),
                    o.getDouble("lance_aimd_min_rate", d.minRate()),
                    o.getDouble("lance_aimd_max_rate", d.maxRate()),
                    o.getDouble("lance_aimd_decrease_factor", d.decreaseFactor()),
                    o.getDouble("lance_aimd_additive_increment", d.additiveIncrement()),
                    o.getDouble("lance_aimd_burst_capacity", d.burstCapacity()),
                    d.window(),
                    o.getInt("lance_aimd_max_retries", d.maxRetries()),
                    Duration.ofMillis(o.getInt("lance_aimd_min_backoff_ms", (int) d.minBackoff().toMillis())),
                    Duration.ofMillis(o.getInt("lance_aimd_max_backoff_ms", (int) d.maxBackoff().toMillis())));
        } catch (IllegalArgumentException e) {
            throw new InvalidOptionException("lance_aimd_*", String.valueOf(o), e.getMessage());
        }
    }

    /** A policy whose limiters are shared process-wide by every store on the same bucket. */
    public static RequestPolicy policy(String limiterKey, StorageOptions o, RetryConfig retry, StoreCounters counters) {
        AimdConfig aimd = aimdConfig(o);
        StoreLimiters limiters = aimd.enabled() ? StoreLimiters.shared(limiterKey, aimd) : null;
        return new RequestPolicy(limiters, retry, counters, Schedulers.parallel());
    }

    /**
     * The blocking-I/O threads of every local store this factory opens, created on first use and shared: a
     * store per dataset handle used to start (and, on close, stop) a scheduler of its own, so each
     * short-lived handle (one append, one open) paid for new threads. Idle threads expire after 60 s.
     */
    private static final class LocalIo {
        static final reactor.core.scheduler.Scheduler SCHEDULER =
                Schedulers.newBoundedElastic(16, 100_000, "javelin-local-io", 60, true);
    }
}
