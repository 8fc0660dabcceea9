package io.javelin.engine.index;

import java.util.Locale;

/** Index types {@code Dataset.createIndex} builds, named as in Lance ({@code IndexType} of the Python/Java SDKs). */
public enum IndexKind {
    BTREE, BITMAP, LABEL_LIST, ZONEMAP, BLOOM_FILTER, INVERTED, IVF_FLAT, IVF_PQ, IVF_SQ, IVF_HNSW_FLAT, IVF_HNSW_SQ;

    public boolean isVector() {
        return name().startsWith("IVF_");
    }

    public boolean isHnsw() {
        return name().startsWith("IVF_HNSW_");
    }

    /** Parses {@code "ivf_pq"}, {@code "BTREE"}, {@code "label-list"}...; unknown names are an {@link IllegalArgumentException}. */
    public static IndexKind parse(String s) {
        String n = s.trim().toUpperCase(Locale.ROOT).replace('-', '_');
        if (n.equals("LABELLIST")) {
            n = "LABEL_LIST";
        } else if (n.equals("ZONE_MAP")) {
            n = "ZONEMAP";
        } else if (n.equals("FTS")) {
            n = "INVERTED";
        } else if (n.equals("BLOOMFILTER") || n.equals("BLOOM")) {
            n = "BLOOM_FILTER";
        }
        try {
            return valueOf(n);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("Unknown index type '" + s + "' (one of " + java.util.Arrays.toString(values()) + ")");
        }
    }
}
