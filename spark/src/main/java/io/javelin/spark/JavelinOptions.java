package io.javelin.spark;

import java.io.Serializable;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The options of a read, a write or the catalog, split into the connector's own keys and the storage options
 * passed to Javelin's object stores under Lance's names ({@code aws_region}, {@code aws_endpoint},
 * {@code allow_http}, ...). Unknown storage keys are refused by the store, with its typed error.
 */
public record JavelinOptions(Map<String, String> storage, Long version, String tag, int batchSize, long maxRowsPerFile)
        implements Serializable {

    public static final String PATH = "path";
    public static final String VERSION = "version";
    public static final String TAG = "tag";
    public static final String BATCH_SIZE = "batch_size";
    public static final String MAX_ROWS_PER_FILE = "max_rows_per_file";
    public static final String WAREHOUSE = "warehouse";
    /** A catalog's REST namespace endpoint. */
    public static final String URI = "uri";
    public static final int DEFAULT_BATCH_SIZE = 8192;

    /** Keys that are the connector's (or Spark's) and never reach the object store. */
    private static final Set<String> RESERVED = Set.of(PATH, "paths", VERSION, TAG, BATCH_SIZE, MAX_ROWS_PER_FILE, WAREHOUSE, URI,
            "type", "provider", "location", "comment", "owner", "external", "is_managed_location");

    public JavelinOptions {
        storage = Map.copyOf(storage);
        if (batchSize <= 0) {
            throw new IllegalArgumentException("batch_size must be positive, got " + batchSize);
        }
    }

    /** Parses connector keys case-insensitively; everything else is a storage option with its key as given. */
    public static JavelinOptions parse(Map<String, String> options) {
        Map<String, String> storage = new LinkedHashMap<>();
        Long version = null;
        String tag = null;
        int batch = DEFAULT_BATCH_SIZE;
        long maxRows = 0;
        for (Map.Entry<String, String> e : options.entrySet()) {
            String key = e.getKey().toLowerCase(Locale.ROOT);
            String v = e.getValue();
            switch (key) {
                case VERSION -> version = parseLong(VERSION, v);
                case TAG -> tag = v;
                case BATCH_SIZE -> batch = (int) parseLong(BATCH_SIZE, v);
                case MAX_ROWS_PER_FILE -> maxRows = parseLong(MAX_ROWS_PER_FILE, v);
                default -> {
                    if (!RESERVED.contains(key) && !key.startsWith("spark.") && !key.startsWith("__")) {
                        storage.put(e.getKey(), v);
                    }
                }
            }
        }
        if (version != null && tag != null) {
            throw new IllegalArgumentException("Give either 'version' or 'tag', not both");
        }
        return new JavelinOptions(storage, version, tag, batch, maxRows);
    }

    private static long parseLong(String key, String v) {
        try {
            return Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("Option '" + key + "' must be an integer, got '" + v + "'", e);
        }
    }

    public JavelinOptions atVersion(long v) {
        return new JavelinOptions(storage, v, null, batchSize, maxRowsPerFile);
    }

    public JavelinOptions atTag(String t) {
        return new JavelinOptions(storage, null, t, batchSize, maxRowsPerFile);
    }

    public JavelinOptions latest() {
        return new JavelinOptions(storage, null, null, batchSize, maxRowsPerFile);
    }

    /** The options of one operation: this catalog's storage options overlaid with the statement's. */
    public JavelinOptions overlay(Map<String, String> statementOptions) {
        JavelinOptions o = parse(statementOptions);
        Map<String, String> merged = new LinkedHashMap<>(storage);
        merged.putAll(o.storage);
        return new JavelinOptions(merged, o.version != null ? o.version : version, o.tag != null ? o.tag : tag,
                statementOptions.keySet().stream().anyMatch(k -> k.equalsIgnoreCase(BATCH_SIZE)) ? o.batchSize : batchSize,
                o.maxRowsPerFile != 0 ? o.maxRowsPerFile : maxRowsPerFile);
    }
}
