package io.javelin.objectstore.internal;

import java.util.Map;

/**
 * Streaming-upload settings, read like Lance's: {@code LANCE_INITIAL_UPLOAD_SIZE} (part size,
 * 5 MiB, clamped to S3's 5 MiB..5 GiB where the store requires it) and
 * {@code LANCE_UPLOAD_CONCURRENCY} (parts in flight, 10).
 */
public record UploadConfig(long partSize, int concurrency) {

    public static final long MIN_S3_PART = 5L * 1024 * 1024;
    public static final UploadConfig DEFAULTS = new UploadConfig(MIN_S3_PART, 10);

    public static UploadConfig fromEnv(Map<String, String> env) {
        long part = parse(env.get("LANCE_INITIAL_UPLOAD_SIZE"), MIN_S3_PART);
        int conc = (int) parse(env.get("LANCE_UPLOAD_CONCURRENCY"), 10);
        return new UploadConfig(part, Math.max(1, conc));
    }

    private static long parse(String v, long dflt) {
        if (v == null || v.isBlank()) {
            return dflt;
        }
        try {
            return Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            return dflt;
        }
    }

    public UploadConfig withPartSize(long size) {
        return new UploadConfig(size, concurrency);
    }
}
