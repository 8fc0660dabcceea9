package io.javelin.objectstore.s3;

import io.javelin.objectstore.InvalidOptionException;
import io.javelin.objectstore.MissingCredentialsException;
import io.javelin.objectstore.StorageOptions;
import io.javelin.objectstore.StoreUri;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import software.amazon.awssdk.auth.credentials.AnonymousCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClient;

/** Builds the S3 async client from Lance-style options. */
public final class S3Clients {

    private S3Clients() {
    }

    public static S3AsyncClient build(StoreUri uri, StorageOptions o, Map<String, String> env) {
        String endpoint = o.get("aws_endpoint");
        boolean allowHttp = o.getBoolean("allow_http", false);
        if (endpoint != null) {
            if (!endpoint.startsWith("http://") && !endpoint.startsWith("https://")) {
                throw new InvalidOptionException("aws_endpoint", endpoint, "must start with http:// or https://");
            }
            if (endpoint.startsWith("http://") && !allowHttp) {
                throw new InvalidOptionException("aws_endpoint", endpoint, "plain HTTP needs allow_http=true");
            }
        }
        String region = o.get("aws_region");
        if (region == null) {
            // Lance silently signs with us-west-2 here; we pick us-east-1 and let the SDK follow
            // cross-region redirects for real AWS buckets.
            region = "us-east-1";
        }
        NettyNioAsyncHttpClient.Builder http = NettyNioAsyncHttpClient.builder()
                .maxConcurrency(256)
                .connectionAcquisitionTimeout(Duration.ofSeconds(60))
                .connectionTimeout(o.getDuration("connect_timeout", Duration.ofSeconds(5)));
        var b = S3AsyncClient.builder()
                .region(Region.of(region))
                .credentialsProvider(credentials(uri, o, env))
                // Path style unless asked otherwise: custom endpoints (MinIO, s3proxy) have no
                // virtual-host DNS.
                .forcePathStyle(!o.getBoolean("aws_virtual_hosted_style_request", false))
                .httpClientBuilder(http)
                // RequestPolicy retries and throttles; SDK retries (and ADAPTIVE mode's own token
                // bucket) would stack on top of it.
                .overrideConfiguration(c -> c.retryStrategy(AwsRetryStrategy.doNotRetry()));
        if (endpoint != null) {
            b.endpointOverride(URI.create(endpoint));
        } else {
            b.crossRegionAccessEnabled(true);
        }
        return b.build();
    }

    static AwsCredentialsProvider credentials(StoreUri uri, StorageOptions o, Map<String, String> env) {
        if (o.getBoolean("aws_skip_signature", false)) {
            return AnonymousCredentialsProvider.create();
        }
        String id = o.get("aws_access_key_id");
        String secret = o.get("aws_secret_access_key");
        if (id != null || secret != null) {
            if (id == null || secret == null) {
                throw new MissingCredentialsException(uri.original(), (id == null ? "aws_access_key_id" : "aws_secret_access_key")
                        + " is missing (both aws_access_key_id and aws_secret_access_key are required)");
            }
            String token = o.get("aws_session_token");
            return StaticCredentialsProvider.create(token == null ? AwsBasicCredentials.create(id, secret)
                    : AwsSessionCredentials.create(id, secret, token));
        }
        // Only fall back to the SDK's chain when it has something local to find: probing the
        // instance metadata service off EC2 hangs for seconds before failing.
        String home = env.getOrDefault("HOME", "");
        boolean chainHasSource = env.containsKey("AWS_PROFILE") || env.containsKey("AWS_WEB_IDENTITY_TOKEN_FILE")
                || env.containsKey("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI")
                || env.containsKey("AWS_CONTAINER_CREDENTIALS_FULL_URI")
                || env.containsKey("AWS_EC2_METADATA_SERVICE_ENDPOINT")
                || (!home.isEmpty() && Files.exists(Path.of(home, ".aws", "credentials")));
        if (chainHasSource) {
            return DefaultCredentialsProvider.builder().build();
        }
        throw new MissingCredentialsException(uri.original(),
                "set aws_access_key_id and aws_secret_access_key (or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY), "
                        + "AWS_PROFILE, a web-identity or container credential variable, or aws_skip_signature=true");
    }
}
