package io.javelin.objectstore;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * A parsed store location as Lance users write it: {@code /plain/path}, {@code file:///path},
 * {@code memory://name/prefix}, {@code s3://bucket/prefix}, {@code az://container/prefix},
 * {@code abfss://container@account.dfs.core.windows.net/prefix}, {@code gs://bucket/prefix}.
 *
 * @param scheme     normalised scheme: file, memory, s3, az, gs
 * @param bucket     bucket or container; for file the absolute root directory; for memory the namespace
 * @param account    Azure account from an abfss URI, else null
 * @param rootPrefix key prefix inside the bucket (no leading or trailing '/'), may be empty
 * @param original   the URI as given
 */
public record StoreUri(String scheme, String bucket, String account, String rootPrefix, String original) {

    private static final Pattern SCHEME = Pattern.compile("^([a-zA-Z][a-zA-Z0-9+.-]*)://.*", Pattern.DOTALL);
    private static final Pattern S3_BUCKET = Pattern.compile("^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$");
    private static final Pattern GCS_BUCKET = Pattern.compile("^[a-z0-9][a-z0-9._-]{1,220}[a-z0-9]$");
    private static final Pattern AZ_CONTAINER = Pattern.compile("^(\\$root|[a-z0-9](?!.*--)[a-z0-9-]{1,61}[a-z0-9])$");

    public static StoreUri parse(String uri) {
        if (uri == null || uri.isBlank()) {
            throw new InvalidStoreUriException(String.valueOf(uri), "empty");
        }
        var m = SCHEME.matcher(uri);
        if (!m.matches()) {
            if (uri.contains(":") && !uri.startsWith("/") && !uri.startsWith(".")) {
                throw new InvalidStoreUriException(uri, "not a path and not scheme://...");
            }
            return local(Path.of(uri), uri);
        }
        String scheme = m.group(1).toLowerCase(Locale.ROOT);
        URI u;
        try {
            u = new URI(uri);
        } catch (URISyntaxException e) {
            throw new InvalidStoreUriException(uri, e.getReason() + " at index " + e.getIndex());
        }
        return switch (scheme) {
            case "file" -> {
                if (u.getAuthority() != null && !u.getAuthority().equals("localhost")) {
                    throw new InvalidStoreUriException(uri, "file URIs cannot name a host ('" + u.getAuthority() + "')");
                }
                if (u.getPath() == null || u.getPath().isEmpty()) {
                    throw new InvalidStoreUriException(uri, "no path");
                }
                yield local(Path.of(u.getPath()), uri);
            }
            case "memory" -> new StoreUri("memory", u.getAuthority() == null ? "" : u.getAuthority(), null,
                    prefix(uri, u.getPath()), uri);
            case "s3", "s3a" -> cloud("s3", uri, u, S3_BUCKET, "bucket");
            case "gs", "gcs" -> cloud("gs", uri, u, GCS_BUCKET, "bucket");
            case "az", "azure", "adl" -> cloud("az", uri, u, AZ_CONTAINER, "container");
            case "abfs", "abfss" -> abfs(uri, u);
            default -> throw new InvalidStoreUriException(uri, "unsupported scheme '" + scheme + "' (supported: "
                    + ObjectStores.supportedSchemes() + ")");
        };
    }

    private static StoreUri local(Path p, String original) {
        return new StoreUri("file", p.toAbsolutePath().normalize().toString(), null, "", original);
    }

    private static StoreUri cloud(String scheme, String original, URI u, Pattern bucketRule, String noun) {
        String bucket = u.getRawAuthority();
        if (bucket == null || bucket.isEmpty()) {
            throw new InvalidStoreUriException(original, "no " + noun + " (expected " + scheme + "://" + noun + "/path)");
        }
        if (!bucketRule.matcher(bucket).matches()) {
            throw new InvalidStoreUriException(original, "'" + bucket + "' is not a valid " + noun + " name");
        }
        return new StoreUri(scheme, bucket, null, prefix(original, u.getPath()), original);
    }

    private static StoreUri abfs(String original, URI u) {
        // abfss://container@account.dfs.core.windows.net/path
        String auth = u.getRawAuthority();
        if (auth == null || !auth.contains("@")) {
            throw new InvalidStoreUriException(original, "expected abfss://container@account.dfs.core.windows.net/path");
        }
        String container = auth.substring(0, auth.indexOf('@'));
        String host = auth.substring(auth.indexOf('@') + 1);
        int dot = host.indexOf('.');
        String account = dot < 0 ? host : host.substring(0, dot);
        if (container.isEmpty() || account.isEmpty()) {
            throw new InvalidStoreUriException(original, "empty container or account");
        }
        if (!AZ_CONTAINER.matcher(container).matches()) {
            throw new InvalidStoreUriException(original, "'" + container + "' is not a valid container name");
        }
        return new StoreUri("az", container, account, prefix(original, u.getPath()), original);
    }

    private static String prefix(String original, String path) {
        if (path == null) {
            return "";
        }
        String p = path;
        while (p.startsWith("/")) {
            p = p.substring(1);
        }
        while (p.endsWith("/")) {
            p = p.substring(0, p.length() - 1);
        }
        if (p.isEmpty()) {
            return "";
        }
        try {
            ObjectPaths.checkKey(p);
        } catch (InvalidPathException e) {
            throw new InvalidStoreUriException(original, e.getMessage());
        }
        return p;
    }

    /** The root as a URI string, e.g. {@code s3://bucket/prefix}. */
    public String root() {
        if (scheme.equals("file")) {
            return "file://" + bucket;
        }
        return scheme + "://" + bucket + (rootPrefix.isEmpty() ? "" : "/" + rootPrefix);
    }
}
