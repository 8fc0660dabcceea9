package io.javelin.objectstore.gcs;

import com.google.auth.Credentials;
import com.google.auth.oauth2.AccessToken;
import com.google.auth.oauth2.GoogleCredentials;
import com.google.cloud.NoCredentials;
import com.google.cloud.ServiceOptions;
import com.google.cloud.storage.StorageOptions;
import io.javelin.objectstore.InvalidOptionException;
import io.javelin.objectstore.MissingCredentialsException;
import io.javelin.objectstore.ObjectStore;
import io.javelin.objectstore.ObjectStores;
import io.javelin.objectstore.ResilientObjectStore;
import io.javelin.objectstore.StoreUri;
import io.javelin.objectstore.internal.UploadConfig;
import io.javelin.objectstore.metrics.StoreCounters;
import io.javelin.objectstore.throttle.RequestPolicy;
import io.javelin.objectstore.throttle.RetryConfig;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import reactor.core.scheduler.Schedulers;

/** Opens GCS stores from Lance-style options. */
public final class GcsStores {

    private GcsStores() {
    }

    public static ObjectStore open(StoreUri u, io.javelin.objectstore.StorageOptions o, Map<String, String> env,
            RetryConfig retry) {
        String baseUrl = o.get("gcs_base_url");
        if (baseUrl != null && !baseUrl.startsWith("http")) {
            baseUrl = "http://" + baseUrl; // STORAGE_EMULATOR_HOST is conventionally host:port
        }
        if (baseUrl != null && baseUrl.startsWith("http://") && !o.getBoolean("allow_http", false)
                && !env.containsKey("STORAGE_EMULATOR_HOST")) {
            throw new InvalidOptionException("gcs_base_url", baseUrl, "plain HTTP needs allow_http=true");
        }
        Credentials creds = credentials(u, o, baseUrl != null);
        StorageOptions.Builder b = StorageOptions.http()
                // Set explicitly: without it the client probes the metadata server for a project.
                .setProjectId(env.getOrDefault("GOOGLE_CLOUD_PROJECT", "javelin"))
                .setCredentials(creds)
                // One attempt: RequestPolicy retries and throttles.
                .setRetrySettings(ServiceOptions.getNoRetrySettings());
        if (baseUrl != null) {
            b.setHost(baseUrl);
        }
        StoreCounters counters = new StoreCounters("gs://" + u.bucket());
        RequestPolicy policy = ObjectStores.policy("gs$" + (baseUrl == null ? "" : baseUrl + "$") + u.bucket(), o, retry,
                counters);
        GcsObjectStore raw = new GcsObjectStore(b.build().getService(), u.bucket(), u.rootPrefix(), counters,
                UploadConfig.fromEnv(env),
                Schedulers.newBoundedElastic(64, 100_000, "javelin-gcs-blocking", 60, true));
        return new ResilientObjectStore(raw, policy);
    }

    static Credentials credentials(StoreUri u, io.javelin.objectstore.StorageOptions o, boolean emulator) {
        if (o.getBoolean("google_skip_signature", false)) {
            return NoCredentials.getInstance();
        }
        try {
            String token = o.get("google_storage_token");
            if (token != null) {
                return GoogleCredentials.create(new AccessToken(token, null));
            }
            String key = o.get("google_service_account_key");
            if (key != null) {
                return fromStream("google_service_account_key",
                        new ByteArrayInputStream(key.getBytes(StandardCharsets.UTF_8)));
            }
            for (String opt : new String[] {"google_service_account", "google_application_credentials"}) {
                String path = o.get(opt);
                if (path != null) {
                    Path p = Path.of(path);
                    if (!Files.isReadable(p)) {
                        throw new InvalidOptionException(opt, path, "file does not exist or is not readable");
                    }
                    try (InputStream in = Files.newInputStream(p)) {
                        return fromStream(opt, in);
                    }
                }
            }
        } catch (IOException e) {
            throw new InvalidOptionException("google credentials", "", e.getMessage());
        }
        if (emulator) {
            return NoCredentials.getInstance(); // emulators do not authenticate
        }
        throw new MissingCredentialsException(u.original(),
                "set google_service_account (a JSON key file), google_service_account_key, "
                        + "google_application_credentials (or GOOGLE_APPLICATION_CREDENTIALS), google_storage_token, "
                        + "or google_skip_signature=true");
    }

    private static Credentials fromStream(String opt, InputStream in) {
        try {
            return GoogleCredentials.fromStream(in)
                    .createScoped("https://www.googleapis.com/auth/devstorage.read_write");
        } catch (IOException e) {
            throw new InvalidOptionException(opt, "<credentials>", "not a valid credentials JSON: " + e.getMessage());
        }
    }
}
