package io.javelin.tx.tree;

/**
 * Writer policy of the fragment tree. None of it is part of the format; readers accept any shape
 * that satisfies the spec.
 *
 * @param maxLeafBytes      target encoded leaf size (a single record may exceed it)
 * @param maxNodeBytes      target encoded size of an interior (children + buffer)
 * @param bufferBytes       a node's buffer above this size is drained to its children
 * @param fanOut            maximum children of the root and of interiors (at least 3)
 * @param inlineRootBytes   publish the root inline when the encoded descriptor fits (0 = never)
 * @param suffixBytes       keep new mutations in mutations_since_root up to this encoded size (0 = never)
 * @param leafParallelism   concurrent leaf reads and writes
 */
public record TreeConfig(int maxLeafBytes, int maxNodeBytes, int bufferBytes, int fanOut, int inlineRootBytes,
        int suffixBytes, int leafParallelism) {

    public TreeConfig {
        if (fanOut < 3) {
            throw new IllegalArgumentException("fanOut must be at least 3 (two-child interiors cannot split 3 children): " + fanOut);
        }
        if (maxLeafBytes <= 0 || maxNodeBytes <= 0 || bufferBytes <= 0 || leafParallelism <= 0) {
            throw new IllegalArgumentException("sizes and parallelism must be positive");
        }
        if (inlineRootBytes < 0 || suffixBytes < 0) {
            throw new IllegalArgumentException("budgets must not be negative");
        }
    }

    /**
     * 1 MiB leaves and nodes and fan-out 16 as upstream; smaller publication budgets than upstream's
     * (8 KiB inline root instead of 64 KiB, 6 KiB suffix instead of 32 KiB, 128 KiB buffers instead
     * of 256 KiB). Every commit rewrites the manifest with the inline root or the suffix, and every
     * suffix overflow rewrites the root with its buffer, so the amortized bytes of a commit stream
     * are about {@code suffix/2 + buffer/2 * m/suffix + leaf * m/buffer} for {@code m} bytes of new
     * mutations per commit: these budgets sit near that minimum for small commits (a backfill of 10
     * fragments per commit: 11.4 KB instead of 25 KB at 10^5 fragments; docs/bench/history.md,
     * "Pass 3").
     */
    public static TreeConfig defaults() {
        return new TreeConfig(1 << 20, 1 << 20, 128 << 10, 16, 8 << 10, 6 << 10, 8);
    }

    /** Upstream's defaults: 1 MiB leaves and nodes, 256 KiB buffers, fan-out 16, 64 KiB inline, 32 KiB suffix. */
    public static TreeConfig upstreamDefaults() {
        return new TreeConfig(1 << 20, 1 << 20, 256 << 10, 16, 64 << 10, 32 << 10, 8);
    }

    /** Upstream's table-config prefix for byte targets. */
    public static final String PREFIX = "lance.fragment_metadata.";
    /** Javelin's own fan-out key (upstream rejects unknown keys under its prefix, so ours lives elsewhere). */
    public static final String FAN_OUT_KEY = "javelin.fragment_metadata.max_children_per_node";

    /**
     * Reads the policy from table config: upstream's {@code lance.fragment_metadata.*} byte targets
     * ({@code max_leaf_bytes}, {@code max_node_bytes}, {@code semantic_buffer_bytes},
     * {@code inline_manifest_budget}, {@code publication_suffix_budget}) and Javelin's fan-out key.
     * Unknown keys under the upstream prefix are rejected, as upstream does, so a typo cannot pass.
     */
    public static TreeConfig fromTableConfig(java.util.Map<String, String> config) {
        TreeConfig c = defaults();
        int leaf = c.maxLeafBytes;
        int node = c.maxNodeBytes;
        int buffer = c.bufferBytes;
        int inline = c.inlineRootBytes;
        int suffix = c.suffixBytes;
        int fan = c.fanOut;
        for (var e : config.entrySet()) {
            String k = e.getKey();
            if (k.equals(FAN_OUT_KEY)) {
                fan = parse(k, e.getValue());
                continue;
            }
            if (!k.startsWith(PREFIX)) {
                continue;
            }
            if (k.equals(PREFIX + "materialization")) {
                continue;
            }
            int v = parse(k, e.getValue());
            switch (k.substring(PREFIX.length())) {
                case "max_leaf_bytes" -> leaf = v;
                case "max_node_bytes" -> node = v;
                case "semantic_buffer_bytes" -> buffer = v;
                case "inline_manifest_budget" -> inline = v;
                case "publication_suffix_budget" -> suffix = v;
                case "hard_capacity_bytes" -> {
                    // Accepted for compatibility; Javelin has no separate hard cap or bulk mode.
                }
                default -> throw new IllegalArgumentException("unknown fragment tree setting: " + k);
            }
        }
        return new TreeConfig(leaf, node, buffer, fan, inline, suffix, c.leafParallelism);
    }

    private static int parse(String key, String value) {
        try {
            return Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("invalid value for " + key + ": " + value, e);
        }
    }

    public TreeConfig withFanOut(int f) {
        return new TreeConfig(maxLeafBytes, maxNodeBytes, bufferBytes, f, inlineRootBytes, suffixBytes, leafParallelism);
    }

    public TreeConfig withLeafBytes(int b) {
        return new TreeConfig(b, maxNodeBytes, bufferBytes, fanOut, inlineRootBytes, suffixBytes, leafParallelism);
    }

    public TreeConfig withBufferBytes(int b) {
        return new TreeConfig(maxLeafBytes, maxNodeBytes, b, fanOut, inlineRootBytes, suffixBytes, leafParallelism);
    }

    public TreeConfig withInlineRootBytes(int b) {
        return new TreeConfig(maxLeafBytes, maxNodeBytes, bufferBytes, fanOut, b, suffixBytes, leafParallelism);
    }

    public TreeConfig withSuffixBytes(int b) {
        return new TreeConfig(maxLeafBytes, maxNodeBytes, bufferBytes, fanOut, inlineRootBytes, b, leafParallelism);
    }

    /** Leaves below this size are merged with small neighbours when rewritten. */
    int leafMergeBytes() {
        return maxLeafBytes / 4;
    }
}
