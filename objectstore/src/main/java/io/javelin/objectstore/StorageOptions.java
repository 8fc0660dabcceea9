package io.javelin.objectstore;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Storage options as Lance documents them, resolved for one scheme: explicit options win over
 * environment variables; keys are case-insensitive and aliases map to one canonical key.
 * An option no store knows, or one meant for another store, is an {@link UnknownOptionException}.
 * An option Lance knows but Javelin does not implement yet is an {@link InvalidOptionException}
 * rather than being silently ignored, except for pure connection-tuning keys that cannot change
 * results (listed in {@link #TUNING_ONLY}).
 */
public final class StorageOptions {

    /** One option: canonical key, aliases, environment variables, schemes it applies to. */
    private record Key(String canonical, List<String> aliases, List<String> env, Set<String> schemes, boolean supported) {
    }

    private static final Set<String> CLOUD = Set.of("s3", "az", "gs");
    private static final Set<String> ALL = Set.of("s3", "az", "gs", "file", "memory");
    private static final Map<String, Key> BY_NAME = new HashMap<>();
    private static final Map<String, Key> BY_CANONICAL = new LinkedHashMap<>();
    /** Keys that only tune connections; accepted and ignored where not implemented. */
    private static final Set<String> TUNING_ONLY = Set.of("user_agent", "http1_only", "http2_only",
            "http2_keep_alive_interval", "http2_keep_alive_timeout", "http2_keep_alive_while_idle",
            "pool_idle_timeout", "pool_max_idle_per_host", "randomize_addresses", "default_content_type");

    static {
        // General (every cloud store; the scheduler/retry ones apply to local and memory too).
        key("allow_http", List.of(), List.of("AWS_ALLOW_HTTP", "AZURE_STORAGE_ALLOW_HTTP", "AZURE_STORAGE_USE_HTTP"), CLOUD, true);
        key("allow_invalid_certificates", List.of(), List.of(), CLOUD, false);
        key("connect_timeout", List.of(), List.of(), CLOUD, true);
        key("timeout", List.of(), List.of("TIMEOUT"), ALL, true);
        key("client_max_retries", List.of(), List.of("OBJECT_STORE_CLIENT_MAX_RETRIES"), ALL, true);
        key("client_retry_timeout", List.of(), List.of("OBJECT_STORE_CLIENT_RETRY_TIMEOUT"), ALL, true);
        key("download_retry_count", List.of(), List.of(), ALL, true);
        for (String t : TUNING_ONLY) {
            key(t, List.of(), List.of(), CLOUD, true);
        }
        key("proxy_url", List.of(), List.of(), CLOUD, false);
        key("proxy_ca_certificate", List.of(), List.of(), CLOUD, false);
        key("proxy_excludes", List.of(), List.of(), CLOUD, false);
        key("use_opendal", List.of(), List.of(), CLOUD, false);
        for (String a : List.of("initial_rate", "min_rate", "max_rate", "decrease_factor", "additive_increment",
                "burst_capacity", "max_retries", "min_backoff_ms", "max_backoff_ms")) {
            key("lance_aimd_" + a, List.of(), List.of("LANCE_AIMD_" + a.toUpperCase(Locale.ROOT)), CLOUD, true);
        }
        // S3.
        key("aws_region", List.of("region"), List.of("AWS_REGION", "AWS_DEFAULT_REGION"), Set.of("s3"), true);
        key("aws_endpoint", List.of("endpoint", "aws_endpoint_url", "endpoint_url"),
                List.of("AWS_ENDPOINT", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3"), Set.of("s3"), true);
        key("aws_access_key_id", List.of("access_key_id"), List.of("AWS_ACCESS_KEY_ID"), Set.of("s3"), true);
        key("aws_secret_access_key", List.of("secret_access_key"), List.of("AWS_SECRET_ACCESS_KEY"), Set.of("s3"), true);
        key("aws_session_token", List.of("session_token", "token", "aws_token"), List.of("AWS_SESSION_TOKEN"), Set.of("s3"), true);
        key("aws_virtual_hosted_style_request", List.of("virtual_hosted_style_request"),
                List.of("AWS_VIRTUAL_HOSTED_STYLE_REQUEST"), Set.of("s3"), true);
        key("aws_skip_signature", List.of("skip_signature"), List.of("AWS_SKIP_SIGNATURE"), Set.of("s3"), true);
        key("aws_conditional_put", List.of("conditional_put"), List.of("AWS_CONDITIONAL_PUT"), Set.of("s3"), true);
        for (String k : List.of("aws_s3_express", "aws_server_side_encryption", "aws_sse_kms_key_id",
                "aws_sse_bucket_key_enabled", "aws_sse_customer_key_base64", "aws_imdsv1_fallback",
                "aws_metadata_endpoint", "aws_unsigned_payload", "aws_checksum_algorithm",
                "aws_container_credentials_relative_uri", "aws_container_credentials_full_uri",
                "aws_web_identity_token_file", "aws_role_arn", "aws_role_session_name", "aws_endpoint_url_sts",
                "aws_copy_if_not_exists", "aws_disable_tagging", "aws_request_payer", "aws_provider_scheme",
                "dynamodb_endpoint")) {
            key(k, List.of(), List.of(), Set.of("s3"), false);
        }
        // Azure.
        key("azure_storage_account_name", List.of("account_name"), List.of("AZURE_STORAGE_ACCOUNT_NAME"), Set.of("az"), true);
        key("azure_storage_account_key", List.of("account_key", "access_key", "master_key", "azure_storage_access_key"),
                List.of("AZURE_STORAGE_ACCOUNT_KEY", "AZURE_STORAGE_ACCESS_KEY"), Set.of("az"), true);
        key("azure_storage_sas_key", List.of("sas_key", "sas_token", "azure_storage_sas_token"),
                List.of("AZURE_STORAGE_SAS_KEY", "AZURE_STORAGE_SAS_TOKEN"), Set.of("az"), true);
        key("azure_storage_use_emulator", List.of("use_emulator", "azure_use_emulator"),
                List.of("AZURE_STORAGE_USE_EMULATOR"), Set.of("az"), true);
        key("azure_endpoint", List.of("azure_storage_endpoint", "endpoint"), List.of("AZURE_STORAGE_ENDPOINT", "AZURE_ENDPOINT"),
                Set.of("az"), true);
        key("azure_container_name", List.of("container_name"), List.of(), Set.of("az"), true);
        for (String k : List.of("azure_client_id", "azure_client_secret", "azure_tenant_id", "azure_authority_host",
                "azure_storage_token", "azure_use_fabric_endpoint", "azure_msi_endpoint", "azure_object_id",
                "azure_msi_resource_id", "azure_federated_token_file", "azure_use_azure_cli", "azure_skip_signature",
                "azure_disable_tagging")) {
            key(k, List.of(), List.of(), Set.of("az"), false);
        }
        // GCS.
        key("google_service_account", List.of("service_account", "google_service_account_path", "service_account_path"),
                List.of("GOOGLE_SERVICE_ACCOUNT", "GOOGLE_SERVICE_ACCOUNT_PATH"), Set.of("gs"), true);
        key("google_service_account_key", List.of("service_account_key"), List.of("GOOGLE_SERVICE_ACCOUNT_KEY"), Set.of("gs"), true);
        key("google_application_credentials", List.of(), List.of("GOOGLE_APPLICATION_CREDENTIALS"), Set.of("gs"), true);
        key("google_skip_signature", List.of("skip_signature"), List.of("GOOGLE_SKIP_SIGNATURE"), Set.of("gs"), true);
        key("google_storage_token", List.of(), List.of("GOOGLE_STORAGE_TOKEN"), Set.of("gs"), true);
        // Not a Lance key: the JSON API base URL (object_store reads it from the service account's
        // gcs_base_url); STORAGE_EMULATOR_HOST is the variable GCS emulators conventionally use.
        key("gcs_base_url", List.of("google_storage_emulator_host"), List.of("STORAGE_EMULATOR_HOST"), Set.of("gs"), true);
    }

    private static void key(String canonical, List<String> aliases, List<String> env, Set<String> schemes, boolean supported) {
        Key k = new Key(canonical, aliases, env, schemes, supported);
        BY_CANONICAL.put(canonical, k);
        // Aliases such as "endpoint" and "skip_signature" exist in several stores: lookup() resolves them per scheme.
        BY_NAME.put(canonical, k);
    }

    private final String scheme;
    private final Map<String, String> values;

    private StorageOptions(String scheme, Map<String, String> values) {
        this.scheme = scheme;
        this.values = values;
    }

    /**
     * Resolves options for {@code scheme}. Environment variables fill keys not given explicitly;
     * only variables this scheme's keys name are read.
     */
    public static StorageOptions resolve(String scheme, Map<String, String> explicit, Map<String, String> env) {
        Map<String, String> values = new HashMap<>();
        for (Map.Entry<String, String> e : explicit.entrySet()) {
            String name = e.getKey().toLowerCase(Locale.ROOT);
            Key k = lookup(name, scheme);
            if (k == null || !k.schemes().contains(scheme)) {
                throw new UnknownOptionException(e.getKey(), scheme, knownFor(scheme));
            }
            if (!k.supported()) {
                throw new InvalidOptionException(e.getKey(), e.getValue(),
                        "a Lance option Javelin does not implement yet; remove it or open an issue");
            }
            if (e.getValue() == null) {
                throw new InvalidOptionException(e.getKey(), "null", "value is null");
            }
            values.put(k.canonical(), e.getValue());
        }
        for (Key k : BY_CANONICAL.values()) {
            if (!k.schemes().contains(scheme) || values.containsKey(k.canonical())) {
                continue;
            }
            for (String var : k.env()) {
                String v = env.get(var);
                if (v != null && !v.isEmpty()) {
                    values.put(k.canonical(), v);
                    break;
                }
            }
        }
        return new StorageOptions(scheme, values);
    }

    private static Key lookup(String name, String scheme) {
        Key k = BY_NAME.get(name);
        if (k != null && k.schemes().contains(scheme)) {
            return k;
        }
        for (Key c : BY_CANONICAL.values()) {
            if (c.schemes().contains(scheme) && c.aliases().contains(name)) {
                return c;
            }
        }
        return k;
    }

    /** Canonical keys (and aliases) valid for {@code scheme}, sorted. */
    public static List<String> knownFor(String scheme) {
        Set<String> out = new TreeSet<>();
        for (Key k : BY_CANONICAL.values()) {
            if (k.schemes().contains(scheme)) {
                out.add(k.canonical());
                out.addAll(k.aliases());
            }
        }
        return new ArrayList<>(out);
    }

    public String scheme() {
        return scheme;
    }

    /** The value of a canonical key, or null. */
    public String get(String canonical) {
        if (!BY_CANONICAL.containsKey(canonical)) {
            throw new IllegalArgumentException("Not a canonical option key: " + canonical);
        }
        return values.get(canonical);
    }

    public boolean has(String canonical) {
        return get(canonical) != null;
    }

    public boolean getBoolean(String key, boolean dflt) {
        String v = get(key);
        if (v == null) {
            return dflt;
        }
        return switch (v.trim().toLowerCase(Locale.ROOT)) {
            case "true", "1", "yes", "on" -> true;
            case "false", "0", "no", "off" -> false;
            default -> throw new InvalidOptionException(key, v, "expected true or false");
        };
    }

    public int getInt(String key, int dflt) {
        String v = get(key);
        if (v == null) {
            return dflt;
        }
        try {
            return Integer.parseInt(v.trim());
        } catch (NumberFormatException e) {
            throw new InvalidOptionException(key, v, "expected an integer");
        }
    }

    public double getDouble(String key, double dflt) {
        String v = get(key);
        if (v == null) {
            return dflt;
        }
        try {
            return Double.parseDouble(v.trim());
        } catch (NumberFormatException e) {
            throw new InvalidOptionException(key, v, "expected a number");
        }
    }

    private static final Pattern DURATION = Pattern.compile("^(\\d+(?:\\.\\d+)?)\\s*(ms|s|m|h)?$");

    /** A duration written as {@code 30s}, {@code 500ms}, {@code 2m}, {@code 1h}, or plain seconds. */
    public Duration getDuration(String key, Duration dflt) {
        String v = get(key);
        if (v == null) {
            return dflt;
        }
        Matcher m = DURATION.matcher(v.trim().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new InvalidOptionException(key, v, "expected a duration such as 30s, 500ms or 2m");
        }
        double n = Double.parseDouble(m.group(1));
        String unit = m.group(2) == null ? "s" : m.group(2);
        long millis = switch (unit) {
            case "ms" -> (long) n;
            case "m" -> (long) (n * 60_000);
            case "h" -> (long) (n * 3_600_000);
            default -> (long) (n * 1000);
        };
        return Duration.ofMillis(millis);
    }

    @Override
    public String toString() {
        Map<String, String> redacted = new HashMap<>();
        values.forEach((k, v) -> redacted.put(k, k.contains("secret") || k.contains("key") || k.contains("token")
                ? "***" : v));
        return "StorageOptions[" + scheme + ", " + redacted + "]";
    }
}
